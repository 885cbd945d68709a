//===- StridedView.h - Data movement as addressing ------------*- C++ -*-===//
//
// Slice, Reshape, Flatten, Transpose and Expand move no data when the consumer can
// address their input directly: each element of the result lies at
// `offset + sum(coord[d] * strides[d])` in the (row-major) tensor the chain
// started from. A template that loads through such a view reads the
// producer's tensor in place, so the copy kernel that would have made the
// view contiguous is not needed (fuse-form-attention-views, the attention
// kernel's Q, K, V loads and its output store).
//
// Offsets and strides are in elements, each linear in the batch (a stride
// across the batch dimension of a sequence-first tensor [seq, batch, ...]
// is a multiple of it). Any other run-time dimension (a range) has no view.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_STRIDEDVIEW_H
#define FUSEC_IR_STRIDEDVIEW_H

#include "support/BatchLinear.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fusec::fuse {

struct StridedView {
  /// Element (0, ..., 0) of the view, in elements of the underlying tensor.
  BatchLinear offset;
  /// Step in the underlying tensor per unit of each view dimension.
  llvm::SmallVector<BatchLinear> strides;

  /// Whether the last dimension is contiguous (stride 1): rows of it are
  /// one load or store each.
  bool hasContiguousRows() const { return !strides.empty() && strides.back() == BatchLinear{0, 1}; }

  bool operator==(const StridedView &other) const { return offset == other.offset && strides == other.strides; }
};

/// The row-major layout of a tensor of `shape` (ShapeUtils' symbolicShape:
/// kDynamic for the batch); std::nullopt when a dimension is 0 or a run-time
/// dimension other than the batch.
std::optional<StridedView> contiguousView(llvm::ArrayRef<int64_t> shape);

/// `view` (of a tensor of shape `from`) read as shape `to` with the same
/// elements in the same row-major order, without copying: every group of
/// `from` dimensions that `to` splits or merges must be contiguous within
/// `view`. The batch dimension must map to the batch dimension alone.
std::optional<StridedView> reshapeView(const StridedView &view, llvm::ArrayRef<int64_t> from,
                                       llvm::ArrayRef<int64_t> to);

/// True for the ops forwardView knows: Slice, Reshape, Flatten, Transpose
/// and Expand (a broadcast: stride 0 along what it stretches). backwardView
/// knows Reshape, Flatten and Transpose.
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

/// A matrix read as rows of another tensor: row r of the matrix starts at
/// element `offset + r * rowStride` of `input`, and its columns are
/// contiguous.
struct MatrixRows {
  mlir::Value input;
  int64_t offset = 0, rowStride = 0;
};

/// The rows of `matrix` (rank 2) when it is computed from a tensor by view
/// ops only (Slice, Reshape, Flatten), with static offsets and strides and
/// contiguous columns: a GEMM's A operand that fuse-form-epilogues' rule
/// operand-views put in the GEMM's kernel (the first token's row of each
/// sequence that a classifier reads). std::nullopt when `matrix` is not
/// defined by such ops, or they only give it its own dense layout (a
/// flatten).
std::optional<MatrixRows> matrixRowsOf(mlir::Value matrix);

/// The rows the Slice, Reshape and Flatten ops of `chain` (nearest the
/// matrix first) make of the tensor the last one reads, as matrixRowsOf
/// says of the whole chain.
std::optional<MatrixRows> matrixRowsThrough(llvm::ArrayRef<mlir::Operation *> chain);

} // namespace fusec::fuse

#endif // FUSEC_IR_STRIDEDVIEW_H
