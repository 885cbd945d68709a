//===- ShapeUtils.cpp - Shape helpers for fuse shape inference --------===//
#include "ir/ShapeUtils.h"

#include "mlir/IR/Builders.h"

namespace fusec::fuse {

mlir::RankedTensorType f32TensorType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape) {
  return mlir::RankedTensorType::get(shape, mlir::Float32Type::get(ctx));
}

std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  llvm::SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l == r || r == 1)
      result[i] = l;
    else if (l == 1)
      result[i] = r;
    else
      return std::nullopt;
  }
  return result;
}

bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  auto result = broadcastShapes(from, to);
  return result && llvm::ArrayRef<int64_t>(*result) == to;
}

std::optional<int64_t> collapseDims(llvm::ArrayRef<int64_t> dims) {
  int64_t product = 1;
  bool dynamic = false;
  for (int64_t dim : dims) {
    if (dim == kDynamic)
      dynamic = true;
    else
      product *= dim;
  }
  if (!dynamic)
    return product;
  if (product == 1)
    return kDynamic;
  return std::nullopt;
}

std::string shapeToString(llvm::ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += shape[i] == kDynamic ? "?" : std::to_string(shape[i]);
  }
  return out + "]";
}

} // namespace fusec::fuse
