//===- OnnxImporter.h - ONNX models to the fuse dialect ---------*- C++ -*-===//
//
// Reads an ONNX model (protobuf) into a Graph. Shape arithmetic and other
// nodes whose inputs are known at import are folded first (see
// OnnxConstantFolding.h), so only f32/f16/bf16 compute and Casts reach the
// graph; inputs that fuse ops take as attributes (Reshape's shape, Pad's
// pads, ...) must fold to constants. Tensors of FLOAT, FLOAT16, BFLOAT16,
// INT64, INT32, INT8, UINT8 and BOOL keep their type (f32, f16, bf16, i64, i32, i8,
// u8, i1).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXIMPORTER_H
#define FUSEC_COMPILER_IMPORT_ONNXIMPORTER_H

#include "compiler/import/Graph.h"
#include "compiler/import/SymbolicDimensions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

// Debian's ONNX is built with ONNX_NAMESPACE=onnx. Declared here so that
// users of the importer do not compile the protobuf headers.
namespace onnx {
class ModelProto;
} // namespace onnx

namespace fusec::import {

/// The ai.onnx opsets the importer accepts.
inline constexpr int64_t kMinOnnxOpset = 7;
inline constexpr int64_t kMaxOnnxOpset = 28;

/// Parses the .onnx file at `path`. Reports problems as diagnostics naming
/// the file and node; unsupported op types are listed in one error. Input
/// dimensions named in `sizes` (dim_params) are read as those sizes; the
/// one other name, if any, is the batch.
mlir::FailureOr<Graph> readOnnxGraph(llvm::StringRef path, mlir::MLIRContext &context,
                                     const DimensionSizes &sizes = {});

/// readOnnxGraph on a model already in memory; `sourceName` stands for the
/// file in diagnostics and locations.
mlir::FailureOr<Graph> readOnnxGraph(const onnx::ModelProto &model, llvm::StringRef sourceName,
                                     mlir::MLIRContext &context, const DimensionSizes &sizes = {});

/// readOnnxGraph followed by buildModule.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(llvm::StringRef path, mlir::MLIRContext &context,
                                                  const DimensionSizes &sizes = {});
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(const onnx::ModelProto &model, llvm::StringRef sourceName,
                                                  mlir::MLIRContext &context, const DimensionSizes &sizes = {});

/// How the importer treats an ai.onnx op type.
enum class OnnxOpKind {
  Unsupported,
  /// Computed at run time by a fuse op, or folded at import when all of its
  /// inputs are known then (Add, Transpose, Conv, ...).
  Compute,
  /// Only evaluated at import: all of its inputs must be known by then
  /// (Constant, Gather, Range, ...).
  ImportTime,
  /// Evaluated at import from its input's shape (Shape, Size).
  ShapeQuery,
};
OnnxOpKind classifyOnnxOp(llvm::StringRef opType);

/// Every ai.onnx op type the importer reads (classifyOnnxOp is not
/// Unsupported), sorted: `fusec --list-onnx-ops`.
std::vector<std::string> readableOnnxOps();

/// Whether input `index` of `opType` (written against `opset`) must be known
/// at import because the fuse op takes it as an attribute: Reshape's shape,
/// Pad's pads and value, Clip's bounds, ReduceMean's and (Un)Squeeze's axes.
bool isImportTimeInput(llvm::StringRef opType, int64_t opset, size_t index);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXIMPORTER_H
