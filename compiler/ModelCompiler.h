//===- ModelCompiler.h - Compile a model file without touching MLIR -*- C++ -*-===//
//
// The compiler's entry point for callers that do not use MLIR themselves
// (the Python package): plain options in, plan bytes and the fusion report
// out, every diagnostic in the error's message. This header includes no
// MLIR or LLVM header: such a caller does not depend on MLIR's API, and its
// compile units stay small.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_MODELCOMPILER_H
#define FUSEC_COMPILER_MODELCOMPILER_H

#include "compiler/import/SymbolicDimensions.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace fusec {

/// What `fusec` takes on its command line, for one model.
struct ModelCompileOptions {
  /// "cpu" (no kernel images) or an NVIDIA architecture such as "sm_90".
  std::string target = "cpu";
  /// "fp32", "tf32", "fp16" or "bf16" (docs/precision.md).
  std::string precision = "fp32";
  /// "fp32" keeps the model's f32 inputs and outputs; the precision's half
  /// type makes them half tensors.
  std::string ioPrecision = "fp32";
  /// greedy, dp, none, or a loaded plugin's strategy.
  std::string fusionStrategy = "greedy";
  /// Fusion rules that must not apply (fusec --list-fusion-rules).
  std::vector<std::string> disabledRules;
  std::string deviceProfile = "h200";
  int64_t costBatch = 1;
  /// Configs each tensor-core conv/GEMM kernel is compiled with (fusec
  /// --kernel-variants); above 1 the plan carries variants to tune.
  int64_t kernelVariants = 1;
  /// "auto" (the layout the cost model prices faster), "nchw" or "nhwc"
  /// (fusec --layout).
  std::string layout = "auto";
  std::vector<int64_t> batchBuckets = {1, 2, 4, 8, 16};
  /// Sizes for named input dimensions other than the batch (fusec --dim):
  /// more than one for a name makes a plan of shape variants; a range
  /// (DimensionSize::range) one plan that runs every size in it.
  std::map<std::string, std::vector<import::DimensionSize>> dimensionSizes;
  /// On-disk NVRTC kernel cache; empty disables it.
  std::string kernelCacheDir;
};

struct CompiledModel {
  std::vector<uint8_t> plan;
  /// The fusion report as JSON text (docs/fusion.md).
  std::string fusionReport;
};

/// Thrown when a model does not compile; what() holds every diagnostic, one
/// per line, in fusec's format ("model.onnx: node 'conv1': error: ...").
class CompileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Imports the model at `path` (.onnx, .json or .mlir), fuses it and lowers
/// it to plan bytes in a context of its own. Throws CompileError if an
/// option is invalid or the model does not compile.
CompiledModel compileModelFile(const std::string &path, const ModelCompileOptions &options);

/// "fusec 0.1.0": what `fusec --version` prints and plans record.
const char *compilerVersion();

} // namespace fusec

#endif // FUSEC_COMPILER_MODELCOMPILER_H
