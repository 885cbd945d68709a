//===- SliceViews.h - Kernel results stored into a concatenation --*- C++ -*-===//
//
// A concatenation costs a kernel that reads and writes every element again.
// When the tensors it joins are computed by kernels that can store into a
// slice of a larger tensor, they write straight into the concatenation's
// buffer and the concatenation computes nothing (fuse-place-concats, "concat
// in place"): each of its operands is a *slice view* of its result. A
// concatenation that is itself an operand of a larger one (DenseNet's
// features, chained by fuse-chain-concats) is a slice of that one's buffer,
// so every view names the outermost tensor, the *root*.
//
// A slice view of a tensor of shape [d0, ..., dn] is the elements
// [offset, offset + d_axis) along `axis` of a root of the same shape except
// `extent` along `axis`: element (i0, ..., in) lies at
//   outer * extent * inner + (offset + i_axis) * inner + rest
// in the root, with inner the product of the dimensions after `axis`. The
// dimensions from `axis` on are static, so the view is a constant offset
// (offset * inner elements) and one constant stride (extent * inner per step
// of the dimensions before `axis`, the batch among them).
//
// The decision is recorded on the superkernel that computes the value, as
// `fuse.slice_views` (one entry per result: [axis, offset, extent], empty for
// a result with a buffer of its own), and the concatenation's superkernel is
// marked `fuse.in_place`. The plan writer makes the views buffers inside
// their root's bytes; codegen addresses them through the stride.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_SLICEVIEWS_H
#define FUSEC_IR_SLICEVIEWS_H

#include "ir/FuseOps.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace fusec::fuse {

/// array on a superkernel: one [axis, offset, extent] (or []) per result.
inline constexpr llvm::StringLiteral kSliceViewsAttr = "fuse.slice_views";
/// unit on a concat superkernel whose operands are slice views of its
/// result: it computes nothing.
inline constexpr llvm::StringLiteral kInPlaceAttr = "fuse.in_place";
/// unit on a superkernel that only reshapes a dense tensor: its result has
/// its operand's bytes (fuse-alias-reshapes), it computes nothing.
inline constexpr llvm::StringLiteral kAliasAttr = "fuse.alias";

struct SliceView {
  int64_t axis = 0;
  /// The view's first index along `axis` in the root.
  int64_t offset = 0;
  /// The root's size along `axis`.
  int64_t extent = 0;

  bool operator==(const SliceView &other) const {
    return axis == other.axis && offset == other.offset && extent == other.extent;
  }
};

/// The slice view `value` (a superkernel's result) is stored as, if any.
std::optional<SliceView> sliceViewOf(mlir::Value value);
/// Records that `kernel`'s result `index` is stored as `view`.
void setSliceView(SuperkernelOp kernel, unsigned index, const SliceView &view);
/// True for a concat superkernel that computes nothing (kInPlaceAttr).
bool isInPlace(SuperkernelOp kernel);
/// True for a reshape superkernel whose result aliases its operand
/// (kAliasAttr).
bool isAlias(SuperkernelOp kernel);
/// The value whose buffer holds the slice view `value`: the result of the
/// in-place concat it is an operand of, or of the one that result is an
/// operand of, and so on (`value` itself when it is no view).
mlir::Value sliceViewRoot(mlir::Value value);

/// The elements of `shape` after `axis` (static), times one.
int64_t innerElements(llvm::ArrayRef<int64_t> shape, int64_t axis);

/// The offset in the root of the view's element at dense index `linear`
/// (a C expression of type long long), for a view of `shape`: the dense
/// index stepped over the other slices of the root.
std::string sliceViewOffset(llvm::ArrayRef<int64_t> shape, const SliceView &view, const std::string &linear);

/// Whether the kernels of `target` ("cpu" or an sm_ architecture) can store
/// `kernel`'s results into slice views, and read its operand `index` through
/// one along `axis`; when not, `why` says why. The CPU
/// backend reads and writes views of any kernel; generated GPU kernels do
/// where every store (load) of that tensor goes through the element-wise
/// addressing that sliceViewOffset rewrites: element-wise, data-movement,
/// pool and convolution results; element-wise and data-movement operands;
/// and a convolution's input sliced along its channels (its templates take
/// the distance between images, and between pixels in NHWC).
bool canStoreToSliceView(SuperkernelOp kernel, llvm::StringRef target, std::string *why = nullptr);
bool canLoadFromSliceView(SuperkernelOp kernel, unsigned index, int64_t axis, llvm::StringRef target,
                          std::string *why = nullptr);

} // namespace fusec::fuse

#endif // FUSEC_IR_SLICEVIEWS_H
