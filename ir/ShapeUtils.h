//===- ShapeUtils.h - Shape helpers for fuse shape inference ---*- C++ -*-===//
//
// A dynamic dimension in the fuse dialect always stands for the batch size,
// so two dynamic dimensions are equal and a dynamic dimension only broadcasts
// against 1.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_SHAPEUTILS_H
#define FUSEC_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace fusec::fuse {

inline constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// The f32 ranked tensor type of `shape`.
mlir::RankedTensorType f32TensorType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape);

/// Numpy-style broadcast of two shapes. Returns std::nullopt when they are
/// incompatible.
std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// True when `from` broadcasts to exactly `to` (unidirectional broadcasting).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Product of dims, where a group holding the dynamic (batch) dimension must
/// otherwise be all ones: returns kDynamic for such a group and std::nullopt
/// when the batch dimension would be merged with another dimension.
std::optional<int64_t> collapseDims(llvm::ArrayRef<int64_t> dims);

/// The axes of a rank-4 image tensor: NCHW, or NHWC for the channels-last
/// forms of conv and pooling.
struct ImageAxes {
  unsigned batch, channel, height, width;
};
inline ImageAxes imageAxes(bool channelsLast) { return channelsLast ? ImageAxes{0, 3, 1, 2} : ImageAxes{0, 1, 2, 3}; }

/// The permutations between the two layouts (output axis i is input axis
/// perm[i], as fuse.transpose's `perm`).
inline constexpr int64_t kNchwToNhwc[4] = {0, 2, 3, 1};
inline constexpr int64_t kNhwcToNchw[4] = {0, 3, 1, 2};

/// "[?, 3, 32, 32]" for diagnostics.
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

} // namespace fusec::fuse

#endif // FUSEC_IR_SHAPEUTILS_H
