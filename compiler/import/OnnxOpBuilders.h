//===- OnnxOpBuilders.h - ONNX nodes to fuse ops ---------------*- C++ -*-===//
//
// The one mapping from ONNX operators (names, attributes, defaults) to fuse
// ops, shared by the JSON and ONNX importers. Attributes the fuse ops need as
// compile-time values (Pad's pads, Reshape's shape, Clip's bounds, ...) arrive
// here as attributes; the ONNX importer folds its constant inputs first.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXOPBUILDERS_H
#define FUSEC_COMPILER_IMPORT_ONNXOPBUILDERS_H

#include "compiler/import/NodeAttributes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

#include <string>
#include <vector>

namespace fusec::import {

struct ImportedNode {
  llvm::StringRef name;
  llvm::StringRef opType;
  /// One entry per ONNX input; a null Value is an omitted optional input.
  llvm::ArrayRef<mlir::Value> operands;
  const NodeAttributes &attrs;
  mlir::Location loc;
  /// How many of the node's outputs the graph uses: the declared outputs
  /// without trailing unnamed ones (omitted optional outputs).
  size_t numResults = 1;
  /// How many outputs the node declares, named or not. Split's part count
  /// is the declared count: an unnamed trailing part still takes its share.
  size_t declaredResults = 1;
  /// The ai.onnx opset the node was written against.
  int64_t opset = 13;
};

/// Builds the fuse ops computing `node` at the builder's insertion point and
/// returns one value per ONNX output. Emits an error at `node.loc` and fails
/// on unknown attributes, wrong attribute types, wrong operand counts and
/// shapes the op does not accept.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> buildOnnxNode(mlir::OpBuilder &builder, const ImportedNode &node);

bool isSupportedOnnxOp(llvm::StringRef opType);
std::vector<std::string> supportedOnnxOps();

/// Whether fusec computes every output of the op (Split, LayerNormalization
/// with its statistics); other ops compute their first output only, their
/// inference form.
bool computesEveryOutput(llvm::StringRef opType);

/// Whether the op takes integer and bool operands as they are (Cast,
/// comparisons, logic, Where, data movement: rules::typeRuleOf; the losses,
/// whose targets are class indices); the other ops compute in floating
/// point, so the importer converts their integer constant operands.
bool takesIntegerOperands(llvm::StringRef opType);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXOPBUILDERS_H
