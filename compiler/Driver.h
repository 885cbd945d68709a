//===- Driver.h - import -> passes -> plan ----------------------*- C++ -*-===//
#ifndef FUSEC_COMPILER_DRIVER_H
#define FUSEC_COMPILER_DRIVER_H

#include "compiler/PlanWriter.h"
#include "compiler/ShapeVariants.h"
#include "compiler/import/SymbolicDimensions.h"
#include "passes/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace fusec {

enum class EmitKind {
  /// The imported, verified IR.
  Mlir,
  /// The IR after the fusion pipeline.
  FusedMlir,
  /// The project's JSON format, weights in a .safetensors next to it.
  Json,
  /// The executable plan.
  Plan,
  /// The generated CUDA C++ kernels (a directory of .cu files + prelude).
  Cuda,
  /// The fused graph as Graphviz DOT, superkernels as clusters.
  Dot,
};

struct DriverOptions {
  std::string inputPath;
  /// Sizes for named input dimensions other than the batch (fusec --dim
  /// seq=128): a plan has one dynamic dimension. More than one size for a
  /// name (seq=64,128) makes a plan of shape variants, one per combination
  /// (ShapeVariants.h); every other output takes one size per name.
  DimensionChoices dimensionSizes;
  /// "-" writes text outputs to stdout.
  std::string outputPath;
  EmitKind emit = EmitKind::Plan;
  FusionOptions fusion;
  PlanOptions plan;
  /// Where to write the fusion report (JSON); empty for none.
  std::string fusionReportPath;
  /// Print a short fusion summary and what was written to stderr.
  bool verbose = false;
  /// Show stages and kernels compiled (n/N) on stderr.
  bool progress = false;
  /// On-disk kernel cache; empty disables it.
  std::string kernelCacheDir;
  /// When set, MLIR after each stage, .cu and .ptx files are written here.
  std::string dumpDir;
};

/// Imports a model by its extension (.json, .onnx, .mlir) into `context`,
/// reading the input dimensions `sizes` names as those sizes (not for .mlir,
/// whose types are already resolved: sizes are an error there). Errors are
/// reported through the context's diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> importModel(llvm::StringRef path, mlir::MLIRContext &context,
                                              const import::DimensionSizes &sizes = {});

/// A context with every dialect fusec uses loaded.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Imports `options.inputPath` with the named dimensions at `sizes` and
/// runs the fusion pipeline on it. With layout "auto", an image network
/// (convolutions or pools) is fused in NCHW and in NHWC and the one the
/// cost model prices faster is returned (a tie keeps NCHW); the fusion
/// report's `layout` and `layout_choice` say which and why, and
/// `chosenLayout`, when given, receives the layout fused.
mlir::OwningOpRef<mlir::ModuleOp> importAndFuse(mlir::MLIRContext &context, const DriverOptions &options,
                                                const import::DimensionSizes &sizes,
                                                std::string *chosenLayout = nullptr);
/// importAndFuse at the one size `options` gives each named dimension; an
/// error if it gives several.
mlir::OwningOpRef<mlir::ModuleOp> importAndFuse(mlir::MLIRContext &context, const DriverOptions &options);

/// Checks the option values a caller chose (precision, I/O precision -- ""
/// or the precision's half type --, cost batch, batch buckets). Returns "" when they are valid, else one message
/// that starts with the option's name, e.g. "precision must be fp32, tf32,
/// fp16 or bf16, got 'fp8'" (the CLI prefixes "--", the Python API not).
std::string checkDriverOptions(const DriverOptions &options);

/// Imports, fuses and lowers `options.inputPath` to plan bytes, one shape
/// variant per combination of named dimension sizes. Errors are reported
/// through `context`'s diagnostics. With `fusionReport`, the fusion report
/// of the fused module (the first variant's) is stored there
/// (buildFusionReport).
mlir::FailureOr<std::vector<uint8_t>> compileToPlan(mlir::MLIRContext &context, const DriverOptions &options,
                                                    nlohmann::json *fusionReport = nullptr);

/// Fuses and lowers `module`, a model imported or built in memory (the
/// model generators of benchmarks and tests), to plan bytes like
/// compileToPlan; `options.inputPath` and `options.dimensionSizes` are not
/// read.
mlir::FailureOr<std::vector<uint8_t>> compileModuleToPlan(mlir::MLIRContext &context, mlir::ModuleOp module,
                                                          const DriverOptions &options);

/// Runs the whole compiler for one model and writes the requested output.
/// Returns a process exit code; diagnostics go to stderr. Outputs are written
/// atomically: an error never leaves a partial file.
int runDriver(const DriverOptions &options);

} // namespace fusec

#endif // FUSEC_COMPILER_DRIVER_H
