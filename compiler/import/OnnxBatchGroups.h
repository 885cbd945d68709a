//===- OnnxBatchGroups.h - ONNX nodes on batch-merged tensors ---*- C++ -*-===//
//
// The ONNX importer's side of BatchGroup.h: it records which run-time
// tensors hold the batch merged with other dimensions, gives Shape and
// Reshape their logical (ONNX) shapes, and rewrites the nodes that read
// such tensors onto the expanded fuse tensors: a Transpose's permutation,
// a Softmax's axis, a broadcast operand given the group's extra unit
// dimensions, a Gemm as a MatMul and an Add. A node whose meaning the
// split would change (a Softmax over the merged dimension, a reduction of
// it, an op not listed in docs/shapes.md) is refused, naming the node.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXBATCHGROUPS_H
#define FUSEC_COMPILER_IMPORT_ONNXBATCHGROUPS_H

#include "compiler/import/BatchGroup.h"
#include "compiler/import/Graph.h"
#include "compiler/import/OnnxShapeInference.h"
#include "compiler/import/OnnxTensor.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// The importer state the rewrites read and extend.
struct OnnxImportState {
  llvm::StringMap<KnownTensor> &known;
  llvm::StringSet<> &runtime;
  RuntimeShapeInference &shapes;
  Graph &graph;
  /// The batch symbol's name ("" when no dimension is dynamic).
  std::string batch;
  int64_t opset = 0;
  /// The fuse shape of a tensor (kBatchDim for the batch), or an error
  /// reported at the location.
  std::function<mlir::FailureOr<std::vector<int64_t>>(llvm::StringRef, mlir::Location)> requireShape;
  /// Makes a known tensor a graph constant that a node added here reads.
  std::function<mlir::LogicalResult(const std::string &, mlir::Location)> useConstant;
  /// The dimensions that run over a range (rangeDim(i) is ranges[i]).
  std::vector<std::string> ranges;
};

class OnnxBatchGroups {
public:
  explicit OnnxBatchGroups(OnnxImportState state) : state(std::move(state)) {}

  std::optional<BatchGroup> groupOf(llvm::StringRef tensor) const;

  /// The ONNX shape of a run-time tensor: its fuse shape with the group's
  /// dimensions multiplied ("4*batch").
  mlir::FailureOr<std::vector<DimExpr>> logicalShape(llvm::StringRef tensor, mlir::Location loc) const;

  /// Makes `node` (and its ONNX form for shape inference) a Reshape of its
  /// first input to the logical shape `target`, on the expanded tensors:
  /// what Reshape, Squeeze and Unsqueeze of a tensor holding the batch
  /// become. Records the output's group.
  mlir::LogicalResult reshapeTo(GraphNode &node, onnx::NodeProto &inference, llvm::ArrayRef<DimExpr> target,
                                mlir::Location loc);

  /// Refuses, before anything else reads its inputs' shapes, a node that
  /// reads a grouped tensor and is not one the rewrites below handle.
  mlir::LogicalResult checkSupported(const GraphNode &node, mlir::Location loc) const;

  /// Rewrites a node that reads a grouped tensor onto the expanded tensors
  /// and records its outputs' groups; nodes without grouped inputs are left
  /// alone. May add nodes to the graph before `node` (reshapes of
  /// broadcast operands, the MatMul of a Gemm).
  mlir::LogicalResult rewrite(GraphNode &node, onnx::NodeProto &inference, mlir::Location loc);

private:
  /// The logical rank of a run-time or known tensor.
  mlir::FailureOr<int64_t> logicalRank(llvm::StringRef tensor, mlir::Location loc) const;
  /// Broadcasting ops: aligns the operands' groups and gives ungrouped
  /// operands the group's unit dimensions.
  mlir::LogicalResult rewriteBroadcast(GraphNode &node, onnx::NodeProto &inference, size_t operands,
                                       mlir::Location loc);
  mlir::LogicalResult rewriteMatMul(GraphNode &node, onnx::NodeProto &inference, mlir::Location loc);
  mlir::LogicalResult rewriteGemm(GraphNode &node, onnx::NodeProto &inference, mlir::Location loc);
  /// An op with one axis attribute that must not be the group's.
  mlir::LogicalResult rewriteAxis(GraphNode &node, onnx::NodeProto &inference, const char *name, int64_t defaultAxis,
                                  bool mayBeGroup, mlir::Location loc);
  /// Input `index` of `node` with `extra` unit dimensions after its axis
  /// `axis`: a reshaped copy of a known tensor, or a Reshape node.
  mlir::FailureOr<std::string> insertUnitDims(const std::string &tensor, int64_t axis, int64_t extra,
                                              mlir::Location loc);
  /// Sets an attribute on the node and on its ONNX form.
  void setAxisAttribute(GraphNode &node, onnx::NodeProto &inference, const char *name, int64_t value) const;
  void setIntsAttribute(GraphNode &node, onnx::NodeProto &inference, const char *name,
                        const std::vector<int64_t> &values) const;

  OnnxImportState state;
  llvm::StringMap<BatchGroup> groups;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXBATCHGROUPS_H
