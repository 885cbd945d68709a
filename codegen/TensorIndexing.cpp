//===- TensorIndexing.cpp - Index arithmetic in generated code ------------===//
#include "codegen/TensorIndexing.h"

#include "ir/ShapeUtils.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>

namespace fusec::codegen {

bool isRangeDim(int64_t dim) { return fuse::isSymbolic(dim) && dim != fuse::kDynamic; }

std::string rangeVariable(int64_t dim) {
  const std::string name = fuse::symbolName(dim);
  std::string identifier = "dim_";
  bool changed = false;
  for (char c : name) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    identifier += plain ? c : '_';
    changed = changed || !plain;
  }
  // Two names that differ only in characters C identifiers lack stay apart.
  if (changed)
    identifier += "_" + std::to_string(dim - fuse::kDynamic);
  return identifier;
}

std::string dimExpr(int64_t dim) {
  if (dim == fuse::kDynamic)
    return "(long long)batch";
  if (isRangeDim(dim))
    return "(long long)" + rangeVariable(dim);
  return std::to_string(dim) + "LL";
}

llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  if (!type.getEncoding())
    return type.getShape();
  // A type naming a range's dimension: its shape with the symbols
  // (ShapeUtils' symbolicShape), kept for the process so that callers may
  // hold the ArrayRef like a type's own shape.
  static std::mutex mutex;
  static std::set<std::vector<int64_t>> shapes;
  const llvm::SmallVector<int64_t> symbolic = fuse::symbolicShape(type);
  std::lock_guard<std::mutex> lock(mutex);
  return *shapes.insert(std::vector<int64_t>(symbolic.begin(), symbolic.end())).first;
}

std::vector<std::string> rangeFactorsOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<std::string> names;
  for (int64_t dim : shape)
    if (isRangeDim(dim))
      names.push_back(fuse::symbolName(dim));
  return names;
}

std::string productExpr(llvm::ArrayRef<int64_t> shape, size_t begin, size_t end) {
  int64_t constant = 1;
  std::string dynamic;
  for (size_t d = begin; d < end; ++d) {
    if (fuse::isSymbolic(shape[d]))
      dynamic += dimExpr(shape[d]) + " * ";
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
    if (dim == fuse::kDynamic)
      dynamic = true;
    else if (!isRangeDim(dim))
      constant *= dim;
  }
  return dynamic ? BatchLinear{constant, 0} : BatchLinear{0, constant};
}

} // namespace fusec::codegen
