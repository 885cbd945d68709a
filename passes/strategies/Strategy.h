//===- Strategy.h - How the planner chooses merges -------------*- C++ -*-===//
#ifndef FUSEC_PASSES_STRATEGIES_STRATEGY_H
#define FUSEC_PASSES_STRATEGIES_STRATEGY_H

#include "passes/FusionGraph.h"

#include <memory>
#include <string>

namespace fusec {

/// A fusion strategy merges groups of a FusionGraph. It must only merge pairs
/// that checkMerge accepts, and should record rejected candidates.
class FusionStrategy {
public:
  virtual ~FusionStrategy();
  virtual std::string name() const = 0;
  virtual void run(FusionGraph &graph) = 0;
};

/// Merges the most beneficial legal pair first, until no merge saves time.
std::unique_ptr<FusionStrategy> createGreedyStrategy();
/// Optimal segmentation of every chain by dynamic programming, then greedy
/// for the edges between chains.
std::unique_ptr<FusionStrategy> createDynamicProgrammingStrategy();
/// Leaves every group as it is.
std::unique_ptr<FusionStrategy> createNoFusionStrategy();

} // namespace fusec

#endif // FUSEC_PASSES_STRATEGIES_STRATEGY_H
