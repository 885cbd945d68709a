//===- OnnxAttributes.h - fuse op attributes as ONNX JSON -------*- C++ -*-===//
#ifndef FUSEC_COMPILER_ONNXATTRIBUTES_H
#define FUSEC_COMPILER_ONNXATTRIBUTES_H

#include "mlir/IR/Operation.h"

#include <nlohmann/json.hpp>

namespace fusec {

/// An op's attributes as a JSON object keyed by ONNX attribute name (fuse
/// attribute names are ONNX's): integer lists, integers, booleans as 0/1,
/// numbers and strings. Plans and the JSON format share this encoding.
nlohmann::json onnxAttributesToJson(mlir::Operation *op);

} // namespace fusec

#endif // FUSEC_COMPILER_ONNXATTRIBUTES_H
