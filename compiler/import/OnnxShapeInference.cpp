//===- OnnxShapeInference.cpp - Shapes of run-time ONNX tensors -----------===//
#include "compiler/import/OnnxShapeInference.h"
#include "compiler/import/Graph.h"

#include <onnx/shape_inference/implementation.h>

namespace fusec::import {

RuntimeShapeInference::RuntimeShapeInference(const onnx::ModelProto &source, SymbolicDimensions dimensions)
    : dimensions(std::move(dimensions)) {
  model.set_ir_version(source.ir_version());
  *model.mutable_opset_import() = source.opset_import();
  model.mutable_graph()->set_name(source.graph().name());
}

void RuntimeShapeInference::addInput(const onnx::ValueInfoProto &input, std::vector<int64_t> shape) {
  onnx::ValueInfoProto &added = *model.mutable_graph()->add_input();
  added = input;
  // Sized dimensions become static for ONNX inference too, so that the
  // shapes it derives from them (a Reshape to [batch, seq, heads, d]) are.
  onnx::TensorShapeProto &dims = *added.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int d = 0; d < dims.dim_size() && d < int(shape.size()); ++d)
    if (shape[d] >= 0)
      dims.mutable_dim(d)->set_dim_value(shape[d]);
  shapes[input.name()] = std::move(shape);
  elemTypes[input.name()] = input.type().tensor_type().elem_type();
}

void RuntimeShapeInference::addConstant(llvm::StringRef name, const KnownTensor &tensor) {
  if (shapes.count(name))
    return;
  shapes[name] = tensor.shape;
  elemTypes[name] = tensor.elemType;
  onnx::GraphProto &graph = *model.mutable_graph();
  if (tensor.isInt()) {
    writeTensorProto(tensor, name, *graph.add_initializer());
    return;
  }
  onnx::ValueInfoProto &input = *graph.add_input();
  input.set_name(name.str());
  onnx::TypeProto::Tensor &type = *input.mutable_type()->mutable_tensor_type();
  type.set_elem_type(tensor.elemType);
  onnx::TensorShapeProto &shape = *type.mutable_shape();
  for (int64_t dim : tensor.shape)
    shape.add_dim()->set_dim_value(dim);
}

void RuntimeShapeInference::addNode(const onnx::NodeProto &node) { *model.mutable_graph()->add_node() = node; }

void RuntimeShapeInference::declareShape(const std::string &name, const std::vector<int64_t> &shape, int32_t elemType) {
  shapes[name] = shape;
  elemTypes[name] = elemType;
  onnx::ValueInfoProto &info = *model.mutable_graph()->add_value_info();
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(elemType);
  onnx::TensorShapeProto &dims = *info.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t dim : shape) {
    if (dim == kBatchDim)
      dims.add_dim()->set_dim_param(dimensions.batchSymbol());
    else if (std::optional<size_t> range = rangeIndexOf(dim))
      dims.add_dim()->set_dim_param(dimensions.rangeNames().at(*range));
    else
      dims.add_dim()->set_dim_value(dim);
  }
}

void RuntimeShapeInference::record(const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return;
  if (info.type().tensor_type().elem_type() != onnx::TensorProto::UNDEFINED)
    elemTypes.try_emplace(info.name(), info.type().tensor_type().elem_type());
  if (!info.type().tensor_type().has_shape())
    return;
  std::vector<int64_t> shape;
  for (const auto &dim : info.type().tensor_type().shape().dim()) {
    if (dim.has_dim_value())
      shape.push_back(dim.dim_value());
    else if (std::optional<int64_t> size = dimensions.sizeOf(dim.dim_param()))
      shape.push_back(*size);
    else if (!dimensions.batchSymbol().empty() && dim.dim_param() == dimensions.batchSymbol())
      shape.push_back(kBatchDim);
    else
      shape.push_back(kUnknownDim);
  }
  shapes.try_emplace(info.name(), std::move(shape));
}

void RuntimeShapeInference::inferNewNodes() {
  onnx::ModelProto inferred = model;
  try {
    onnx::shape_inference::InferShapes(inferred);
  } catch (const std::exception &) { // NOLINT(bugprone-empty-catch)
    // Inference is best effort: a node ONNX cannot infer leaves its outputs
    // unknown, and the importer reports the shape it actually needed.
  }
  for (const onnx::ValueInfoProto &info : inferred.graph().value_info())
    record(info);
  inferredNodes = model.graph().node_size();
}

std::optional<std::vector<int64_t>> RuntimeShapeInference::shapeOf(llvm::StringRef name) {
  auto it = shapes.find(name);
  if (it == shapes.end() && inferredNodes < model.graph().node_size()) {
    inferNewNodes();
    it = shapes.find(name);
  }
  if (it == shapes.end())
    return std::nullopt;
  return it->second;
}

std::optional<int32_t> RuntimeShapeInference::elemTypeOf(llvm::StringRef name) {
  auto it = elemTypes.find(name);
  if (it == elemTypes.end() && inferredNodes < model.graph().node_size()) {
    inferNewNodes();
    it = elemTypes.find(name);
  }
  if (it == elemTypes.end())
    return std::nullopt;
  return it->second;
}

} // namespace fusec::import
