//===- OnnxProtoUtils.cpp - Reading ONNX node attributes ------------------===//
#include "compiler/import/OnnxProtoUtils.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace fusec::import {

std::string onnxTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(dataType));
  return "type " + std::to_string(dataType);
}

const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, StringRef name) {
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

FailureOr<int64_t> getIntAttribute(const onnx::NodeProto &node, StringRef name, int64_t defaultValue, Location loc) {
  const onnx::AttributeProto *attribute = findAttribute(node, name);
  if (!attribute)
    return defaultValue;
  if (attribute->type() != onnx::AttributeProto::INT)
    return emitError(loc) << "attribute '" << name << "' of " << node.op_type() << " must be an integer";
  return attribute->i();
}

FailureOr<std::optional<std::vector<int64_t>>> getIntsAttribute(const onnx::NodeProto &node, StringRef name,
                                                                Location loc) {
  const onnx::AttributeProto *attribute = findAttribute(node, name);
  if (!attribute)
    return std::optional<std::vector<int64_t>>();
  if (attribute->type() != onnx::AttributeProto::INTS)
    return emitError(loc) << "attribute '" << name << "' of " << node.op_type() << " must be a list of integers";
  return std::optional<std::vector<int64_t>>(std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end()));
}

} // namespace fusec::import
