//===- OnnxProtoUtils.h - Reading ONNX node attributes ----------*- C++ -*-===//
//
// Small readers for the parts of ONNX's protobuf messages that the importer
// and the constant folder both need: typed attributes and type names.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXPROTOUTILS_H
#define FUSEC_COMPILER_IMPORT_ONNXPROTOUTILS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusec::import {

/// "FLOAT", "INT64", ... for a TensorProto data type.
std::string onnxTypeName(int32_t dataType);

/// The attribute `name` of `node`, or null.
const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, llvm::StringRef name);

/// The INT attribute `name`, `defaultValue` when absent. A present attribute
/// of another type is reported at `loc`.
mlir::FailureOr<int64_t> getIntAttribute(const onnx::NodeProto &node, llvm::StringRef name, int64_t defaultValue,
                                         mlir::Location loc);

/// The INTS attribute `name`, std::nullopt when absent.
mlir::FailureOr<std::optional<std::vector<int64_t>>> getIntsAttribute(const onnx::NodeProto &node, llvm::StringRef name,
                                                                      mlir::Location loc);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXPROTOUTILS_H
