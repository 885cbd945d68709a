//===- GraphCache.h - One set of instantiated CUDA graphs per batch bucket --===//
//
// A bucket's schedule is split by host steps into segments; each non-empty
// segment is captured from the session's stream into its own CUDA graph and
// instantiated once. Replays then cost one cuGraphLaunch per segment. The
// graphs bake in the device addresses of the schedule, which is why a
// session's workspace never moves.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_GRAPHCACHE_H
#define FUSEC_RUNTIME_CUDA_GRAPHCACHE_H

#include "runtime/Schedule.h"
#include "runtime/cuda/CudaContext.h"

#include <functional>
#include <map>
#include <vector>

namespace fusec::runtime::cuda {

class GraphCache {
public:
  /// Enqueues one segment's device steps on the stream.
  using RecordSegment = std::function<void(const Segment &)>;

  explicit GraphCache(const CudaContext &context) : context_(context) {}
  ~GraphCache();
  GraphCache(const GraphCache &) = delete;
  GraphCache &operator=(const GraphCache &) = delete;

  /// The graphs of a graphed schedule, one per segment (null for an empty
  /// segment), captured with `record` on the bucket's first request.
  const std::vector<CUgraphExec> &graphs(const Schedule &schedule, const RecordSegment &record);

private:
  CUgraphExec capture(const Segment &segment, const RecordSegment &record, const std::string &where);

  const CudaContext &context_;
  /// By run batch (the bucket).
  std::map<int64_t, std::vector<CUgraphExec>> graphs_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_GRAPHCACHE_H
