//===- SelectKernelConfigs.cpp - #fuse.config on conv and GEMM kernels ----===//
#include "passes/Passes.h"

#include "config/TileSelection.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "ir/OpClassification.h"

namespace fusec {
#define GEN_PASS_DEF_SELECTKERNELCONFIGS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// The conv, Gemm, MatMul or Attention op of a conv, gemm or attention
/// superkernel (its last, as codegen takes it), or null.
Operation *templateCore(SuperkernelOp kernel) {
  Operation *core = nullptr;
  for (Operation &op : kernel.getBody().front()) {
    const OpClass opClass = classifyOp(&op);
    if (opClass == OpClass::Conv || opClass == OpClass::Gemm || opClass == OpClass::Attention)
      core = &op;
  }
  return core;
}

struct SelectKernelConfigs : fusec::impl::SelectKernelConfigsBase<SelectKernelConfigs> {
  using Base::Base;

  void runOnOperation() override {
    const std::optional<ProductPrecision> productPrecision = fusec::config::productPrecisionNamed(precision);
    if (!productPrecision) {
      getOperation().emitError() << "unknown precision '" << precision << "' (expected fp32 or tf32)";
      return signalPassFailure();
    }
    if (batch < 1 || smCount < 1 || variants < 1) {
      getOperation().emitError() << "batch, sm-count and variants must be positive";
      return signalPassFailure();
    }
    const fusec::config::ConfigTarget target{*productPrecision, batch, smCount, sharedBytesPerSm,
                                             fusec::config::isHopperTarget(this->target)};
    WalkResult result = getOperation().walk([&](SuperkernelOp kernel) {
      Operation *core = templateCore(kernel);
      if (!core)
        return WalkResult::advance();
      KernelConfig config;
      if (KernelConfigAttr pinned = kernel.getConfigAttr()) {
        config = KernelConfig::fromAttr(pinned);
        if (failed(checkKernelConfig(core, config)))
          return WalkResult::interrupt();
      } else {
        config = fusec::config::chooseKernelConfig(core, target);
        kernel.setConfigAttr(config.toAttr(kernel.getContext()));
      }
      ++(config.usesTensorCores() ? numTensorCore : numSimt);
      if (ArrayAttr pinned = kernel.getVariantsAttr()) {
        for (auto variant : pinned.getAsRange<KernelConfigAttr>()) {
          if (failed(checkKernelConfig(core, KernelConfig::fromAttr(variant))))
            return WalkResult::interrupt();
          // The runtime picks the fastest variant: each must compute as
          // accurately as the config the user's precision chose.
          if (variant.getPrecision() == "tf32" && kernel.getConfigAttr().getPrecision() != "tf32") {
            kernel.emitError() << "variant " << variant << " computes in plain TF32, less accurately than the "
                               << "kernel's config (" << kernel.getConfigAttr().getPrecision()
                               << "): variants may not change a kernel's accuracy";
            return WalkResult::interrupt();
          }
        }
        numVariants += pinned.size();
      } else if (variants > 1) {
        SmallVector<Attribute> listed;
        for (const KernelConfig &variant : fusec::config::kernelConfigVariants(core, config, variants, target))
          listed.push_back(variant.toAttr(kernel.getContext()));
        if (!listed.empty())
          kernel.setVariantsAttr(ArrayAttr::get(kernel.getContext(), listed));
        numVariants += listed.size();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
