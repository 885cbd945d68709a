//===- Pipeline.h - The fusion pipeline -------------------------*- C++ -*-===//
#ifndef FUSEC_PASSES_PIPELINE_H
#define FUSEC_PASSES_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace fusec {

struct FusionOptions {
  /// Rule and pattern names (pass flags without the `fuse-` prefix, e.g.
  /// "fold-batch-norm") that must not run.
  std::vector<std::string> disabled;

  bool isEnabled(llvm::StringRef name) const;
};

/// The names `FusionOptions::disabled` accepts.
std::vector<std::string> fusionRuleNames();

/// Appends the fusion pipeline for `func.func` ops to `pm`: clean-up, then the
/// rule patterns (pad into conv, batch-norm folding), then clean-up again.
void buildFusionPipeline(mlir::OpPassManager &pm, const FusionOptions &options);

/// Registers `fuse-fusion-pipeline` for fusec-opt's --pass-pipeline.
void registerFusionPipeline();

} // namespace fusec

#endif // FUSEC_PASSES_PIPELINE_H
