//===- Pipeline.cpp - The fusion pipeline ---------------------------------===//
#include "passes/Pipeline.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

namespace fusec {

bool FusionOptions::isEnabled(llvm::StringRef name) const {
  return std::find(disabled.begin(), disabled.end(), name.str()) == disabled.end();
}

std::vector<std::string> fusionRuleNames() { return {"fold-batch-norm", "fold-pad-into-conv"}; }

void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options) {
  mlir::OpPassManager &funcPm = pm.nest<mlir::func::FuncOp>();
  funcPm.addPass(mlir::createCanonicalizerPass());
  if (options.isEnabled("fold-pad-into-conv"))
    funcPm.addPass(createFoldPadIntoConv());
  if (options.isEnabled("fold-batch-norm"))
    funcPm.addPass(createFoldBatchNorm());
  funcPm.addPass(mlir::createCanonicalizerPass());
  funcPm.addPass(mlir::createCSEPass());
}

void registerFusionPipeline() {
  mlir::PassPipelineRegistration<>(
      "fuse-fusion-pipeline", "The fusec fusion pipeline with every rule enabled",
      [](mlir::OpPassManager &pm) { buildFusionPipeline(pm, FusionOptions()); });
}

} // namespace fusec
