//===- StridedView.h - Data movement as addressing ------------*- C++ -*-===//
//
// Slice, Reshape, Flatten and Transpose move no data when the consumer can
// address their input directly: each element of the result lies at
// `offset + sum(coord[d] * strides[d])` in the (row-major) tensor the chain
// started from. A template that loads through such a view reads the
// producer's tensor in place, so the copy kernel that would have made the
// view contiguous is not needed (fuse-form-attention-views, the attention
// kernel's Q, K, V loads and its output store).
//
// Strides are in elements and static: the dynamic (batch) dimension may only
// be the leading dimension of a contiguous tensor, whose stride is then the
// product of the static dimensions after it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_STRIDEDVIEW_H
#define FUSEC_IR_STRIDEDVIEW_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fusec::fuse {

struct StridedView {
  /// Element (0, ..., 0) of the view, in elements of the underlying tensor.
  int64_t offset = 0;
  /// Step in the underlying tensor per unit of each view dimension.
  llvm::SmallVector<int64_t> strides;

  bool operator==(const StridedView &other) const { return offset == other.offset && strides == other.strides; }
};

/// The row-major layout of a tensor of `shape`; std::nullopt when a
/// dimension other than the first is dynamic, or one is 0.
std::optional<StridedView> contiguousView(llvm::ArrayRef<int64_t> shape);

/// `view` (of a tensor of shape `from`) read as shape `to` with the same
/// elements in the same row-major order, without copying: every group of
/// `from` dimensions that `to` splits or merges must be contiguous within
/// `view`. The dynamic dimension must map to a dynamic dimension alone.
std::optional<StridedView> reshapeView(const StridedView &view, llvm::ArrayRef<int64_t> from,
                                       llvm::ArrayRef<int64_t> to);

/// True for the ops forwardView and backwardView know: Slice, Reshape,
/// Flatten, Transpose.
bool isViewOp(mlir::Operation *op);

/// The view `op`'s result is of the tensor that `inputView` views as `op`'s
/// input (std::nullopt when it is not a strided view of it).
std::optional<StridedView> forwardView(mlir::Operation *op, const StridedView &inputView);

/// The view of `op`'s input given the view of its result: how a template
/// that computes `op`'s input stores it straight into the tensor `op`'s
/// result lives in. Reshape, Flatten and Transpose only: a Slice's result
/// does not cover its input.
std::optional<StridedView> backwardView(mlir::Operation *op, const StridedView &resultView);

/// The view a chain of view ops (`chain[0]` nearest the op that reads or
/// writes through them, `chain.back()` at the far tensor) gives of the far
/// tensor, composed from its row-major layout: when `reads`, the view of
/// chain[0]'s result in chain.back()'s input (forwardView, far to near);
/// else, the view of chain[0]'s input in chain.back()'s result
/// (backwardView). std::nullopt for an empty chain or where a step is not a
/// strided view.
std::optional<StridedView> composeViewChain(llvm::ArrayRef<mlir::Operation *> chain, bool reads);

} // namespace fusec::fuse

#endif // FUSEC_IR_STRIDEDVIEW_H
