//===- OnnxBatchGroups.cpp - ONNX nodes on batch-merged tensors -----------===//
#include "compiler/import/OnnxBatchGroups.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace fusec::import {
namespace {

/// Ops computed element by element with numpy broadcasting: a group passes
/// through them unchanged.
bool isElementwise(StringRef opType) {
  static const llvm::StringSet<> ops = {"Identity",
                                        "Cast",
                                        "CastLike",
                                        "Dropout",
                                        "Relu",
                                        "Sigmoid",
                                        "Tanh",
                                        "Exp",
                                        "Log",
                                        "Sqrt",
                                        "Neg",
                                        "Abs",
                                        "Erf",
                                        "Gelu",
                                        "Reciprocal",
                                        "LeakyRelu",
                                        "Clip",
                                        "HardSigmoid",
                                        "HardSwish",
                                        "Floor",
                                        "Ceil",
                                        "Round",
                                        "Sign",
                                        "Sin",
                                        "Cos",
                                        "Not",
                                        "IsNaN",
                                        "IsInf",
                                        "Softplus",
                                        "Softsign",
                                        "Elu",
                                        "Selu",
                                        "Celu",
                                        "Mish",
                                        "ThresholdedRelu",
                                        "Shrink",
                                        "Add",
                                        "Sub",
                                        "Mul",
                                        "Div",
                                        "Pow",
                                        "Max",
                                        "Min",
                                        "Mod",
                                        "Sum",
                                        "Mean",
                                        "Equal",
                                        "Less",
                                        "Greater",
                                        "LessOrEqual",
                                        "GreaterOrEqual",
                                        "And",
                                        "Or",
                                        "Xor",
                                        "Where",
                                        "PRelu"};
  return ops.contains(opType);
}

/// Ops the rewrites handle besides the elementwise ones.
bool isRewritten(StringRef opType) {
  static const llvm::StringSet<> ops = {"Reshape", "Squeeze", "Unsqueeze",  "Transpose", "MatMul",
                                        "Gemm",    "Softmax", "LogSoftmax", "Hardmax",   "LayerNormalization",
                                        "Gather",  "Concat",  "Split",      "Slice"};
  return ops.contains(opType);
}

const AttrValue *findAttr(const GraphNode &node, const char *name) {
  auto it = node.attrs.find(name);
  return it == node.attrs.end() ? nullptr : &it->second;
}

} // namespace

std::optional<BatchGroup> OnnxBatchGroups::groupOf(StringRef tensor) const {
  auto it = groups.find(tensor);
  if (it == groups.end())
    return std::nullopt;
  return it->second;
}

FailureOr<std::vector<DimExpr>> OnnxBatchGroups::logicalShape(StringRef tensor, Location loc) const {
  auto expanded = state.requireShape(tensor, loc);
  if (failed(expanded))
    return failure();
  return fusec::import::logicalShape(*expanded, groupOf(tensor), ShapeSymbols{state.batch, state.ranges});
}

FailureOr<int64_t> OnnxBatchGroups::logicalRank(StringRef tensor, Location loc) const {
  if (auto it = state.known.find(tensor); it != state.known.end())
    return static_cast<int64_t>(it->second.shape.size());
  auto expanded = state.requireShape(tensor, loc);
  if (failed(expanded))
    return failure();
  const std::optional<BatchGroup> group = groupOf(tensor);
  return static_cast<int64_t>(expanded->size()) - (group ? group->size - 1 : 0);
}

LogicalResult OnnxBatchGroups::reshapeTo(GraphNode &node, onnx::NodeProto &inference, ArrayRef<DimExpr> target,
                                         Location loc) {
  const std::string input = node.inputs[0];
  auto from = state.requireShape(input, loc);
  if (failed(from))
    return failure();
  // The elements before each symbol in flat order: what every reshape
  // keeps.
  const ShapeSymbols symbols{state.batch, state.ranges};
  std::string error;
  std::optional<ExpandedShape> to = expandShape(target, symbols, symbols.elementsBefore(*from), error);
  if (!to)
    return emitError(loc) << node.opType << " to " << shapeString(target) << ": " << error;
  const std::vector<int64_t> shape = reshapeTargetFor(*from, to->dims);
  node.opType = "Reshape";
  node.inputs.resize(1);
  node.attrs = {{"shape", AttrValue::ofInts(shape)}};
  // ONNX shape inference sees the same reshape of the fuse tensors.
  const std::string shapeName = node.outputs[0] + "@shape";
  state.shapes.addConstant(shapeName, KnownTensor::ofInts({static_cast<int64_t>(shape.size())}, shape));
  inference.set_op_type("Reshape");
  inference.clear_input();
  inference.add_input(input);
  inference.add_input(shapeName);
  inference.clear_attribute();
  state.shapes.declareShape(node.outputs[0], to->dims,
                            state.shapes.elemTypeOf(input).value_or(onnx::TensorProto::FLOAT));
  if (to->group)
    groups[node.outputs[0]] = *to->group;
  return success();
}

