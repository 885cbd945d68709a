//===- ShapeUtils.cpp - Shape helpers for fuse shape inference --------===//
#include "ir/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <mutex>

namespace fusec::fuse {

namespace {
/// Named symbols, interned for the process: shape computations compare
/// symbols as integers, and the names are few (one per --dim range).
struct SymbolTable {
  std::mutex mutex;
  std::vector<std::string> names;
};
SymbolTable &symbolTable() {
  static SymbolTable table;
  return table;
}
} // namespace

std::optional<int64_t> symbolDim(llvm::StringRef name) {
  if (name == kBatchSymbolName)
    return kDynamic;
  SymbolTable &table = symbolTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = std::find(table.names.begin(), table.names.end(), name.str());
  if (it != table.names.end())
    return kDynamic + 1 + (it - table.names.begin());
  if (static_cast<int64_t>(table.names.size()) >= kMaxSymbols)
    return std::nullopt;
  table.names.push_back(name.str());
  return kDynamic + static_cast<int64_t>(table.names.size());
}

std::string symbolName(int64_t dim) {
  if (dim == kDynamic)
    return kBatchSymbolName;
  SymbolTable &table = symbolTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  const int64_t index = dim - kDynamic - 1;
  if (index < 0 || index >= static_cast<int64_t>(table.names.size()))
    return "?";
  return table.names[static_cast<size_t>(index)];
}

std::optional<SymbolRange> symbolRange(mlir::Operation *op, int64_t dim) {
  if (!isSymbolic(dim) || dim == kDynamic || !op)
    return std::nullopt;
  mlir::Operation *module = op;
  while (module->getParentOp())
    module = module->getParentOp();
  auto ranges = module->getAttrOfType<mlir::DictionaryAttr>(kRangesAttrName);
  if (!ranges)
    return std::nullopt;
  auto bounds = llvm::dyn_cast_or_null<mlir::DenseI64ArrayAttr>(ranges.get(symbolName(dim)));
  if (!bounds || bounds.size() != 3)
    return std::nullopt;
  return SymbolRange{bounds[0], bounds[1], bounds[2]};
}

void setSymbolRanges(mlir::Operation *module, llvm::ArrayRef<std::pair<std::string, SymbolRange>> ranges) {
  mlir::Builder builder(module->getContext());
  llvm::SmallVector<mlir::NamedAttribute> entries;
  for (const auto &[name, range] : ranges)
    entries.push_back(builder.getNamedAttr(name, builder.getDenseI64ArrayAttr({range.min, range.opt, range.max})));
  module->setAttr(kRangesAttrName, builder.getDictionaryAttr(entries));
}

llvm::SmallVector<int64_t> symbolicShape(mlir::Type type) {
  auto tensor = llvm::cast<mlir::RankedTensorType>(type);
  llvm::SmallVector<int64_t> shape(tensor.getShape());
  auto names = llvm::dyn_cast_or_null<mlir::ArrayAttr>(tensor.getEncoding());
  if (!names)
    return shape;
  size_t next = 0;
  for (int64_t &dim : shape) {
    if (dim != kDynamic || next >= names.size())
      continue;
    auto name = llvm::dyn_cast<mlir::StringAttr>(names[next++]);
    if (std::optional<int64_t> symbol = name ? symbolDim(name.getValue()) : std::nullopt)
      dim = *symbol;
  }
  return shape;
}

mlir::RankedTensorType symbolicTensorType(llvm::ArrayRef<int64_t> shape, mlir::Type elementType) {
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<mlir::Attribute> names;
  bool named = false;
  mlir::Builder builder(elementType.getContext());
  for (int64_t dim : shape) {
    dims.push_back(isSymbolic(dim) ? kDynamic : dim);
    if (isSymbolic(dim)) {
      names.push_back(builder.getStringAttr(symbolName(dim)));
      named |= dim != kDynamic;
    }
  }
  return mlir::RankedTensorType::get(dims, elementType, named ? builder.getArrayAttr(names) : mlir::Attribute());
}

mlir::RankedTensorType permutedTensorType(mlir::RankedTensorType type, llvm::ArrayRef<int64_t> perm) {
  const llvm::SmallVector<int64_t> dims = symbolicShape(type);
  llvm::SmallVector<int64_t> shape;
  for (int64_t axis : perm)
    shape.push_back(dims[axis]);
  return symbolicTensorType(shape, type.getElementType());
}

llvm::SmallVector<std::string> namedSymbolsOf(mlir::Type type) {
  llvm::SmallVector<std::string> names;
  for (int64_t dim : symbolicShape(type))
    if (isSymbolic(dim) && dim != kDynamic)
      names.push_back(symbolName(dim));
  return names;
}

mlir::RankedTensorType f32TensorType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape) {
  return symbolicTensorType(shape, mlir::Float32Type::get(ctx));
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
  int64_t symbol = 0;
  for (int64_t dim : dims) {
    if (isSymbolic(dim)) {
      if (dynamic)
        return std::nullopt; // two symbols merged
      dynamic = true;
      symbol = dim;
    } else {
      product *= dim;
    }
  }
  if (!dynamic)
    return product;
  if (product == 1)
    return symbol;
  return std::nullopt;
}

std::string shapeToString(llvm::ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += shape[i] == kDynamic ? "?" : isSymbolic(shape[i]) ? symbolName(shape[i]) : std::to_string(shape[i]);
  }
  return out + "]";
}

} // namespace fusec::fuse
