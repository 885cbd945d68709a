//===- FormFusionGroups.cpp - Cost-model-driven fusion planning -----------===//
#include "passes/FusionGraph.h"
#include "passes/FusionRegistry.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace fusec {
#define GEN_PASS_DEF_FORMFUSIONGROUPS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;

namespace {

struct FormFusionGroupsPass : fusec::impl::FormFusionGroupsBase<FormFusionGroupsPass> {
  using FormFusionGroupsBase::FormFusionGroupsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto &registry = fusec::FusionRegistry::instance();
    auto profile = fusec::loadDeviceProfile(deviceProfile);
    if (!profile) {
      func.emitError() << llvm::toString(profile.takeError());
      return signalPassFailure();
    }
    if (costBatch < 1) {
      func.emitError() << "cost-batch must be >= 1, got " << static_cast<int64_t>(costBatch);
      return signalPassFailure();
    }
    const std::optional<fusec::fuse::ProductPrecision> productPrecision =
        fusec::config::productPrecisionNamed(precision);
    if (!productPrecision) {
      func.emitError() << "unknown precision '" << precision << "' (expected fp32 or tf32)";
      return signalPassFailure();
    }
    const fusec::CostTarget target{*profile, costBatch, *productPrecision, fusec::config::isHopperTarget(this->target)};
    auto model = registry.createCostModel(costModel, target);
    if (!model) {
      func.emitError() << "unknown cost model '" << costModel
                       << "' (known: " << llvm::join(registry.costModelNames(), ", ") << ")";
      return signalPassFailure();
    }
    auto chosen = registry.createStrategy(strategy);
    if (!chosen) {
      func.emitError() << "unknown fusion strategy '" << strategy
                       << "' (known: " << llvm::join(registry.strategyNames(), ", ") << ")";
      return signalPassFailure();
    }

    fusec::FusionGraph graph(func, *model, std::vector<std::string>(disabledRules.begin(), disabledRules.end()));
    chosen->run(graph);
    graph.commit();
    recordDecisions(graph, *profile);
  }

  void recordDecisions(const fusec::FusionGraph &graph, const fusec::DeviceProfile &profile) {
    func::FuncOp func = getOperation();
    Builder builder(&getContext());
    for (const fusec::FusionGroup &group : graph.groups()) {
      if (!group.alive || graph.isOutlined(group.id))
        continue;
      ++numKernels;
      fusec::CostEstimate fused = graph.cost(group.id), unfused = graph.unfusedCost(group.id);
      group.ops.front()->setAttr(
          fusec::kKernelCostAttr,
          builder.getDictionaryAttr({
              builder.getNamedAttr("fused_us", builder.getF64FloatAttr(fused.timeUs)),
              builder.getNamedAttr("unfused_us", builder.getF64FloatAttr(unfused.timeUs)),
              builder.getNamedAttr("fused_bytes", builder.getF64FloatAttr(fused.bytes())),
              builder.getNamedAttr("unfused_bytes", builder.getF64FloatAttr(unfused.bytes())),
              builder.getNamedAttr("unfused_kernels", builder.getI64IntegerAttr(unfused.launches)),
          }));
    }
    SmallVector<Attribute> rejected;
    for (const fusec::RejectedFusion &rejection : graph.rejections())
      rejected.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("first", builder.getStringAttr(rejection.first)),
          builder.getNamedAttr("second", builder.getStringAttr(rejection.second)),
          builder.getNamedAttr("reason", builder.getStringAttr(rejection.reason)),
          builder.getNamedAttr("rule", builder.getStringAttr(rejection.rule)),
          builder.getNamedAttr("detail", builder.getStringAttr(rejection.detail)),
          builder.getNamedAttr("fused_us", builder.getF64FloatAttr(rejection.fusedUs)),
          builder.getNamedAttr("unfused_us", builder.getF64FloatAttr(rejection.unfusedUs)),
      }));
    func->setAttr(fusec::kRejectedFusionsAttr, builder.getArrayAttr(rejected));
    func->setAttr(fusec::kFusionConfigAttr,
                  builder.getDictionaryAttr({
                      builder.getNamedAttr("strategy", builder.getStringAttr(strategy)),
                      builder.getNamedAttr("device_profile", builder.getStringAttr(profile.name)),
                      builder.getNamedAttr("cost_model", builder.getStringAttr(costModel)),
                  }));
  }
};

} // namespace
