//===- GraphCache.cpp - One set of instantiated CUDA graphs per batch bucket ===//

#include "runtime/cuda/GraphCache.h"

namespace fusec::runtime::cuda {

GraphCache::~GraphCache() {
  for (const auto &entry : graphs_)
    for (CUgraphExec exec : entry.second)
      if (exec)
        context_.api().graphExecDestroy(exec);
}

CUgraphExec GraphCache::capture(const Segment &segment, const RecordSegment &record, const std::string &where) {
  const DriverApi &cu = context_.api();
  cu.check(cu.streamBeginCapture(context_.stream(), kCaptureModeThreadLocal), "cuStreamBeginCapture", where);
  try {
    record(segment);
  } catch (...) {
    // End the (now invalid) capture so the stream is usable again; the
    // error that stopped the recording is the one worth reporting.
    CUgraph partial = nullptr;
    cu.streamEndCapture(context_.stream(), &partial);
    if (partial)
      cu.graphDestroy(partial);
    throw;
  }
  CUgraph graph = nullptr;
  cu.check(cu.streamEndCapture(context_.stream(), &graph), "cuStreamEndCapture", where);
  CUgraphExec exec = nullptr;
  const CUresult instantiated = cu.graphInstantiate(&exec, graph, 0);
  // The executable graph is independent of the graph it was made from.
  cu.graphDestroy(graph);
  cu.check(instantiated, "cuGraphInstantiateWithFlags", where);
  return exec;
}

const std::vector<CUgraphExec> &GraphCache::graphs(const Schedule &schedule, const RecordSegment &record) {
  auto cached = graphs_.find(schedule.mode.runBatch);
  if (cached != graphs_.end())
    return cached->second;

  std::vector<CUgraphExec> execs;
  try {
    for (size_t i = 0; i < schedule.segments.size(); ++i) {
      const Segment &segment = schedule.segments[i];
      execs.push_back(segment.steps.empty() ? nullptr
                                            : capture(segment, record,
                                                      "for segment " + std::to_string(i) + " of " +
                                                          std::to_string(schedule.segments.size()) + " (" +
                                                          describeRunMode(schedule.mode) + ")"));
    }
  } catch (...) {
    for (CUgraphExec exec : execs)
      if (exec)
        context_.api().graphExecDestroy(exec);
    throw;
  }
  return graphs_.emplace(schedule.mode.runBatch, std::move(execs)).first->second;
}

} // namespace fusec::runtime::cuda