LogicalResult OnnxBatchGroups::checkSupported(const GraphNode &node, Location loc) const {
  const std::string *grouped = nullptr;
  for (const std::string &input : node.inputs)
    if (!input.empty() && groups.count(input) && !grouped)
      grouped = &input;
  if (!grouped || isElementwise(node.opType) || isRewritten(node.opType))
    return success();
  auto shape = logicalShape(*grouped, loc);
  return emitError(loc) << node.opType << " reads '" << *grouped << "' of shape "
                        << (succeeded(shape) ? shapeString(*shape) : std::string("?")) << ", whose dimension "
                        << groupOf(*grouped)->axis
                        << " merges the batch size with other dimensions; fusec splits such a dimension only "
                           "through elementwise ops, Reshape, Transpose, MatMul, Gemm, Softmax, LayerNormalization, "
                           "Gather, Concat, Split and Slice (docs/shapes.md)";
}

void OnnxBatchGroups::setAxisAttribute(GraphNode &node, onnx::NodeProto &inference, const char *name,
                                       int64_t value) const {
  node.attrs[name] = AttrValue::ofInt(value);
  for (onnx::AttributeProto &attribute : *inference.mutable_attribute())
    if (attribute.name() == name) {
      attribute.set_i(value);
      return;
    }
  onnx::AttributeProto &attribute = *inference.add_attribute();
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INT);
  attribute.set_i(value);
}

void OnnxBatchGroups::setIntsAttribute(GraphNode &node, onnx::NodeProto &inference, const char *name,
                                       const std::vector<int64_t> &values) const {
  node.attrs[name] = AttrValue::ofInts(values);
  onnx::AttributeProto *target = nullptr;
  for (onnx::AttributeProto &attribute : *inference.mutable_attribute())
    if (attribute.name() == name)
      target = &attribute;
  if (!target) {
    target = inference.add_attribute();
    target->set_name(name);
    target->set_type(onnx::AttributeProto::INTS);
  }
  target->clear_ints();
  for (int64_t value : values)
    target->add_ints(value);
}

FailureOr<std::string> OnnxBatchGroups::insertUnitDims(const std::string &tensor, int64_t axis, int64_t extra,
                                                       Location loc) {
  std::string name = tensor + "@units" + std::to_string(axis) + "x" + std::to_string(extra);
  if (state.known.count(name) || state.runtime.contains(name))
    return name;
  if (auto it = state.known.find(tensor); it != state.known.end()) {
    KnownTensor copy = it->second;
    copy.shape.insert(copy.shape.begin() + axis + 1, extra, 1);
    state.known[name] = std::move(copy);
    return name;
  }
  auto from = state.requireShape(tensor, loc);
  if (failed(from))
    return failure();
  std::vector<int64_t> to = *from;
  to.insert(to.begin() + axis + 1, extra, 1);
  const std::vector<int64_t> shape = reshapeTargetFor(*from, to);
  GraphNode reshape;
  reshape.name = name;
  reshape.opType = "Reshape";
  reshape.opset = state.opset;
  reshape.inputs = {tensor};
  reshape.outputs = {name};
  reshape.attrs = {{"shape", AttrValue::ofInts(shape)}};
  onnx::NodeProto inference;
  inference.set_op_type("Reshape");
  inference.set_name(name);
  inference.add_input(tensor);
  inference.add_input(name + "@shape");
  inference.add_output(name);
  state.shapes.addConstant(name + "@shape", KnownTensor::ofInts({static_cast<int64_t>(shape.size())}, shape));
  state.shapes.declareShape(name, to, state.shapes.elemTypeOf(tensor).value_or(onnx::TensorProto::FLOAT));
  state.shapes.addNode(inference);
  state.runtime.insert(name);
  state.graph.nodes.push_back(std::move(reshape));
  return name;
}

