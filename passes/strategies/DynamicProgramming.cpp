//===- DynamicProgramming.cpp - Optimal chain segmentation ----------------===//
//
// A chain is a run of groups g1 -> g2 -> ... -> gn where each g(i) feeds only
// g(i+1) and g(i+1) is fed only by g(i). On a chain no merge can create a
// cycle, so its best partition into kernels is a segmentation, found exactly
// by dynamic programming: best[i] = min over j of best[j] + cost(g(j+1..i)).
// Edges between chains (branches, joins, siblings) are then merged greedily.
//
//===----------------------------------------------------------------------===//
#include "passes/strategies/Greedy.h"
#include "passes/strategies/Strategy.h"

#include <limits>

namespace fusec {
namespace {

/// Segments longer than this are not considered (kernels of more than this
/// many groups are rare and the search stays linear in the chain length).
constexpr size_t kMaxSegment = 32;

std::vector<std::vector<int>> findChains(const FusionGraph &graph) {
  auto singleProducer = [&](int id) {
    auto producers = graph.producers(id);
    return producers.size() == 1 && graph.consumers(producers[0]).size() == 1 ? producers[0] : -1;
  };
  std::vector<std::vector<int>> chains;
  for (const FusionGroup &group : graph.groups()) {
    if (!group.alive || singleProducer(group.id) >= 0)
      continue; // not the start of a chain
    std::vector<int> chain = {group.id};
    while (true) {
      auto next = graph.consumers(chain.back());
      if (next.size() != 1 || singleProducer(next[0]) != chain.back())
        break;
      chain.push_back(next[0]);
    }
    if (chain.size() > 1)
      chains.push_back(std::move(chain));
  }
  return chains;
}

/// Returns the segment boundaries of the cheapest segmentation of `chain`.
std::vector<std::pair<size_t, size_t>> segmentChain(const FusionGraph &graph, const std::vector<int> &chain) {
  size_t n = chain.size();
  std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
  std::vector<size_t> start(n + 1, 0);
  best[0] = 0;
  for (size_t j = 0; j < n; ++j) {
    // Grow the segment chain[j..i) while the kind rules allow it.
    FusionGroup segment = graph.group(chain[j]);
    std::vector<int> ids = {chain[j]};
    for (size_t i = j + 1; i <= n && i - j <= kMaxSegment; ++i) {
      if (i > j + 1) {
        const FusionGroup &next = graph.group(chain[i - 1]);
        if (!graph.checkKinds(segment, next).legal)
          break;
        segment.ops.insert(segment.ops.end(), next.ops.begin(), next.ops.end());
        segment.core = segment.core ? segment.core : next.core;
        ids.push_back(chain[i - 1]);
      }
      double total = best[j] + graph.costOf(ids).timeUs;
      if (total < best[i]) {
        best[i] = total;
        start[i] = j;
      }
    }
  }
  std::vector<std::pair<size_t, size_t>> segments;
  for (size_t end = n; end > 0; end = start[end])
    segments.push_back({start[end], end});
  std::reverse(segments.begin(), segments.end());
  return segments;
}

class DynamicProgrammingStrategy : public FusionStrategy {
public:
  std::string name() const override { return "dp"; }
  void run(FusionGraph &graph) override {
    for (const std::vector<int> &chain : findChains(graph)) {
      for (auto [begin, end] : segmentChain(graph, chain)) {
        int survivor = chain[begin];
        for (size_t i = begin + 1; i < end; ++i)
          survivor = graph.merge(survivor, chain[i]);
      }
    }
    runGreedy(graph);
  }
};

} // namespace

std::unique_ptr<FusionStrategy> createDynamicProgrammingStrategy() {
  return std::make_unique<DynamicProgrammingStrategy>();
}

} // namespace fusec
