//===- Pipeline.cpp - The fusion pipeline ---------------------------------===//
#include "passes/Pipeline.h"
#include "passes/FusionRegistry.h"
#include "passes/Passes.h"
#include "passes/cost/DeviceProfile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

namespace fusec {

bool FusionOptions::isEnabled(llvm::StringRef name) const {
  return std::find(disabled.begin(), disabled.end(), name.str()) == disabled.end();
}

std::vector<std::string> fusionRuleNames() {
  std::vector<std::string> names = {// rewrites
                                    "fold-batch-norm", "fold-pad-into-conv", "form-layer-norm", "form-attention",
                                    // epilogue rule patterns (fuse-form-epilogues)
                                    "epilogue-activation", "bias-epilogue", "add-to-output", "conv-prologue",
                                    "epilogue-transpose", "conv-into-norm", "operand-views",
                                    // data movement around attention as views (fuse-expose-views)
                                    "expose-views",
                                    // views read and written in place (fuse-form-attention-views)
                                    "attention-views",
                                    // data-movement chains (fuse-form-data-movement-chains)
                                    "data-movement-chain",
                                    // concats their producers write (fuse-chain-concats, fuse-place-concats)
                                    "concat-in-place",
                                    // reshape kernels whose result shares its operand's bytes (fuse-alias-reshapes)
                                    "reshape-in-place",
                                    // planner rules (fuse-form-fusion-groups)
                                    "elementwise-fusion", "epilogue-fusion", "reduction-fusion", "sibling-fusion"};
  for (const std::string &pattern : FusionRegistry::instance().patternNames())
    names.push_back(pattern);
  return names;
}

void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options) {
  mlir::OpPassManager &funcPm = pm.nest<mlir::func::FuncOp>();
  funcPm.addPass(mlir::createCanonicalizerPass());
  if (options.isEnabled("fold-pad-into-conv"))
    funcPm.addPass(createFoldPadIntoConv());
  if (options.isEnabled("fold-batch-norm"))
    funcPm.addPass(createFoldBatchNorm());
  funcPm.addPass(createApplyPluginPatterns({options.disabled}));
  funcPm.addPass(mlir::createCanonicalizerPass());
  funcPm.addPass(mlir::createCSEPass());
  // After the folds, which match NCHW convs; before fusion, so the convs'
  // epilogues form on the NHWC results.
  if (options.layout == "nhwc") {
    // The first conv's result is stored transposed by its own kernel only
    // where epilogue rules run.
    // sm_90a f16/bf16: a conv on fewer than 8 channels (an RGB stem) gets
    // its input padded to 8, the Hopper conv's narrowest row.
    const bool hopperHalf = options.target == "sm_90a" && (options.precision == "fp16" || options.precision == "bf16");
    funcPm.addPass(createConvertToChannelsLast(
        {/*inputConvsNchw=*/options.strategy != "none" && options.isEnabled("epilogue-transpose"),
         /*padChannels=*/hopperHalf ? 8 : 0}));
    // Merges the transposes of one value that the pass made separately.
    funcPm.addPass(mlir::createCSEPass());
  }
  // Before mixed precision, which would split the chain with casts around
  // the softmax; not under strategy "none", whose plans are the unfused
  // reference.
  if (options.strategy != "none" && options.isEnabled("form-layer-norm"))
    funcPm.addPass(createFormLayerNorm());
  if (options.strategy != "none" && options.isEnabled("form-attention"))
    funcPm.addPass(createFormAttention());
  // After attention is formed, whose views decide where a transpose ends.
  if (options.strategy != "none" && options.isEnabled("expose-views"))
    funcPm.addPass(createExposeViews());
  const bool concatInPlace = options.strategy != "none" && options.isEnabled("concat-in-place");
  // After the folds, so folded weights are rounded once; before fusion, so
  // the casts it inserts join neighbouring kernels.
  if (options.precision == "fp16" || options.precision == "bf16") {
    std::string half = options.precision == "fp16" ? "f16" : "bf16";
    funcPm.addPass(createAutoMixedPrecision({half, options.ioPrecision.empty() ? "" : half, concatInPlace}));
    funcPm.addPass(mlir::createCanonicalizerPass());
  }
  // "none" means every op is its own kernel: no rule pattern groups either.
  if (concatInPlace)
    funcPm.addPass(createChainConcats());
  if (options.strategy != "none")
    funcPm.addPass(createFormEpilogues({options.disabled}));
  // Before the data-movement chains, which would otherwise take the head
  // split and merge as copy kernels.
  if (options.strategy != "none" && options.isEnabled("attention-views"))
    funcPm.addPass(createFormAttentionViews());
  if (options.strategy != "none" && options.isEnabled("data-movement-chain"))
    funcPm.addPass(createFormDataMovementChains({concatInPlace}));
  // Half-precision products take their precision from their operands'
  // type; any f32 product left is computed at fp32 accuracy unless tf32 is
  // asked for. The planner prices what fuse-select-kernel-configs compiles.
  const std::string productPrecision = options.precision == "tf32" ? "tf32" : "fp32";
  FormFusionGroupsOptions planner;
  planner.strategy = options.strategy;
  planner.deviceProfile = options.deviceProfile;
  planner.costModel = options.costModel;
  planner.costBatch = options.costBatch;
  planner.precision = productPrecision;
  planner.target = options.target;
  planner.disabledRules = options.disabled;
  funcPm.addPass(createFormFusionGroups(planner));
  funcPm.addPass(createOutlineSuperkernels());
  // Before the library variants: a library call stores contiguously, so a
  // kernel writing into a concatenation keeps its generated form only.
  if (concatInPlace)
    funcPm.addPass(createPlaceConcats({options.target}));
  // After the concats: a slice of one is not dense.
  if (options.strategy != "none" && options.isEnabled("reshape-in-place"))
    funcPm.addPass(createAliasReshapes());
  SelectKernelConfigsOptions configs;
  configs.precision = productPrecision;
  configs.batch = options.costBatch;
  configs.variants = options.kernelVariants;
  configs.target = options.target;
  // An unknown profile is reported by the planner; the default SM count stands.
  if (auto profile = loadDeviceProfile(options.deviceProfile)) {
    configs.smCount = profile->smCount;
    configs.sharedBytesPerSm = int64_t(profile->sharedMemoryPerBlockKB) * 1024;
  } else {
    llvm::consumeError(profile.takeError());
  }
  funcPm.addPass(createSelectKernelConfigs(configs));
  SelectLibraryVariantsOptions library;
  library.tactics = options.tactics;
  library.deviceProfile = options.deviceProfile;
  library.batch = options.costBatch;
  funcPm.addPass(createSelectLibraryVariants(library));
}

void registerFusionPipeline() {
  mlir::PassPipelineRegistration<>("fuse-fusion-pipeline", "The fusec fusion pipeline with every rule enabled",
                                   [](mlir::OpPassManager &pm) { buildFusionPipeline(pm, FusionOptions()); });
}

} // namespace fusec