LogicalResult OnnxBatchGroups::rewriteBroadcast(GraphNode &node, onnx::NodeProto &inference, size_t operands,
                                                Location loc) {
  operands = std::min(operands, node.inputs.size());
  std::vector<int64_t> ranks(operands, 0);
  int64_t outRank = 0;
  for (size_t i = 0; i < operands; ++i) {
    if (node.inputs[i].empty())
      continue;
    auto rank = logicalRank(node.inputs[i], loc);
    if (failed(rank))
      return failure();
    ranks[i] = *rank;
    outRank = std::max(outRank, *rank);
  }
  // Every grouped operand must put its group on the same result axis.
  std::optional<BatchGroup> result;
  for (size_t i = 0; i < operands; ++i) {
    std::optional<BatchGroup> group = node.inputs[i].empty() ? std::nullopt : groupOf(node.inputs[i]);
    if (!group)
      continue;
    BatchGroup aligned{group->axis + outRank - ranks[i], group->size};
    if (result && !(*result == aligned))
      return emitError(loc) << node.opType << " combines operands that split the batch size differently ('"
                            << node.inputs[i] << "')";
    result = aligned;
  }
  if (!result)
    return success();
  // Ungrouped operands: a 1 on the group's axis gains the group's extra
  // unit dimensions; an operand that does not reach it broadcasts as is.
  for (size_t i = 0; i < operands; ++i) {
    const std::string input = node.inputs[i];
    if (input.empty() || groupOf(input))
      continue;
    const int64_t axis = result->axis - (outRank - ranks[i]);
    if (axis < 0)
      continue;
    std::vector<int64_t> shape;
    if (auto it = state.known.find(input); it != state.known.end()) {
      shape = it->second.shape;
    } else {
      auto expanded = state.requireShape(input, loc);
      if (failed(expanded))
        return failure();
      shape = *expanded;
    }
    if (shape[axis] != 1)
      return emitError(loc) << node.opType << " broadcasts '" << input << "' (dimension " << axis << " of size "
                            << (shape[axis] == kBatchDim ? state.batch : std::to_string(shape[axis]))
                            << ") against a dimension that merges the batch size with other dimensions";
    auto expandedName = insertUnitDims(input, axis, result->size - 1, loc);
    if (failed(expandedName))
      return failure();
    node.inputs[i] = *expandedName;
    for (int k = 0; k < inference.input_size(); ++k)
      if (inference.input(k) == input)
        inference.set_input(k, *expandedName);
  }
  for (const std::string &output : node.outputs)
    if (!output.empty())
      groups[output] = *result;
  return success();
}

LogicalResult OnnxBatchGroups::rewriteMatMul(GraphNode &node, onnx::NodeProto &inference, Location loc) {
  if (node.inputs.size() != 2)
    return emitError(loc) << "MatMul takes two inputs";
  auto ranks = std::make_pair(logicalRank(node.inputs[0], loc), logicalRank(node.inputs[1], loc));
  if (failed(ranks.first) || failed(ranks.second))
    return failure();
  const int64_t aRank = *ranks.first, bRank = *ranks.second;
  std::optional<BatchGroup> a = groupOf(node.inputs[0]), b = groupOf(node.inputs[1]);
  // Rows of A merging the batch ([seq*batch, embed] @ [embed, out]): with a
  // matrix B they are rows of a batched product.
  if (a && a->axis == aRank - 2 && !b && bRank == 2) {
    groups[node.outputs[0]] = *a;
    return success();
  }
  const bool aBatchAxis = !a || a->axis < aRank - 2, bBatchAxis = !b || b->axis < bRank - 2;
  if (!aBatchAxis || !bBatchAxis || aRank < 2 || bRank < 2)
    return emitError(loc) << "MatMul multiplies along a dimension that merges the batch size with other dimensions";
  // Batch axes broadcast like an elementwise op's.
  return rewriteBroadcast(node, inference, 2, loc);
}

