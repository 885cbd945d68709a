//===- NoFusion.cpp - Every group stays its own kernel --------------------===//
#include "passes/strategies/Strategy.h"

namespace fusec {
namespace {
class NoFusionStrategy : public FusionStrategy {
public:
  std::string name() const override { return "none"; }
  void run(FusionGraph &) override {}
};
} // namespace

std::unique_ptr<FusionStrategy> createNoFusionStrategy() { return std::make_unique<NoFusionStrategy>(); }
} // namespace fusec
