//===- Graph.h - An imported model before it becomes MLIR ------*- C++ -*-===//
//
// Both importers parse their format into this plain description; one
// builder (GraphBuilder) checks names and order and emits the fuse dialect.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_GRAPH_H
#define FUSEC_COMPILER_IMPORT_GRAPH_H

#include "compiler/import/NodeAttributes.h"
#include "runtime/ElementType.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// Shapes use -1 for the symbolic batch dimension.
inline constexpr int64_t kBatchDim = -1;
/// The code of the `index`-th ranged dimension in an input's shape
/// (Graph::rangeNames; fusec --dim seq=1:512): the plan's code for it.
inline constexpr int64_t rangeDim(size_t index) { return -2 - static_cast<int64_t>(index); }
/// The most ranges a model may have.
inline constexpr size_t kMaxRanges = 32;
/// The index a range code stands for; nullopt for sizes, the batch and
/// anything below the codes (an unknown dimension).
inline std::optional<size_t> rangeIndexOf(int64_t dim) {
  if (dim > -2 || dim < rangeDim(kMaxRanges - 1))
    return std::nullopt;
  return static_cast<size_t>(-2 - dim);
}

/// The element types a graph's tensors may have: the plan's
/// (runtime/ElementType.h), spelled as the plan spells them.
using DType = runtime::ElementType;

struct GraphInput {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
};

struct GraphConstant {
  std::string name;
  std::vector<int64_t> shape;
  /// f32, f16 and bf16 values, each exactly representable in `dtype` (f16
  /// and bf16 are widened to float without rounding).
  std::vector<float> data;
  DType dtype = DType::F32;
  /// i64, i32, i1, i8 and u8 values (i1: 0 or 1).
  std::vector<int64_t> ints;
  /// f32 values left where a mapped weights file holds them, in place of
  /// `data` (no copy of ~100 MB of weights); `mapping` keeps the file
  /// mapped for as long as the constant, or the MLIR constant made from it,
  /// lives.
  llvm::ArrayRef<float> mapped;
  std::shared_ptr<const void> mapping;

  /// The f32, f16 or bf16 values, wherever they are.
  llvm::ArrayRef<float> floats() const { return mapping ? mapped : llvm::ArrayRef<float>(data); }
  size_t size() const { return runtime::isFloatElementType(dtype) ? floats().size() : ints.size(); }
};

struct GraphNode {
  std::string name;
  std::string opType;
  /// An empty string is an omitted optional input.
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  NodeAttributes attrs;
  int64_t opset = 13;
};

struct Graph {
  /// The file the graph came from; diagnostics name it.
  std::string sourcePath;
  std::vector<GraphInput> inputs;
  std::vector<std::string> outputs;
  /// Element types the file declares for outputs; the builder checks them
  /// against what the nodes compute. Outputs without an entry are unchecked.
  std::map<std::string, DType> declaredOutputTypes;
  std::vector<GraphConstant> constants;
  std::vector<GraphNode> nodes;
  /// The named dimensions that run over a range, by index: an input
  /// dimension rangeDim(i) is the dimension rangeNames[i].
  std::vector<std::string> rangeNames;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_GRAPH_H
