//===- TensorIndexing.h - Index arithmetic in generated code ----*- C++ -*-===//
//
// Generated kernels address dense C-order tensors whose batch dimension is
// the kernel argument `batch`. These helpers produce the C expressions for
// sizes, strides, coordinates and (broadcast) offsets.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_TENSORINDEXING_H
#define FUSEC_CODEGEN_TENSORINDEXING_H

#include "support/BatchLinear.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <vector>

namespace fusec::codegen {

/// "batch" for the batch, the variable holding a range's size for a named
/// dimension (rangeVariable), else the number ("(long long)" typed).
std::string dimExpr(int64_t dim);
/// The shape of `value`'s tensor type with its symbols (ShapeUtils'
/// symbolicShape): the batch is kDynamic, a dimension that runs over a range
/// (fusec --dim seq=1:512) its own symbol, which dimExpr reads from the
/// kernel's arguments.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);

/// True for a named dimension that runs over a range (not the batch).
bool isRangeDim(int64_t dim);
/// The C variable a kernel reads range dimension `dim`'s size from
/// ("dim_seq"): KernelBuilder::finish declares one per range the kernel's
/// types name, from a scalar argument the runtime sets per size.
std::string rangeVariable(int64_t dim);
/// The names of the range dimensions in `shape`, one per occurrence: the
/// factors by which a launch's work (linearNumel, which counts the batch
/// and the constants) grows with the ranges.
std::vector<std::string> rangeFactorsOf(llvm::ArrayRef<int64_t> shape);

/// Number of elements as a C expression.
std::string numelExpr(llvm::ArrayRef<int64_t> shape);
/// Product of dims [begin, end).
std::string productExpr(llvm::ArrayRef<int64_t> shape, size_t begin, size_t end);

/// Emits `long long <prefix>0 = ...;` ... decomposing `linear` into the
/// coordinates of `shape`; returns the coordinate variable names.
std::vector<std::string> emitCoordinates(std::string &code, const std::string &indent, llvm::ArrayRef<int64_t> shape,
                                         const std::string &linear, const std::string &prefix);

/// The linear offset into a tensor of `shape` at `coords` of a (possibly
/// larger) iteration space, with numpy broadcasting: leading iteration dims
/// the tensor lacks, and its size-1 dims, do not move the offset.
std::string broadcastOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords);

/// broadcastOffset with the iteration space's sizes as C expressions
/// (`iterationDims`, of the space `iterationShape`): each stride is a
/// product of them. None when `shape` does not broadcast to
/// `iterationShape` dimension by dimension (size 1 or the same size).
std::optional<std::string> broadcastOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords,
                                           llvm::ArrayRef<int64_t> iterationShape,
                                           const std::vector<std::string> &iterationDims);

/// Linear offset of `coords` in a tensor of exactly `shape`.
std::string linearOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords);

/// A float as a C literal ("1.5f", "(-INFINITY)").
std::string floatLiteral(double value);

/// The number of elements of `shape` (whose batch dimension may be dynamic),
/// counting each range dimension as 1: rangeFactorsOf lists those factors.
BatchLinear linearNumel(llvm::ArrayRef<int64_t> shape);

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_TENSORINDEXING_H