LogicalResult OnnxBatchGroups::rewriteGemm(GraphNode &node, onnx::NodeProto &inference, Location loc) {
  // Gemm's A is a matrix; grouped, it is [rows merging the batch, K]. The
  // expanded A is no matrix, so Gemm becomes MatMul (and Add for C).
  if (node.inputs.size() < 2)
    return emitError(loc) << "Gemm takes two or three inputs";
  auto number = [&](const char *name, double fallback) {
    const AttrValue *value = findAttr(node, name);
    return !value ? fallback : value->kind == AttrValue::Kind::Float ? value->f : static_cast<double>(value->i);
  };
  if (groupOf(node.inputs[1]) || (node.inputs.size() > 2 && groupOf(node.inputs[2])) || number("transA", 0) != 0 ||
      number("alpha", 1) != 1 || number("beta", 1) != 1)
    return emitError(loc) << "Gemm on a matrix whose rows merge the batch size with other dimensions is supported "
                             "as A * op(B) + C (transA = 0, alpha = beta = 1) with B and C not merging it";
  std::string weight = node.inputs[1];
  if (number("transB", 0) != 0) {
    auto it = state.known.find(weight);
    if (it == state.known.end() || it->second.shape.size() != 2 || !it->second.isFloat())
      return emitError(loc) << "Gemm with transB = 1 on a matrix merging the batch size needs a constant B";
    const KnownTensor &source = it->second;
    const int64_t rows = source.shape[0], cols = source.shape[1];
    KnownTensor transposed =
        KnownTensor::ofFloats({cols, rows}, std::vector<float>(source.floats.size()), source.elemType);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        transposed.floats[c * rows + r] = source.floats[r * cols + c];
    weight += "@transposed";
    state.known[weight] = std::move(transposed);
  }
  const std::string output = node.outputs[0];
  const bool bias = node.inputs.size() > 2 && !node.inputs[2].empty();
  GraphNode matmul;
  matmul.name = node.name + (bias ? "@matmul" : "");
  matmul.opType = "MatMul";
  matmul.opset = node.opset;
  matmul.inputs = {node.inputs[0], weight};
  matmul.outputs = {bias ? output + "@matmul" : output};
  onnx::NodeProto matmulInference;
  matmulInference.set_op_type("MatMul");
  matmulInference.set_name(matmul.name);
  matmulInference.add_input(matmul.inputs[0]);
  matmulInference.add_input(weight);
  matmulInference.add_output(matmul.outputs[0]);
  if (failed(rewriteMatMul(matmul, matmulInference, loc)))
    return failure();
  if (!bias) {
    node = std::move(matmul);
    inference = std::move(matmulInference);
    return success();
  }
  // The MatMul goes first; this node becomes the Add of C.
  if (state.known.count(weight)) {
    state.shapes.addConstant(weight, state.known[weight]);
    if (failed(state.useConstant(weight, loc)))
      return failure();
  }
  state.shapes.addNode(matmulInference);
  state.runtime.insert(matmul.outputs[0]);
  const std::string product = matmul.outputs[0];
  state.graph.nodes.push_back(std::move(matmul));
  const std::string c = node.inputs[2];
  node.opType = "Add";
  node.inputs = {product, c};
  node.attrs.clear();
  inference.set_op_type("Add");
  inference.clear_input();
  inference.add_input(product);
  inference.add_input(c);
  inference.clear_attribute();
  return rewriteBroadcast(node, inference, 2, loc);
}

LogicalResult OnnxBatchGroups::rewriteAxis(GraphNode &node, onnx::NodeProto &inference, const char *name,
                                           int64_t defaultAxis, bool mayBeGroup, Location loc) {
  const std::optional<BatchGroup> group = groupOf(node.inputs[0]);
  auto rank = logicalRank(node.inputs[0], loc);
  if (failed(rank))
    return failure();
  const AttrValue *value = findAttr(node, name);
  int64_t axis = value && value->kind == AttrValue::Kind::Int ? value->i : defaultAxis;
  if (axis < -*rank || axis >= *rank)
    return emitError(loc) << node.opType << " " << name << " " << axis << " is out of range for rank " << *rank;
  axis = axis < 0 ? axis + *rank : axis;
  if (!mayBeGroup && axis == group->axis)
    return emitError(loc) << node.opType << " along dimension " << axis
                          << ", which merges the batch size with other dimensions, is not supported";
  setAxisAttribute(node, inference, name, expandedAxis(group, axis));
  for (const std::string &output : node.outputs)
    if (!output.empty())
      groups[output] = *group;
  return success();
}

