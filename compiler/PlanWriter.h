//===- PlanWriter.h - Lower a fused module to a model.plan -----*- C++ -*-===//
#ifndef FUSEC_COMPILER_PLANWRITER_H
#define FUSEC_COMPILER_PLANWRITER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusec {

struct PlanOptions {
  std::vector<int64_t> batchBuckets = {1, 2, 4, 8, 16};
  std::string target = "cpu";
  /// FNV-1a 64 of the source model's bytes.
  uint64_t sourceHash = 0;
};

/// Builds the plan bytes for `module`'s `@main`: one kernel per top-level op
/// or `fuse.superkernel`, in program order; weights in the weights section;
/// intermediates placed in an arena by liveness. Deterministic: the same
/// module and options give the same bytes.
mlir::FailureOr<std::vector<uint8_t>> buildPlan(mlir::ModuleOp module,
                                                const PlanOptions &options);

} // namespace fusec

#endif // FUSEC_COMPILER_PLANWRITER_H
