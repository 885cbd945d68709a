//===- OnnxShapeInference.h - Shapes of run-time ONNX tensors ---*- C++ -*-===//
//
// Folding `Shape`, lowering Squeeze/Unsqueeze to a Reshape and placing the
// batch size in a Reshape's target need the shapes of tensors fusec computes
// at run time. The importer does not track shapes itself: it asks ONNX shape
// inference, run over the model as far as it has been imported, where every
// value folded so far is a constant. Pads or shapes computed by a subgraph
// are therefore initializers to ONNX, and the dimensions after them come out
// static, where inference over the original model would leave them symbolic
// (pad_conv declares its output as [batch, 16, "Concatoutput_dim_2", ...]).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXSHAPEINFERENCE_H
#define FUSEC_COMPILER_IMPORT_ONNXSHAPEINFERENCE_H

#include "compiler/import/OnnxTensor.h"
#include "compiler/import/SymbolicDimensions.h"

#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

class RuntimeShapeInference {
public:
  /// A dimension ONNX shape inference could not determine.
  // Below every range code (Graph.h rangeIndexOf).
  static constexpr int64_t kUnknownDim = std::numeric_limits<int64_t>::min();

  /// `model` provides the opsets; `dimensions` the inputs' named dimensions
  /// as the importer read them: the batch symbol and the sizes given for
  /// others.
  RuntimeShapeInference(const onnx::ModelProto &model, SymbolicDimensions dimensions);

  /// A graph input computed at run time, whose `shape` is already known
  /// (dimensions given a size are static there, and ONNX inference sees them
  /// so).
  void addInput(const onnx::ValueInfoProto &input, std::vector<int64_t> shape);
  /// A tensor known at import that added nodes read. Only integer data can
  /// change shapes, so float tensors enter by type alone.
  void addConstant(llvm::StringRef name, const KnownTensor &tensor);
  /// A node computed at run time, in its ONNX form; its inputs were added
  /// before (as inputs, constants or outputs of earlier nodes).
  void addNode(const onnx::NodeProto &node);

  /// The shape of `name`, which a node added next computes, as the importer
  /// knows it (a Reshape that moves the batch: ONNX cannot infer a -1
  /// against a symbolic size). Recorded as is and declared to ONNX inference
  /// for the nodes that read it, with element type `elemType` (ONNX infers
  /// nothing from a tensor without one).
  void declareShape(const std::string &name, const std::vector<int64_t> &shape, int32_t elemType);

  /// The shape of an added tensor, with kBatchDim for the batch size and
  /// kUnknownDim for what inference could not determine; std::nullopt when
  /// not even the rank is known.
  std::optional<std::vector<int64_t>> shapeOf(llvm::StringRef name);
  /// The ONNX element type of an added tensor; std::nullopt when inference
  /// could not determine it.
  std::optional<int32_t> elemTypeOf(llvm::StringRef name);

private:
  void record(const onnx::ValueInfoProto &info);
  void inferNewNodes();

  onnx::ModelProto model;
  SymbolicDimensions dimensions;
  llvm::StringMap<std::vector<int64_t>> shapes;
  llvm::StringMap<int32_t> elemTypes;
  /// How many nodes the last inference run covered.
  int inferredNodes = 0;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXSHAPEINFERENCE_H
