//===- Graph.h - An imported model before it becomes MLIR ------*- C++ -*-===//
//
// Both importers parse their format into this plain description; one
// builder (GraphBuilder) checks names and order and emits the fuse dialect.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_GRAPH_H
#define FUSEC_COMPILER_IMPORT_GRAPH_H

#include "compiler/import/NodeAttributes.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// Shapes use -1 for the symbolic batch dimension.
inline constexpr int64_t kBatchDim = -1;

/// The element types a graph's tensors may have; the names are the plan
/// format's dtypes ("f32", "f16", ..., see ir/ElementTypes.h).
enum class DType { F32, F16, BF16, I64, I32, I1 };

inline constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I1};

/// "f32", "f16", "bf16", "i64", "i32" or "i1".
inline const char *dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I1:
    return "i1";
  }
  return "?";
}

/// The DType `name` spells; std::nullopt for any other name.
inline std::optional<DType> parseDType(const std::string &name) {
  for (DType type : kAllDTypes)
    if (name == dtypeName(type))
      return type;
  return std::nullopt;
}
/// f32, f16 and bf16 hold floats (GraphConstant::data); the rest integers
/// (GraphConstant::ints).
inline bool isFloatDType(DType type) { return type == DType::F32 || type == DType::F16 || type == DType::BF16; }

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
  /// i64, i32 and i1 values (i1: 0 or 1).
  std::vector<int64_t> ints;

  size_t size() const { return isFloatDType(dtype) ? data.size() : ints.size(); }
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
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_GRAPH_H
