//===- OnnxConstantFolding.h - Evaluate ONNX nodes at import ----*- C++ -*-===//
//
// Exporters compute shapes, pads and axes with small graphs of integer ops
// (Shape -> Gather -> Concat -> Reshape -> ...). fuse ops compute floats
// only, so the importer evaluates such nodes, and float ops on constants (a
// linear layer's Transpose(W)), before building the graph; results keep their
// inputs' element type (f16 and bf16 results rounded to it). Integer elements may
// mention the batch size (DimExpr): arithmetic, comparisons, Where, Max and
// Min evaluate symbolically (batch * 4, 4*batch / 4, batch == -1), and what
// has no polynomial value (batch / 3, batch > 2) is refused, naming the node.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXCONSTANTFOLDING_H
#define FUSEC_COMPILER_IMPORT_ONNXCONSTANTFOLDING_H

#include "compiler/import/OnnxTensor.h"

#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// Whether foldOnnxNode evaluates `opType` (ai.onnx domain).
bool isFoldableOnnxOp(llvm::StringRef opType);
/// Every op type isFoldableOnnxOp accepts.
std::vector<std::string> foldableOnnxOps();

/// Evaluates `node`, written against ai.onnx `opset`, on inputs known at
/// import; a null entry is an omitted optional input. Returns one tensor per
/// output. What cannot be evaluated is reported at `loc`.
mlir::FailureOr<std::vector<KnownTensor>> foldOnnxNode(const onnx::NodeProto &node, int64_t opset,
                                                       llvm::ArrayRef<const KnownTensor *> inputs, mlir::Location loc);

/// The shape Squeeze gives `shape`: without `axes`, every size-1 dimension is
/// removed. A kBatchDim entry (the batch size) is never squeezed.
mlir::FailureOr<std::vector<int64_t>> squeezeShape(llvm::ArrayRef<int64_t> shape,
                                                   const std::optional<std::vector<int64_t>> &axes, mlir::Location loc);

/// The shape Unsqueeze gives `shape`: a 1 inserted at each of `axes`
/// (indices into the result).
mlir::FailureOr<std::vector<int64_t>> unsqueezeShape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> axes,
                                                     mlir::Location loc);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXCONSTANTFOLDING_H
