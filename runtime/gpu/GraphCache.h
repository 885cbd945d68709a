//===- GraphCache.h - One set of instantiated graphs per batch bucket -------===//
//
// A bucket's schedule is split by host steps into segments; each non-empty
// segment is captured from the session's stream into its own graph and
// instantiated once. Replays then cost one graph launch per segment. The
// graphs bake in the device addresses of the schedule, which is why a
// session's workspace never moves.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_GRAPHCACHE_H
#define FUSEC_RUNTIME_GPU_GRAPHCACHE_H

#include "runtime/gpu/GpuDevice.h"
#include "runtime/gpu/Schedule.h"

#include <functional>
#include <map>
#include <vector>

namespace fusec::runtime::gpu {

class GraphCache {
public:
  /// Enqueues one segment's device steps on the stream.
  using RecordSegment = std::function<void(const Segment &)>;

  GraphCache(const GpuDevice &driver, Stream stream) : driver_(driver), stream_(stream) {}
  ~GraphCache();
  GraphCache(const GraphCache &) = delete;
  GraphCache &operator=(const GraphCache &) = delete;

  /// The graphs of a graphed schedule, one per segment (null for an empty
  /// segment), captured with `record` on the bucket's first request.
  const std::vector<Graph> &graphs(const Schedule &schedule, const RecordSegment &record);

private:
  Graph capture(const Segment &segment, const RecordSegment &record, const std::string &where);

  const GpuDevice &driver_;
  Stream stream_;
  /// By run batch (the bucket).
  std::map<int64_t, std::vector<Graph>> graphs_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_GRAPHCACHE_H
