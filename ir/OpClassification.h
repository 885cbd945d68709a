//===- OpClassification.h - What kind of kernel an op needs ----*- C++ -*-===//
//
// Passes (which decide what fuses) and codegen/plan writing (which pick a
// kernel template) classify ops the same way; the classification lives here.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_OPCLASSIFICATION_H
#define FUSEC_IR_OPCLASSIFICATION_H

#include "ir/OpFacts.h"

#include "mlir/IR/Operation.h"

namespace fusec::fuse {

/// The facts-declared kind of kernel `op` needs (OpFacts.h); Other for ops
/// without facts (constants, terminators, superkernels, func ops).
OpClass classifyOp(mlir::Operation *op);

/// The op among a kernel's `ops` that decides its template: its conv, gemm,
/// pool, reduction or attention op (a reduction after a conv: the conv is
/// its prologue, rule conv-into-norm), else its first data-movement op (an
/// attention kernel also holds the views it reads and writes through,
/// fuse-form-attention-views); null when every op is elementwise.
mlir::Operation *kernelCore(llvm::ArrayRef<mlir::Operation *> ops);

/// The kernel kind name used in plans and superkernels ("conv", "gemm", ...).
llvm::StringRef kernelKindName(OpClass opClass);

/// What the kernel template of a core op of this class can fuse around it:
/// the one statement the fusion planner's legality rules and codegen's
/// template emitters both follow.
struct TemplateFusion {
  /// Elementwise ops computing the core's inputs, evaluated as the template
  /// reads them (reductions: yes; conv, GEMM and pooling read their inputs
  /// through tiled loads or windows: no).
  bool prologue = false;
  /// Elementwise ops on the core's result, applied to each output element
  /// in registers before it is stored, with any of them stored as well.
  bool epilogue = true;
};
TemplateFusion templateFusion(OpClass coreClass);

/// The largest head dimension (D and Dv) the attention kernel keeps in
/// registers: fuse-form-attention leaves larger heads to the unfused ops.
inline constexpr int64_t kMaxAttentionHeadDim = 128;

} // namespace fusec::fuse

#endif // FUSEC_IR_OPCLASSIFICATION_H
