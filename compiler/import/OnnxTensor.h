//===- OnnxTensor.h - Tensors the ONNX importer knows at import -*- C++ -*-===//
//
// Initializers, Constant nodes and folded shape arithmetic give tensors whose
// values are known before run time. Integer tensors come from shape
// arithmetic, where a quantity may still be unknown at import: the batch
// size. An integer element is therefore an expression over such symbols
// (DimExpr: "batch", "4*batch"), which lets
// `Reshape(x, Concat(Gather(Shape(x), 0), [-1]))` fold to a static reshape.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXTENSOR_H
#define FUSEC_COMPILER_IMPORT_ONNXTENSOR_H

#include "compiler/import/DimExpr.h"
#include "compiler/import/Graph.h"
#include "compiler/import/OnnxExternalData.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace fusec::import {

/// A tensor known at import: float data (weights, folded float ops) or
/// integer data (shape arithmetic). Data is in C order.
struct KnownTensor {
  enum class Kind { Float, Int };
  Kind kind = Kind::Float;
  /// The ONNX element type (TensorProto::DataType): FLOAT, FLOAT16, BFLOAT16
  /// or DOUBLE for Kind::Float, whose values are exactly representable in
  /// it (DOUBLE ones narrowed to float); INT64, INT32 or BOOL for Kind::Int.
  int32_t elemType = onnx::TensorProto::FLOAT;
  std::vector<int64_t> shape;
  std::vector<float> floats; ///< Kind::Float
  std::vector<DimExpr> ints; ///< Kind::Int

  static KnownTensor ofFloats(std::vector<int64_t> shape, std::vector<float> data,
                              int32_t elemType = onnx::TensorProto::FLOAT);
  static KnownTensor ofInts(std::vector<int64_t> shape, std::vector<DimExpr> data,
                            int32_t elemType = onnx::TensorProto::INT64);
  static KnownTensor ofInts(std::vector<int64_t> shape, const std::vector<int64_t> &data,
                            int32_t elemType = onnx::TensorProto::INT64);

  bool isFloat() const { return kind == Kind::Float; }
  bool isInt() const { return kind == Kind::Int; }
  size_t size() const { return isFloat() ? floats.size() : ints.size(); }
  /// Whether an element is symbolic (mentions the batch size).
  bool hasSymbols() const;
  /// The integer values; std::nullopt for a float tensor or when an element
  /// is symbolic.
  std::optional<std::vector<int64_t>> staticInts() const;
};

/// An integer tensor's elements for diagnostics: "[batch, 4*batch, 8]"
/// (the first eight, then "...").
std::string intsToString(const KnownTensor &tensor);

/// The dtype fusec gives ONNX element type `onnxType` (FLOAT, FLOAT16,
/// BFLOAT16, INT64, INT32, BOOL); std::nullopt for the others.
std::optional<DType> dtypeForOnnxType(int32_t onnxType);

/// The ONNX element type of `type`.
int32_t onnxTypeForDType(DType type);

/// `value` rounded to the float type `onnxType` (FLOAT16 and BFLOAT16 round
/// to nearest even; FLOAT and DOUBLE keep it).
float roundToOnnxType(float value, int32_t onnxType);

/// Product of `shape`'s dimensions.
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// Whether readTensorProto reads tensors of TensorProto `dataType`.
bool isReadableTensorType(int32_t dataType);

/// Reads an initializer or a Constant's tensor. FLOAT, FLOAT16, BFLOAT16
/// (widened exactly, from raw_data or int32_data) and DOUBLE (narrowed)
/// become float tensors; INT64, INT32 and BOOL integer ones; other types are
/// reported at `loc`. Externally stored data is read through `external`
/// (an error without it).
mlir::FailureOr<KnownTensor> readTensorProto(const onnx::TensorProto &proto, mlir::Location loc,
                                             OnnxExternalData *external = nullptr);

/// Writes a tensor without symbolic elements with its element type.
void writeTensorProto(const KnownTensor &tensor, llvm::StringRef name, onnx::TensorProto &proto);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXTENSOR_H
