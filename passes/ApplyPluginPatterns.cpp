//===- ApplyPluginPatterns.cpp - Patterns registered by plugins -----------===//
#include "passes/FusionRegistry.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fusec {
#define GEN_PASS_DEF_APPLYPLUGINPATTERNS
#include "passes/Passes.h.inc"
} // namespace fusec

namespace {
struct ApplyPluginPatternsPass : fusec::impl::ApplyPluginPatternsBase<ApplyPluginPatternsPass> {
  using ApplyPluginPatternsBase::ApplyPluginPatternsBase;
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    fusec::FusionRegistry::instance().populatePatterns(
        patterns, std::vector<std::string>(disabledRules.begin(), disabledRules.end()));
    if (patterns.getNativePatterns().empty())
      return;
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
