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
#include <string>
#include <vector>

namespace fusec::import {

/// Shapes use -1 for the symbolic batch dimension.
inline constexpr int64_t kBatchDim = -1;

struct GraphInput {
  std::string name;
  std::vector<int64_t> shape;
};

struct GraphConstant {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
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
  std::vector<GraphConstant> constants;
  std::vector<GraphNode> nodes;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_GRAPH_H
