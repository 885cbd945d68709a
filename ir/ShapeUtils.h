//===- ShapeUtils.h - Shape helpers for fuse shape inference ---*- C++ -*-===//
//
// A dynamic dimension in the fuse dialect stands for the batch size unless
// the tensor type names it: a plan that runs a named dimension over a range
// (fusec --dim seq=1:512) writes `tensor<?x?x32xf32, ["seq", "batch"]>`, an
// encoding with one name per dynamic dimension. Shape computations see such
// a dimension as a symbol, a negative integer of its own (symbolDim), so
// that equal symbols compare equal and a symbol broadcasts only against 1,
// like the batch.
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

/// The symbols shape computations use: kDynamic is the batch, kDynamic + 1 +
/// i the i-th name interned by symbolDim.
inline constexpr int64_t kMaxSymbols = 64;
/// True for the batch and every named symbol: a dimension without a static
/// size.
inline bool isSymbolic(int64_t dim) { return dim >= kDynamic && dim <= kDynamic + kMaxSymbols; }
/// The batch's name in a type's encoding.
inline constexpr const char *kBatchSymbolName = "batch";
/// The symbol of a named dimension (interned once per process; at most
/// kMaxSymbols names, after which it returns std::nullopt).
std::optional<int64_t> symbolDim(llvm::StringRef name);
/// The name of a symbol: "batch" for kDynamic.
std::string symbolName(int64_t dim);

/// The module attribute recording the ranges a module is compiled over
/// (fusec --dim seq=1:128:512): a dictionary from each name to its
/// [min, opt, max]. Config selection and the cost model size a range's
/// dimension by it (opt for speed, max for index bounds).
inline constexpr const char *kRangesAttrName = "fuse.ranges";
/// A named dimension's range.
struct SymbolRange {
  int64_t min = 1, opt = 1, max = 1;
};
/// The range of symbol `dim` (a named dimension, not the batch) in the
/// kRangesAttrName of the module holding `op`; std::nullopt for the batch,
/// a static size, or a module that records no range for it.
std::optional<SymbolRange> symbolRange(mlir::Operation *op, int64_t dim);
/// Records `ranges` (name -> range) on `module` as kRangesAttrName.
void setSymbolRanges(mlir::Operation *module, llvm::ArrayRef<std::pair<std::string, SymbolRange>> ranges);

/// The shape of a ranked tensor type with its symbols: kDynamic for the
/// batch, symbolDim(name) for each dynamic dimension its encoding names.
llvm::SmallVector<int64_t> symbolicShape(mlir::Type type);
/// The ranked tensor type of a shape with symbols: `?` for each, and an
/// encoding naming them where any is not the batch (none otherwise, so plans
/// without named ranges keep their types).
mlir::RankedTensorType symbolicTensorType(llvm::ArrayRef<int64_t> shape, mlir::Type elementType);
/// `type`'s named symbols other than the batch, in order of dimension.
llvm::SmallVector<std::string> namedSymbolsOf(mlir::Type type);

/// The f32 ranked tensor type of `shape`.
mlir::RankedTensorType f32TensorType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape);

/// Numpy-style broadcast of two shapes. Returns std::nullopt when they are
/// incompatible.
std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// True when `from` broadcasts to exactly `to` (unidirectional broadcasting).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Product of dims, where a group holding a symbol (the batch or a named
/// one) must otherwise be all ones: returns the symbol for such a group and
/// std::nullopt when a symbol would be merged with another dimension.
std::optional<int64_t> collapseDims(llvm::ArrayRef<int64_t> dims);

/// The axes of a rank-4 image tensor: NCHW, or NHWC for the channels-last
/// forms of conv and pooling.
struct ImageAxes {
  unsigned batch, channel, height, width;
};
inline ImageAxes imageAxes(bool channelsLast) { return channelsLast ? ImageAxes{0, 3, 1, 2} : ImageAxes{0, 1, 2, 3}; }

/// `type` with its axes permuted as fuse.transpose permutes them (result
/// axis i is axis perm[i]); a range's dimension keeps its name.
mlir::RankedTensorType permutedTensorType(mlir::RankedTensorType type, llvm::ArrayRef<int64_t> perm);

/// The permutations between the two layouts (output axis i is input axis
/// perm[i], as fuse.transpose's `perm`).
inline constexpr int64_t kNchwToNhwc[4] = {0, 2, 3, 1};
inline constexpr int64_t kNhwcToNchw[4] = {0, 3, 1, 2};

/// "[?, 3, 32, 32]" for diagnostics ("[?, seq, 32]" with a named symbol).
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

} // namespace fusec::fuse

#endif // FUSEC_IR_SHAPEUTILS_H
