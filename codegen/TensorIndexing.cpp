//===- TensorIndexing.cpp - Index arithmetic in generated code ------------===//
#include "codegen/TensorIndexing.h"

#include <cmath>
#include <cstdio>

namespace fusec::codegen {

std::string dimExpr(int64_t dim) {
  if (mlir::ShapedType::isDynamic(dim))
    return "(long long)batch";
  return std::to_string(dim) + "LL";
}

llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

std::string productExpr(llvm::ArrayRef<int64_t> shape, size_t begin, size_t end) {
  int64_t constant = 1;
  std::string dynamic;
  for (size_t d = begin; d < end; ++d) {
    if (mlir::ShapedType::isDynamic(shape[d]))
      dynamic += "(long long)batch * ";
    else
      constant *= shape[d];
  }
  return "(" + dynamic + std::to_string(constant) + "LL)";
}

std::string numelExpr(llvm::ArrayRef<int64_t> shape) { return productExpr(shape, 0, shape.size()); }

std::vector<std::string> emitCoordinates(std::string &code, const std::string &indent, llvm::ArrayRef<int64_t> shape,
                                         const std::string &linear, const std::string &prefix) {
  std::vector<std::string> coords;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string name = prefix + std::to_string(d);
    // Not every fused op reads every coordinate.
    code += indent + "[[maybe_unused]] long long " + name + " = ((" + linear + ") / " +
            productExpr(shape, d + 1, shape.size()) + ")";
    if (d > 0)
      code += " % " + dimExpr(shape[d]);
    code += ";\n";
    coords.push_back(name);
  }
  return coords;
}

std::string broadcastOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords) {
  size_t rank = shape.size(), iterationRank = coords.size();
  std::string offset;
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] == 1)
      continue;
    std::string term = coords[iterationRank - rank + d] + " * " + productExpr(shape, d + 1, rank);
    offset += (offset.empty() ? "" : " + ") + term;
  }
  return offset.empty() ? "0" : offset;
}

std::optional<std::string> broadcastOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords,
                                           llvm::ArrayRef<int64_t> iterationShape,
                                           const std::vector<std::string> &iterationDims) {
  const size_t rank = shape.size(), iterationRank = iterationShape.size();
  if (rank > iterationRank || coords.size() != iterationRank)
    return std::nullopt;
  for (size_t d = 0; d < rank; ++d)
    if (shape[d] != 1 && shape[d] != iterationShape[iterationRank - rank + d])
      return std::nullopt;
  std::string offset, stride;
  // From the innermost dimension out: the stride is the product of the
  // (symbolic) sizes of the dimensions inside, size-1 ones excluded.
  for (size_t d = rank; d-- > 0;) {
    if (shape[d] == 1)
      continue;
    const size_t at = iterationRank - rank + d;
    const std::string term = stride.empty() ? coords[at] : coords[at] + " * " + stride;
    offset = offset.empty() ? term : term + " + " + offset;
    stride = stride.empty() ? iterationDims[at] : iterationDims[at] + " * " + stride;
  }
  return offset.empty() ? "0" : offset;
}

std::string linearOffset(llvm::ArrayRef<int64_t> shape, const std::vector<std::string> &coords) {
  std::string offset;
  for (size_t d = 0; d < shape.size(); ++d)
    offset += (offset.empty() ? "" : " + ") + coords[d] + " * " + productExpr(shape, d + 1, shape.size());
  return offset.empty() ? "0" : offset;
}

std::string floatLiteral(double value) {
  if (std::isnan(value))
    return "(__int_as_float(0x7fc00000))";
  if (std::isinf(value))
    return value > 0 ? "(INFINITY)" : "(-INFINITY)";
  char text[64];
  std::snprintf(text, sizeof(text), "%.9g", value);
  std::string literal = text;
  if (literal.find_first_of(".eE") == std::string::npos)
    literal += ".0";
  return "(" + literal + "f)";
}

BatchLinear linearNumel(llvm::ArrayRef<int64_t> shape) {
  int64_t constant = 1;
  bool dynamic = false;
  for (int64_t dim : shape) {
    if (mlir::ShapedType::isDynamic(dim))
      dynamic = true;
    else
      constant *= dim;
  }
  return dynamic ? BatchLinear{constant, 0} : BatchLinear{0, constant};
}

} // namespace fusec::codegen
