//===- Greedy.cpp - Merge the most beneficial pair first ------------------===//
#include "passes/strategies/Greedy.h"
#include "passes/strategies/Strategy.h"

#include <queue>

namespace fusec {

FusionStrategy::~FusionStrategy() = default;

namespace {

struct Candidate {
  double benefit;
  int a, b;
  unsigned versionA, versionB;
  bool operator<(const Candidate &other) const {
    if (benefit != other.benefit)
      return benefit < other.benefit;
    // Deterministic tie-break: earlier groups first.
    return std::make_pair(a, b) > std::make_pair(other.a, other.b);
  }
};

class GreedyStrategy : public FusionStrategy {
public:
  std::string name() const override { return "greedy"; }
  void run(FusionGraph &graph) override { runGreedy(graph); }
};

} // namespace

void runGreedy(FusionGraph &graph) {
  std::priority_queue<Candidate> queue;
  auto consider = [&](int a, int b) {
    if (a == b || !graph.group(a).alive || !graph.group(b).alive)
      return;
    if (a > b)
      std::swap(a, b);
    queue.push({graph.benefit(a, b), a, b, graph.group(a).version, graph.group(b).version});
  };
  auto considerNeighbours = [&](int id) {
    for (int other : graph.producers(id))
      consider(other, id);
    for (int other : graph.consumers(id))
      consider(id, other);
    for (int other : graph.siblingsOf(id))
      consider(id, other);
  };
  for (const FusionGroup &group : graph.groups())
    if (group.alive)
      for (int consumer : graph.consumers(group.id))
        consider(group.id, consumer);
  for (auto [a, b] : graph.siblingPairs())
    consider(a, b);

  while (!queue.empty()) {
    Candidate best = queue.top();
    queue.pop();
    const FusionGroup &a = graph.group(best.a), &b = graph.group(best.b);
    if (!a.alive || !b.alive || a.version != best.versionA || b.version != best.versionB)
      continue; // stale: the groups changed since this was queued
    if (best.benefit <= 0) {
      graph.rejectUnprofitable(best.a, best.b);
      continue;
    }
    Legality legality = graph.checkMerge(best.a, best.b);
    if (!legality.legal) {
      graph.reject(best.a, best.b, legality);
      continue;
    }
    int survivor = graph.merge(best.a, best.b);
    considerNeighbours(survivor);
  }
}

std::unique_ptr<FusionStrategy> createGreedyStrategy() { return std::make_unique<GreedyStrategy>(); }

} // namespace fusec
