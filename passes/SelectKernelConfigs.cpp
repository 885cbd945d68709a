//===- SelectKernelConfigs.cpp - #fuse.config on conv and GEMM kernels ----===//
#include "passes/Passes.h"

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

/// The conv, Gemm or MatMul op of a conv or gemm superkernel (its last, as
/// codegen takes it), or null.
Operation *templateCore(SuperkernelOp kernel) {
  Operation *core = nullptr;
  for (Operation &op : kernel.getBody().front()) {
    const OpClass opClass = classifyOp(&op);
    if (opClass == OpClass::Conv || opClass == OpClass::Gemm)
      core = &op;
  }
  return core;
}

struct SelectKernelConfigs : fusec::impl::SelectKernelConfigsBase<SelectKernelConfigs> {
  using Base::Base;

  void runOnOperation() override {
    ProductPrecision productPrecision;
    if (precision == "fp32") {
      productPrecision = ProductPrecision::Fp32;
    } else if (precision == "tf32") {
      productPrecision = ProductPrecision::Tf32;
    } else {
      getOperation().emitError() << "unknown precision '" << precision << "' (expected fp32 or tf32)";
      return signalPassFailure();
    }
    if (batch < 1 || smCount < 1) {
      getOperation().emitError() << "batch and sm-count must be positive";
      return signalPassFailure();
    }
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
        config = chooseKernelConfig(core, productPrecision, TileTarget{batch, smCount, sharedBytesPerSm});
        kernel.setConfigAttr(config.toAttr(kernel.getContext()));
      }
      ++(config.usesTensorCores() ? numTensorCore : numSimt);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
