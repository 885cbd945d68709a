//===- OpClassification.h - What kind of kernel an op needs ----*- C++ -*-===//
//
// Passes (which decide what fuses) and codegen/plan writing (which pick a
// kernel template) classify ops the same way; the classification lives here.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_OPCLASSIFICATION_H
#define FUSEC_IR_OPCLASSIFICATION_H

#include "mlir/IR/Operation.h"

namespace fusec::fuse {

enum class OpClass {
  /// Convolution (implicit GEMM or direct).
  Conv,
  /// Matrix products: Gemm, MatMul.
  Gemm,
  /// One output element from the same-index input elements (with broadcasting).
  Elementwise,
  /// Reductions along axes: Softmax, LayerNormalization, ReduceMean, GAP.
  Reduction,
  /// Sliding-window pooling.
  Pool,
  /// Copies and index shuffles: Pad, Reshape, Flatten, Transpose, Concat.
  DataMovement,
  /// Not a compute op (constants, terminators, superkernels).
  Other,
};

OpClass classifyOp(mlir::Operation *op);

/// The kernel kind name used in plans and superkernels ("conv", "gemm", ...).
llvm::StringRef kernelKindName(OpClass opClass);

} // namespace fusec::fuse

#endif // FUSEC_IR_OPCLASSIFICATION_H
