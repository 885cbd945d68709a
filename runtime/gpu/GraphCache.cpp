//===- GraphCache.cpp - One set of instantiated graphs per batch bucket -----===//

#include "runtime/gpu/GraphCache.h"

namespace fusec::runtime::gpu {

GraphCache::~GraphCache() {
  for (const auto &entry : graphs_)
    for (Graph graph : entry.second)
      if (graph)
        driver_.destroyGraph(graph);
}

Graph GraphCache::capture(const Segment &segment, const RecordSegment &record, const std::string &where) {
  driver_.beginCapture(stream_, where);
  try {
    record(segment);
  } catch (...) {
    // End the (now invalid) capture so the stream is usable again; the
    // error that stopped the recording is the one worth reporting.
    driver_.abandonCapture(stream_);
    throw;
  }
  return driver_.endCapture(stream_, where);
}

const std::vector<Graph> &GraphCache::graphs(const Schedule &schedule, const RecordSegment &record) {
  auto cached = graphs_.find(schedule.mode.runBatch);
  if (cached != graphs_.end())
    return cached->second;

  std::vector<Graph> captured;
  try {
    for (size_t i = 0; i < schedule.segments.size(); ++i) {
      const Segment &segment = schedule.segments[i];
      captured.push_back(segment.steps.empty() ? nullptr
                                               : capture(segment, record,
                                                         "for segment " + std::to_string(i) + " of " +
                                                             std::to_string(schedule.segments.size()) + " (" +
                                                             describeRunMode(schedule.mode) + ")"));
    }
  } catch (...) {
    for (Graph graph : captured)
      if (graph)
        driver_.destroyGraph(graph);
    throw;
  }
  return graphs_.emplace(schedule.mode.runBatch, std::move(captured)).first->second;
}

} // namespace fusec::runtime::gpu
