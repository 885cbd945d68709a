//===- Pipeline.h - The fusion pipeline -------------------------*- C++ -*-===//
#ifndef FUSEC_PASSES_PIPELINE_H
#define FUSEC_PASSES_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace fusec {

struct FusionOptions {
  /// greedy, dp, none (every op its own kernel), or a plugin's strategy.
  std::string strategy = "greedy";
  /// A built-in profile name or a JSON file (see DeviceProfile.h).
  std::string deviceProfile = "h200";
  std::string costModel = "roofline";
  /// The batch size the cost model prices tensors at.
  int64_t costBatch = 1;
  /// Conv/GEMM products: "fp32" (3xTF32 on the tensor cores), "tf32", or
  /// "fp16" / "bf16" (fuse-auto-mixed-precision).
  std::string precision = "fp32";
  /// With "fp16"/"bf16" precision: "" keeps the model's f32 inputs and
  /// outputs, or the half type ("fp16"/"bf16") makes them half tensors.
  std::string ioPrecision;
  /// Configs each tensor-core conv/GEMM kernel is compiled with, the chosen
  /// one included (fuse-select-kernel-configs' `variants`): the runtime
  /// times them under `fuserun --tune`. 1: the chosen config only (each
  /// variant costs about as much NVRTC time as its kernel).
  int64_t kernelVariants = 1;
  /// The forms of conv/GEMM kernels a plan carries
  /// (fuse-select-library-variants' `tactics`): "generated,library" (a
  /// vendor-library variant beside the generated kernel wherever a library
  /// can compute it, the cost model choosing the default), "generated", or
  /// "library" (the library variant is the default wherever there is one).
  std::string tactics = "generated,library";
  /// Image layout between convs and pools: "nchw" (as imported), "nhwc"
  /// (fuse-convert-to-channels-last; model inputs and outputs keep their
  /// layout), or "auto": the driver fuses the model both ways and keeps the
  /// one the cost model prices faster (importAndFuse); the pass pipeline
  /// itself treats "auto" as "nchw".
  std::string layout = "auto";
  /// The architecture kernels are compiled for (fusec --target): sm_90a
  /// plans use the Hopper templates where they apply.
  std::string target = "sm_90";
  /// Rule names (see fusionRuleNames) that must not apply.
  std::vector<std::string> disabled;

  bool isEnabled(llvm::StringRef name) const;
};

/// The names `FusionOptions::disabled` accepts.
std::vector<std::string> fusionRuleNames();

/// Appends the fusion pipeline for `func.func` ops to `pm`: clean-up, the
/// rewrite rules (pad into conv, batch-norm folding, plugin patterns), the
/// epilogue rule patterns, the cost-model planner, outlining into one
/// fuse.superkernel per kernel, and the choice of each conv/GEMM kernel's
/// template config.
void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options);

/// Registers `fuse-fusion-pipeline` for fusec-opt's --pass-pipeline.
void registerFusionPipeline();

} // namespace fusec

#endif // FUSEC_PASSES_PIPELINE_H