LogicalResult OnnxBatchGroups::rewrite(GraphNode &node, onnx::NodeProto &inference, Location loc) {
  if (llvm::none_of(node.inputs, [&](const std::string &input) { return !input.empty() && groups.count(input); }))
    return success();
  const std::string &op = node.opType;
  if (op == "Reshape")
    return success(); // reshapeTo already made it one of the fuse tensors
  if (isElementwise(op))
    return rewriteBroadcast(node, inference, node.inputs.size(), loc);
  if (op == "MatMul")
    return rewriteMatMul(node, inference, loc);
  if (op == "Gemm")
    return rewriteGemm(node, inference, loc);
  const std::optional<BatchGroup> group = groupOf(node.inputs[0]);
  if (!group || llvm::any_of(ArrayRef<std::string>(node.inputs).drop_front(), [&](const std::string &input) {
        return !input.empty() && groups.count(input) && op != "Concat";
      }))
    return emitError(loc) << op << " takes a dimension merging the batch size with others only in its first input";
  auto rank = logicalRank(node.inputs[0], loc);
  if (failed(rank))
    return failure();
  if (op == "Transpose") {
    std::vector<int64_t> perm(*rank);
    std::iota(perm.rbegin(), perm.rend(), 0);
    if (const AttrValue *given = findAttr(node, "perm"))
      perm = given->ints;
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < static_cast<int64_t>(sorted.size()); ++i)
      if (sorted[i] != i || static_cast<int64_t>(perm.size()) != *rank)
        return emitError(loc) << "Transpose's perm is not a permutation of the " << *rank << " axes";
    auto [expanded, result] = expandPermutation(perm, group);
    setIntsAttribute(node, inference, "perm", expanded);
    groups[node.outputs[0]] = *result;
    return success();
  }
  // Softmax-13 normalizes along one axis; before opset 13 it flattens from
  // the axis on, which covers the whole group when it lies there.
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax")
    return rewriteAxis(node, inference, "axis", state.opset >= 13 ? -1 : 1, state.opset < 13, loc);
  if (op == "LayerNormalization") {
    const AttrValue *value = findAttr(node, "axis");
    int64_t axis = value ? value->i : -1;
    axis = axis < 0 ? axis + *rank : axis;
    if (group->axis >= axis)
      return emitError(loc) << "LayerNormalization over dimensions that merge the batch size is not supported";
    return rewriteAxis(node, inference, "axis", -1, false, loc);
  }
  if (op == "Gather") {
    const AttrValue *value = findAttr(node, "axis");
    int64_t axis = value ? value->i : 0;
    axis = axis < 0 ? axis + *rank : axis;
    if (axis < 0 || axis >= *rank)
      return emitError(loc) << "Gather axis " << axis << " is out of range for rank " << *rank;
    if (axis == group->axis)
      return emitError(loc) << "Gather along a dimension that merges the batch size is not supported";
    auto indices = logicalRank(node.inputs[1], loc);
    if (failed(indices))
      return failure();
    setAxisAttribute(node, inference, "axis", expandedAxis(group, axis));
    groups[node.outputs[0]] = BatchGroup{group->axis < axis ? group->axis : group->axis + *indices - 1, group->size};
    return success();
  }
  if (op == "Concat") {
    for (const std::string &input : node.inputs)
      if (!input.empty() && !(groupOf(input) && *groupOf(input) == *group))
        return emitError(loc) << "Concat joins '" << input
                              << "', which does not split the batch size as its first input does";
    return rewriteAxis(node, inference, "axis", 0, false, loc);
  }
  if (op == "Split")
    return rewriteAxis(node, inference, "axis", 0, false, loc);
  if (op == "Slice") {
    const AttrValue *axes = findAttr(node, "axes");
    if (!axes)
      return emitError(loc) << "Slice of a tensor merging the batch size needs its axes";
    std::vector<int64_t> expanded;
    for (int64_t axis : axes->ints) {
      axis = axis < 0 ? axis + *rank : axis;
      if (axis < 0 || axis >= *rank)
        return emitError(loc) << "Slice axis " << axis << " is out of range for rank " << *rank;
      if (axis == group->axis)
        return emitError(loc) << "Slice along a dimension that merges the batch size is not supported";
      expanded.push_back(expandedAxis(group, axis));
    }
    if (state.opset >= 10 && inference.input_size() > 3) {
      // The axes are input 3 of the ONNX node.
      const std::string axesName = node.outputs[0] + "@axes";
      state.shapes.addConstant(axesName, KnownTensor::ofInts({static_cast<int64_t>(expanded.size())}, expanded));
      inference.set_input(3, axesName);
      node.attrs["axes"] = AttrValue::ofInts(expanded);
    } else {
      setIntsAttribute(node, inference, "axes", expanded);
    }
    groups[node.outputs[0]] = *group;
    return success();
  }
  return checkSupported(node, loc);
}

} // namespace fusec::import
