//===- OnnxImporter.cpp - ONNX models to the fuse dialect -----------------===//
//
// One pass over the nodes in file order (ONNX requires topological order):
// a node whose inputs are all known at import and that the folder evaluates
// becomes a known tensor; Shape and Size read shapes from ONNX shape
// inference; everything else is a run-time GraphNode, with the inputs fuse
// takes as attributes converted to attributes.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/OnnxImporter.h"
#include "compiler/import/BatchGroup.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/OnnxBatchGroups.h"
#include "compiler/import/OnnxConstantFolding.h"
#include "compiler/import/OnnxOpBuilders.h"
#include "compiler/import/OnnxProtoUtils.h"
#include "compiler/import/OnnxShapeInference.h"
#include "compiler/import/OnnxTensor.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <climits>

using namespace mlir;

namespace fusec::import {
namespace {

/// An input that the fuse op takes as an attribute, so it must be known at
/// import. All of them follow the op's tensor inputs.
struct ImportTimeInput {
  const char *opType;
  int64_t sinceOpset;
  size_t index;
  const char *attribute;
  /// The first opset where the input is no longer at `index`.
  int64_t untilOpset = INT64_MAX;

  bool appliesTo(StringRef op, int64_t opset) const {
    return op == opType && opset >= sinceOpset && opset < untilOpset;
  }
};

constexpr ImportTimeInput kImportTimeInputs[] = {
    {"Reshape", 5, 1, "shape"},
    {"Expand", 8, 1, "shape"},
    {"Slice", 10, 1, "starts"},
    {"Slice", 10, 2, "ends"},
    {"Slice", 10, 3, "axes"},
    {"Slice", 10, 4, "steps"},
    {"Split", 13, 1, "split"},
    {"Upsample", 9, 1, "scales"},
    {"Resize", 10, 1, "scales", 11},
    {"Resize", 11, 1, "roi"},
    {"Resize", 11, 2, "scales"},
    {"Resize", 11, 3, "sizes"},
    {"Pad", 11, 1, "pads"},
    {"Pad", 11, 2, "value"},
    {"Pad", 18, 3, "axes"},
    {"Clip", 11, 1, "min"},
    {"Clip", 11, 2, "max"},
    {"ReduceMean", 18, 1, "axes"},
    {"ReduceSum", 13, 1, "axes"},
    {"ReduceMax", 18, 1, "axes"},
    {"ReduceMin", 18, 1, "axes"},
    {"ReduceProd", 18, 1, "axes"},
    {"ReduceSumSquare", 18, 1, "axes"},
    {"ReduceL1", 18, 1, "axes"},
    {"ReduceL2", 18, 1, "axes"},
    {"ReduceLogSum", 18, 1, "axes"},
    {"ReduceLogSumExp", 18, 1, "axes"},
    {"Squeeze", 13, 1, "axes"},
    {"Trilu", 14, 1, "k"},
    {"Tile", 6, 1, "repeats"},
    {"OneHot", 9, 1, "depth"},
    {"OneHot", 9, 2, "values"},
    {"Unsqueeze", 13, 1, "axes"},
    {"Dropout", 12, 1, "ratio"},
    {"Dropout", 12, 2, "training_mode"},
};

/// Run-time ops without a fuse op of their own; the importer rewrites them
/// to ones that have (Identity, Reshape, Cast).
bool isLoweredOp(StringRef opType) {
  return opType == "Dropout" || opType == "Squeeze" || opType == "Unsqueeze" || opType == "CastLike";
}

/// Ops about a tensor's shape rather than its values.
bool isShapeQueryOp(StringRef opType) { return opType == "Shape" || opType == "Size"; }

bool isDefaultDomain(StringRef domain) { return domain.empty() || domain == "ai.onnx"; }

std::string nodeName(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

class OnnxGraphReader {
public:
  OnnxGraphReader(const onnx::ModelProto &model, StringRef path, MLIRContext &context, const DimensionSizes &sizes)
      : model(model), path(path.str()), context(context), fileLoc(FileLineColLoc::get(&context, path, 0, 0)),
        dimensions(sizes), external(llvm::sys::path::parent_path(path).str()) {}

  FailureOr<Graph> read();

private:
  LogicalResult readOpset();
  LogicalResult checkOpTypes();
  LogicalResult readInitializers();
  LogicalResult readInputs();
  LogicalResult importNode(const onnx::NodeProto &node, const std::string &name);
  LogicalResult importShapeQuery(const onnx::NodeProto &node, Location loc);
  LogicalResult importRuntimeNode(const onnx::NodeProto &node, const std::string &name, Location loc);
  LogicalResult convertImportTimeInputs(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc);
  LogicalResult lowerNode(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc);
  /// A Reshape of a tensor holding the batch, on logical shapes (OnnxBatchGroups).
  LogicalResult importBatchReshape(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc);
  FailureOr<AttrValue> reshapeTarget(const KnownTensor &shape, const GraphNode &node, Location loc);
  /// Expand's `shape` attribute; a run-time dimension the input does not
  /// hold there is -2 - k, naming `symbols[k]`.
  FailureOr<AttrValue> expandTarget(const KnownTensor &shape, StringRef data, Location loc,
                                    std::vector<std::string> &symbols);
  /// The value of an import-time input as the attribute the fuse op takes;
  /// the batch size in it becomes what that attribute uses for it.
  FailureOr<AttrValue> importTimeAttribute(GraphNode &node, const ImportTimeInput &entry, const KnownTensor &tensor,
                                           Location loc);
  LogicalResult readOutputs();

  /// The static shape of `tensor` (kBatchDim for the batch size).
  FailureOr<std::vector<int64_t>> requireShape(StringRef tensor, Location loc);
  /// A dimension of a shape as an expression: kBatchDim is the batch
  /// symbol, a range code its dimension's name.
  DimExpr dimExpr(int64_t dim) const {
    if (std::optional<size_t> range = rangeIndexOf(dim))
      return DimExpr::symbol(dimensions.rangeNames().at(*range));
    return dim == kBatchDim ? DimExpr::symbol(dimensions.batchSymbol()) : DimExpr(dim);
  }
  /// A size a fuse op's attribute can hold: a number, or nullopt for the
  /// batch size itself. Other expressions (4*batch) are refused, naming
  /// `what`.
  FailureOr<std::optional<int64_t>> batchOrStatic(const DimExpr &dim, const std::string &what, Location loc) const;
  /// Registers a tensor a node defines, rejecting a second definition.
  LogicalResult define(const std::string &tensor, Location loc);
  /// Makes the known tensor `name` a graph constant, after checking that
  /// fusec can hold it at run time.
  LogicalResult useConstant(const std::string &name, Location loc);
  /// The name of a copy of the known integer tensor `name` in float type
  /// `onnxType`.
  FailureOr<std::string> floatConstant(const std::string &name, const KnownTensor &tensor, int32_t onnxType,
                                       Location loc);

  const onnx::ModelProto &model;
  std::string path;
  MLIRContext &context;
  Location fileLoc;
  int64_t opset = 0;
  /// The inputs' named dimensions: sizes given for some (fusec --dim), the
  /// batch symbol.
  SymbolicDimensions dimensions;
  /// Tensors known at import: initializers, Constant nodes, folded nodes.
  llvm::StringMap<KnownTensor> known;
  /// Tensors computed at run time: graph inputs and GraphNode outputs.
  llvm::StringSet<> runtime;
  /// Tensors some node reads or the graph returns.
  llvm::StringSet<> consumed;
  /// Known tensors that GraphNodes read, in first-use order.
  std::vector<std::string> usedConstants;
  llvm::StringSet<> usedConstantSet;
  std::optional<RuntimeShapeInference> shapes;
  Graph graph;
  /// Tensors whose ONNX dimensions merge the batch with others.
  std::optional<OnnxBatchGroups> batchGroups;
  /// The files beside the model holding externally stored initializers.
  OnnxExternalData external;
};

LogicalResult OnnxGraphReader::readOpset() {
  bool found = false;
  for (const onnx::OperatorSetIdProto &import : model.opset_import()) {
    if (!isDefaultDomain(import.domain()))
      continue;
    opset = import.version();
    found = true;
  }
  if (!found)
    return emitError(fileLoc) << "the model imports no ai.onnx opset";
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    return emitError(fileLoc) << "ai.onnx opset " << opset << " is not supported (fusec reads " << kMinOnnxOpset
                              << " to " << kMaxOnnxOpset << ")";
  return success();
}

LogicalResult OnnxGraphReader::checkOpTypes() {
  std::vector<std::string> unsupported;
  llvm::StringSet<> listed;
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto &node = model.graph().node(i);
    bool defaultDomain = isDefaultDomain(node.domain());
    if (defaultDomain && classifyOnnxOp(node.op_type()) != OnnxOpKind::Unsupported)
      continue;
    std::string type = defaultDomain ? node.op_type() : node.domain() + "." + node.op_type();
    if (listed.insert(type).second)
      unsupported.push_back(type + " (node '" + nodeName(node, i) + "')");
  }
  if (unsupported.empty())
    return success();
  return emitError(fileLoc) << "unsupported ONNX ops: " << llvm::join(unsupported, ", ");
}

LogicalResult OnnxGraphReader::readInitializers() {
  if (model.graph().sparse_initializer_size() > 0)
    return emitError(fileLoc) << "sparse initializers are not supported";
  for (const onnx::TensorProto &initializer : model.graph().initializer()) {
    auto tensor = readTensorProto(initializer, fileLoc, &external);
    if (failed(tensor))
      return failure();
    known[initializer.name()] = std::move(*tensor);
  }
  return success();
}

LogicalResult OnnxGraphReader::readInputs() {
  std::vector<std::pair<const onnx::ValueInfoProto *, std::vector<int64_t>>> runtimeInputs;
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    // Inputs that are also initializers are constants with a default value.
    if (known.count(input.name()))
      continue;
    auto fail = [&](const Twine &why) { return emitError(fileLoc) << "graph input '" << input.name() << "' " << why; };
    if (!input.type().has_tensor_type())
      return fail("is not a tensor");
    const onnx::TypeProto::Tensor &type = input.type().tensor_type();
    std::optional<DType> dtype = dtypeForOnnxType(type.elem_type());
    if (!dtype)
      return fail("has element type " + onnxTypeName(type.elem_type()) +
                  ", which fusec does not support (FLOAT, FLOAT16, BFLOAT16, INT64, INT32, INT8, UINT8 and BOOL are)");
    if (!type.has_shape())
      return fail("has no shape");
    std::vector<int64_t> shape;
    for (int d = 0; d < type.shape().dim_size(); ++d) {
      const onnx::TensorShapeProto::Dimension &dim = type.shape().dim(d);
      if (dim.has_dim_value()) {
        if (dim.dim_value() < 0)
          return fail("has dimension " + Twine(d) + " of size " + Twine(dim.dim_value()) +
                      " (sizes must be >= 0; name a batch dimension with dim_param)");
        shape.push_back(dim.dim_value());
        continue;
      }
      if (!dim.has_dim_param() || dim.dim_param().empty())
        return fail("has dimension " + Twine(d) + " without a size or a name");
      std::string error;
      std::optional<int64_t> size = dimensions.resolve(dim.dim_param(), error);
      if (!size)
        return fail("has " + error);
      shape.push_back(*size);
    }
    if (!isPlausibleShape(dimensions.atRangeMaximum(shape), /*allowBatch=*/true))
      return fail("has an implausibly large shape (more than " + Twine(kMaxTensorBytes) + " bytes per sample)");
    runtime.insert(input.name());
    graph.inputs.push_back({input.name(), shape, *dtype});
    runtimeInputs.emplace_back(&input, std::move(shape));
  }
  if (std::string unused = dimensions.unusedSizes(); !unused.empty())
    return emitError(fileLoc) << unused;
  graph.rangeNames = dimensions.rangeNames();
  shapes.emplace(model, dimensions);
  for (auto &[input, shape] : runtimeInputs)
    shapes->addInput(*input, std::move(shape));
  batchGroups.emplace(OnnxImportState{known, runtime, *shapes, graph, dimensions.batchSymbol(), opset,
                                      [this](StringRef tensor, Location loc) { return requireShape(tensor, loc); },
                                      [this](const std::string &name, Location loc) { return useConstant(name, loc); },
                                      dimensions.rangeNames()});
  return success();
}

LogicalResult OnnxGraphReader::define(const std::string &tensor, Location loc) {
  if (known.count(tensor) || runtime.contains(tensor))
    return emitError(loc) << "tensor '" << tensor << "' is defined more than once";
  return success();
}

LogicalResult OnnxGraphReader::useConstant(const std::string &name, Location loc) {
  const KnownTensor &tensor = known[name];
  if (!dtypeForOnnxType(tensor.elemType))
    return emitError(loc) << "tensor '" << name << "' has element type " << onnxTypeName(tensor.elemType)
                          << ", which fusec does not support at run time (FLOAT, FLOAT16, BFLOAT16, INT64, INT32, "
                             "INT8, UINT8 and BOOL are)";
  if (tensor.hasSymbols())
    return emitError(loc) << "tensor '" << name << "' holds sizes that depend on the batch size ("
                          << intsToString(tensor) << "), which have no value at import";
  if (usedConstantSet.insert(name).second)
    usedConstants.push_back(name);
  return success();
}

FailureOr<std::string> OnnxGraphReader::floatConstant(const std::string &name, const KnownTensor &tensor,
                                                      int32_t onnxType, Location loc) {
  auto values = tensor.staticInts();
  if (!values)
    return emitError(loc) << "input '" << name << "' holds sizes that depend on the batch size ("
                          << intsToString(tensor) << "), which have no value at import";
  std::string floatName = name + "@" + onnxTypeName(onnxType);
  if (!known.count(floatName)) {
    std::vector<float> floats;
    floats.reserve(values->size());
    for (int64_t value : *values)
      floats.push_back(roundToOnnxType(static_cast<float>(value), onnxType));
    known[floatName] = KnownTensor::ofFloats(tensor.shape, std::move(floats), onnxType);
  }
  return floatName;
}

FailureOr<std::vector<int64_t>> OnnxGraphReader::requireShape(StringRef tensor, Location loc) {
  if (auto it = known.find(tensor); it != known.end())
    return it->second.shape;
  auto shape = shapes->shapeOf(tensor);
  if (!shape)
    return emitError(loc) << "the shape of '" << tensor
                          << "' is not known at import (ONNX shape inference could not "
                             "determine it)";
  for (size_t d = 0; d < shape->size(); ++d)
    if ((*shape)[d] == RuntimeShapeInference::kUnknownDim)
      return emitError(loc) << "dimension " << d << " of '" << tensor
                            << "' is not known at import (only the batch size and dimensions given a range may vary)";
  // ONNX shape inference multiplies and broadcasts whatever dims a model
  // states; a shape no tensor could have is refused here, before any caller
  // multiplies its dims.
  std::vector<int64_t> perSample = dimensions.atRangeMaximum(*shape);
  for (int64_t &dim : perSample)
    dim = dim == kBatchDim ? 1 : dim;
  std::optional<int64_t> count = checkedElementCount(perSample);
  if (!count || *count > kMaxTensorBytes / static_cast<int64_t>(sizeof(float)))
    return emitError(loc) << "the shape ONNX shape inference gives '" << tensor
                          << "' has more elements than a tensor may hold";
  return *shape;
}

LogicalResult OnnxGraphReader::importNode(const onnx::NodeProto &node, const std::string &name) {
  Location loc = nodeLocation(context, path, name);
  // Every ONNX op has at least one output; what follows names results after
  // the first.
  if (node.output_size() == 0)
    return emitError(loc) << node.op_type() << " has no outputs";
  SmallVector<const KnownTensor *> knownInputs;
  const std::string *runtimeInput = nullptr;
  for (const std::string &input : node.input()) {
    if (input.empty()) {
      knownInputs.push_back(nullptr);
    } else if (auto it = known.find(input); it != known.end()) {
      knownInputs.push_back(&it->second);
    } else if (runtime.contains(input)) {
      knownInputs.push_back(nullptr);
      if (!runtimeInput)
        runtimeInput = &input;
    } else {
      return emitError(loc) << "input '" << input
                            << "' is not defined before this node (ONNX lists nodes in "
                               "topological order)";
    }
  }
  for (const std::string &output : node.output())
    if (!output.empty() && failed(define(output, loc)))
      return failure();

  const std::string &opType = node.op_type();
  OnnxOpKind kind = classifyOnnxOp(opType);
  if (kind == OnnxOpKind::ShapeQuery)
    return importShapeQuery(node, loc);
  // CastLike reads only its second input's element type: with known data it
  // folds as the Cast it stands for (run-time data is lowered to one).
  if (opType == "CastLike" && node.input_size() == 2 && knownInputs[0]) {
    if (std::optional<int32_t> like = shapes->elemTypeOf(node.input(1))) {
      onnx::NodeProto cast = node;
      cast.set_op_type("Cast");
      cast.mutable_input()->RemoveLast();
      cast.clear_attribute();
      onnx::AttributeProto &to = *cast.add_attribute();
      to.set_name("to");
      to.set_type(onnx::AttributeProto::INT);
      to.set_i(*like);
      auto results = foldOnnxNode(cast, opset, {knownInputs[0]}, loc);
      if (failed(results))
        return failure();
      known[node.output(0)] = std::move(results->front());
      return success();
    }
  }
  // An Expand to a size that depends on the batch (the class token's) is
  // computed at run time: its result has no value before the batch does.
  const bool expandsToBatch =
      opType == "Expand" && knownInputs.size() > 1 && knownInputs[1] && knownInputs[1]->hasSymbols();
  if (!runtimeInput && isFoldableOnnxOp(opType) && !expandsToBatch) {
    auto results = foldOnnxNode(node, opset, knownInputs, loc);
    if (failed(results))
      return failure();
    for (int i = 0; i < node.output_size() && i < static_cast<int>(results->size()); ++i)
      if (!node.output(i).empty())
        known[node.output(i)] = std::move((*results)[i]);
    return success();
  }
  if (kind == OnnxOpKind::ImportTime)
    return emitError(loc) << opType << " on run-time values is not supported: fusec evaluates " << opType
                          << " only at import, and its input '" << *runtimeInput << "' is only known at run time";
  return importRuntimeNode(node, name, loc);
}

LogicalResult OnnxGraphReader::importShapeQuery(const onnx::NodeProto &node, Location loc) {
  if (node.input_size() != 1 || node.output_size() != 1 || node.input(0).empty())
    return emitError(loc) << node.op_type() << " takes one input and has one output";
  // The ONNX shape: a dimension merging the batch with others is one.
  auto shape = batchGroups->logicalShape(node.input(0), loc);
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  if (node.op_type() == "Size") {
    // The element count: a multiple of the batch size when the shape has it.
    std::optional<DimExpr> count = DimExpr(1);
    for (const DimExpr &dim : *shape)
      if (count)
        count = DimExpr::mul(*count, dim);
    if (!count)
      return emitError(loc) << "Size of '" << node.input(0) << "' overflows 64-bit integers";
    known[node.output(0)] = KnownTensor::ofInts({}, std::vector<DimExpr>{*count});
    return success();
  }
  // Shape: `start` and `end` (opset 15) select a range of dimensions.
  auto start = getIntAttribute(node, "start", 0, loc);
  auto end = getIntAttribute(node, "end", rank, loc);
  if (failed(start) || failed(end))
    return failure();
  auto clampAxis = [&](int64_t axis) { return std::clamp<int64_t>(axis < 0 ? axis + rank : axis, 0, rank); };
  std::vector<DimExpr> dims;
  for (int64_t d = clampAxis(*start); d < clampAxis(*end); ++d)
    dims.push_back((*shape)[d]);
  int64_t count = dims.size();
  known[node.output(0)] = KnownTensor::ofInts({count}, std::move(dims));
  return success();
}

FailureOr<AttrValue> convertAttribute(const onnx::AttributeProto &attribute, StringRef opType, Location loc) {
  switch (attribute.type()) {
  case onnx::AttributeProto::INT:
    return AttrValue::ofInt(attribute.i());
  case onnx::AttributeProto::FLOAT:
    return AttrValue::ofFloat(attribute.f());
  case onnx::AttributeProto::STRING:
    return AttrValue::ofString(attribute.s());
  case onnx::AttributeProto::INTS:
    return AttrValue::ofInts({attribute.ints().begin(), attribute.ints().end()});
  case onnx::AttributeProto::FLOATS:
    return AttrValue::ofFloats({attribute.floats().begin(), attribute.floats().end()});
  default:
    return emitError(loc) << "attribute '" << attribute.name() << "' of " << opType << " holds a "
                          << onnx::AttributeProto::AttributeType_Name(attribute.type())
                          << ", which fusec does not support";
  }
}

/// The attribute value of a known tensor: integers as a list, a float
/// scalar as a number.
FailureOr<AttrValue> attributeFromTensor(const KnownTensor &tensor, StringRef what, Location loc) {
  if (tensor.isFloat()) {
    if (tensor.floats.size() == 1)
      return AttrValue::ofFloat(tensor.floats.front());
    return AttrValue::ofFloats({tensor.floats.begin(), tensor.floats.end()});
  }
  auto values = tensor.staticInts();
  if (!values)
    return emitError(loc) << "the " << what << " is " << intsToString(tensor) << ", which depends on the batch size";
  return AttrValue::ofInts(std::move(*values));
}

LogicalResult OnnxGraphReader::importBatchReshape(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc) {
  if (node.opType != "Reshape" || node.inputs.size() < 2 || !runtime.contains(node.inputs[0]))
    return success();
  // ONNX's shape inference lacks some ops (Gelu-20 in the onnx library
  // fusec links): without the input's shape, reshapeTarget handles the
  // target as it is.
  std::optional<std::vector<int64_t>> from = shapes->shapeOf(node.inputs[0]);
  if (!from || llvm::is_contained(*from, RuntimeShapeInference::kUnknownDim) ||
      llvm::none_of(*from, [](int64_t dim) { return dim == kBatchDim || rangeIndexOf(dim); }))
    return success();
  auto it = known.find(node.inputs[1]);
  if (it == known.end() || !it->second.isInt())
    return emitError(loc) << "Reshape input 1 ('shape') must be a constant known at import, but '" << node.inputs[1]
                          << "' is computed at run time";
  auto logical = batchGroups->logicalShape(node.inputs[0], loc);
  if (failed(logical))
    return failure();
  auto allowZero = node.attrs.find("allowzero");
  const bool zeroIsSize =
      allowZero != node.attrs.end() && allowZero->second.kind == AttrValue::Kind::Int && allowZero->second.i == 1;
  if (zeroIsSize && llvm::is_contained(it->second.ints, DimExpr(0)))
    return emitError(loc) << "Reshape with allowzero = 1: the shape's 0 makes an empty tensor, which fusec does not "
                             "compute";
  std::string error;
  std::optional<std::vector<DimExpr>> target = resolveReshape(*logical, it->second.ints, zeroIsSize, error);
  if (!target)
    return emitError(loc) << "Reshape of '" << node.inputs[0] << "': " << error;
  if (llvm::is_contained(*target, DimExpr(0)))
    return emitError(loc) << "Reshape to an empty tensor is not supported";
  return batchGroups->reshapeTo(node, inferenceNode, *target, loc);
}

FailureOr<std::optional<int64_t>> OnnxGraphReader::batchOrStatic(const DimExpr &dim, const std::string &what,
                                                                 Location loc) const {
  if (std::optional<int64_t> value = dim.constant())
    return value;
  if (dim == dimExpr(kBatchDim))
    return std::optional<int64_t>();
  return emitError(loc) << what << " has the size " << dim.str()
                        << ", which a fuse tensor cannot hold: its one dynamic dimension is the batch size itself, "
                           "not merged with other dimensions (give the batch a size to compile it: fusec --dim "
                        << dimensions.batchSymbol() << "=N)";
}

FailureOr<AttrValue> OnnxGraphReader::reshapeTarget(const KnownTensor &shape, const GraphNode &node, Location loc) {
  if (!shape.isInt())
    return emitError(loc) << "Reshape's shape must be integers";
  const StringRef data = node.inputs[0];
  // allowzero = 1 (opset 14; PyTorch's exporter sets it on every Reshape):
  // a 0 is a dimension of size 0, not a copy of the input's. Without a 0 in
  // the shape both mean the same; the target below uses fusec's 0 (copy).
  auto allowZero = node.attrs.find("allowzero");
  if (allowZero != node.attrs.end() && allowZero->second.kind == AttrValue::Kind::Int && allowZero->second.i == 1 &&
      llvm::any_of(shape.ints, [](const DimExpr &dim) { return dim == DimExpr(0); }))
    return emitError(loc) << "Reshape with allowzero = 1: the shape's 0 makes an empty tensor, which fusec does not "
                             "compute";
  std::vector<int64_t> target;
  std::optional<size_t> batchAt;
  for (const DimExpr &dim : shape.ints) {
    auto size = batchOrStatic(dim, "the new shape " + intsToString(shape), loc);
    if (failed(size))
      return failure();
    if (!*size && batchAt)
      return emitError(loc) << "the new shape " << intsToString(shape) << " holds the batch size more than once";
    if (!*size)
      batchAt = target.size();
    target.push_back(size->value_or(kBatchDim));
  }
  if (!batchAt)
    return AttrValue::ofInts(std::move(target));
  // 0 copies the batch dimension when the input has it at the same index;
  // -1 infers it anywhere, unless the shape already infers another entry.
  auto from = shapes->shapeOf(data);
  if (from && *batchAt < from->size() && (*from)[*batchAt] == kBatchDim) {
    target[*batchAt] = 0;
  } else if (llvm::is_contained(target, -1)) {
    return emitError(loc) << "the batch size is entry " << *batchAt
                          << " of the new shape, which fusec cannot express: the input "
                             "does not have it there and the shape already infers a "
                             "dimension (-1)";
  } else {
    target[*batchAt] = -1;
  }
  return AttrValue::ofInts(std::move(target));
}

FailureOr<AttrValue> OnnxGraphReader::expandTarget(const KnownTensor &shape, StringRef data, Location loc,
                                                   std::vector<std::string> &symbols) {
  if (!shape.isInt())
    return emitError(loc) << "Expand's shape must be integers";
  if (!shape.hasSymbols())
    return AttrValue::ofInts(*shape.staticInts());
  // The batch size in the target: the input's batch dimension, or a size-1
  // dimension broadcast to the batch.
  auto from = shapes->shapeOf(data);
  std::vector<int64_t> target;
  const std::vector<std::string> ranges = dimensions.rangeNames();
  for (size_t i = 0; i < shape.ints.size(); ++i) {
    size_t fromRank = from ? from->size() : 0;
    size_t aligned = i + fromRank;
    const std::optional<int64_t> fromDim = from && aligned >= shape.ints.size()
                                               ? std::optional<int64_t>((*from)[aligned - shape.ints.size()])
                                               : std::nullopt;
    // A range's dimension: kept where the input holds it (1), else named.
    if (auto range = std::find_if(ranges.begin(), ranges.end(),
                                  [&](const std::string &name) { return shape.ints[i] == DimExpr::symbol(name); });
        range != ranges.end()) {
      if (fromDim && *fromDim == rangeDim(static_cast<size_t>(range - ranges.begin()))) {
        target.push_back(1);
        continue;
      }
      auto known = std::find(symbols.begin(), symbols.end(), *range);
      if (known == symbols.end())
        known = symbols.insert(symbols.end(), *range);
      target.push_back(-2 - static_cast<int64_t>(known - symbols.begin()));
      continue;
    }
    auto dim = batchOrStatic(shape.ints[i], "Expand's shape " + intsToString(shape), loc);
    if (failed(dim))
      return failure();
    bool inputHasBatch = fromDim == kBatchDim;
    // 1 keeps an input's batch dimension; -1 broadcasts a 1 to the batch
    // size (a class token expanded over the batch).
    target.push_back(!*dim ? (inputHasBatch ? 1 : -1) : **dim);
  }
  return AttrValue::ofInts(std::move(target));
}

FailureOr<AttrValue> OnnxGraphReader::importTimeAttribute(GraphNode &node, const ImportTimeInput &entry,
                                                          const KnownTensor &tensor, Location loc) {
  if (node.opType == "Reshape")
    return reshapeTarget(tensor, node, loc);
  if (node.opType == "Expand") {
    std::vector<std::string> symbols;
    auto target = expandTarget(tensor, node.inputs[0], loc, symbols);
    if (succeeded(target) && !symbols.empty())
      node.attrs["symbols"] = AttrValue::ofString(llvm::join(symbols, ","));
    return target;
  }
  if (node.opType == "Resize" && StringRef(entry.attribute) == "sizes" && tensor.isInt()) {
    // Sizes built from Shape(x) hold the batch size: Resize keeps it (-1).
    std::vector<int64_t> sizes;
    sizes.reserve(tensor.ints.size());
    for (const DimExpr &dim : tensor.ints) {
      auto size = batchOrStatic(dim, "Resize's sizes " + intsToString(tensor), loc);
      if (failed(size))
        return failure();
      sizes.push_back(size->value_or(-1));
    }
    return AttrValue::ofInts(std::move(sizes));
  }
  if (node.opType == "Slice" && StringRef(entry.attribute) == "ends" && tensor.isInt()) {
    // x[:batch] along the batch axis is "to the end", as INT64_MAX is. An
    // end that is a range's dimension (x[:seq]) is named in "ends_symbols",
    // one entry per end ("" for the others), for buildSlice.
    std::vector<int64_t> ends;
    ends.reserve(tensor.ints.size());
    const std::vector<std::string> ranges = dimensions.rangeNames();
    std::vector<std::string> named(tensor.ints.size());
    for (const DimExpr &dim : tensor.ints) {
      auto range = std::find_if(ranges.begin(), ranges.end(),
                                [&](const std::string &name) { return dim == DimExpr::symbol(name); });
      if (range != ranges.end()) {
        named[ends.size()] = *range;
        ends.push_back(0);
        continue;
      }
      auto end = batchOrStatic(dim, "Slice's ends " + intsToString(tensor), loc);
      if (failed(end))
        return failure();
      ends.push_back(end->value_or(rules::kSliceToEnd));
    }
    if (llvm::any_of(named, [](const std::string &name) { return !name.empty(); }))
      node.attrs["ends_symbols"] = AttrValue::ofString(llvm::join(named, ","));
    return AttrValue::ofInts(std::move(ends));
  }
  return attributeFromTensor(tensor, entry.attribute, loc);
}

LogicalResult OnnxGraphReader::convertImportTimeInputs(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc) {
  size_t tensorInputs = node.inputs.size();
  for (const ImportTimeInput &entry : kImportTimeInputs) {
    if (!entry.appliesTo(node.opType, opset))
      continue;
    tensorInputs = std::min(tensorInputs, entry.index);
    if (entry.index >= node.inputs.size() || node.inputs[entry.index].empty())
      continue;
    const std::string &tensorName = node.inputs[entry.index];
    auto it = known.find(tensorName);
    if (it == known.end())
      return emitError(loc) << node.opType << " input " << entry.index << " ('" << entry.attribute
                            << "') must be a constant known at import, but '" << tensorName
                            << "' is computed at run time";
    const KnownTensor &tensor = it->second;
    auto value = importTimeAttribute(node, entry, tensor, loc);
    if (failed(value))
      return failure();
    node.attrs[entry.attribute] = *value;
    // OneHot's output has its values' element type, which the numbers of
    // the attribute do not carry.
    if (node.opType == "OneHot" && StringRef(entry.attribute) == "values")
      if (std::optional<DType> dtype = dtypeForOnnxType(tensor.elemType))
        node.attrs["values_dtype"] = AttrValue::ofString(runtime::elementTypeName(*dtype));
    if (!tensor.hasSymbols()) {
      shapes->addConstant(tensorName, tensor);
      continue;
    }
    // ONNX shape inference sees the target fusec uses, 0 or -1 for the batch,
    // except for an Expand to the batch size, which ONNX cannot express: its
    // shape stays unknown to ONNX, and what needs it later says so.
    std::string inferenceName = tensorName + "@" + node.name;
    if (node.opType == "Expand" && llvm::any_of(value->ints, [](int64_t dim) { return dim < 0; })) {
      // The range dimensions the target names (expandTarget), as codes.
      std::vector<int64_t> named;
      if (auto symbols = node.attrs.find("symbols"); symbols != node.attrs.end()) {
        const std::vector<std::string> ranges = dimensions.rangeNames();
        for (StringRef name : llvm::split(symbols->second.s, ','))
          named.push_back(
              rangeDim(static_cast<size_t>(std::find(ranges.begin(), ranges.end(), name.str()) - ranges.begin())));
      }
      inferenceNode.set_input(entry.index, inferenceName);
      // fusec knows the result: the target broadcast with the input, the
      // batch where the target has -1.
      auto data = known.find(node.inputs[0]);
      if (std::optional<std::vector<int64_t>> from =
              data != known.end() ? std::optional(data->second.shape) : shapes->shapeOf(node.inputs[0])) {
        std::vector<int64_t> result = value->ints;
        const size_t rank = std::max(result.size(), from->size());
        result.insert(result.begin(), rank - result.size(), 1);
        bool complete = true;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t own = d + from->size() >= rank ? (*from)[d + from->size() - rank] : 1;
          complete &= own != RuntimeShapeInference::kUnknownDim;
          if (result[d] == -1)
            result[d] = kBatchDim;
          else if (result[d] < -1 && static_cast<size_t>(-2 - result[d]) < named.size())
            result[d] = named[static_cast<size_t>(-2 - result[d])];
          else if (result[d] == 1)
            result[d] = own;
        }
        if (complete && node.outputs.size() == 1)
          shapes->declareShape(node.outputs[0], result,
                               data != known.end()
                                   ? data->second.elemType
                                   : shapes->elemTypeOf(node.inputs[0]).value_or(onnx::TensorProto::FLOAT));
      }
      continue;
    }
    shapes->addConstant(inferenceName, KnownTensor::ofInts({static_cast<int64_t>(value->ints.size())}, value->ints));
    inferenceNode.set_input(entry.index, inferenceName);
  }
  node.inputs.resize(tensorInputs);
  return success();
}

LogicalResult OnnxGraphReader::lowerNode(GraphNode &node, onnx::NodeProto &inferenceNode, Location loc) {
  if (node.opType == "Pad" && node.attrs.count("axes")) {
    // Pads for the listed axes only (opset 18): expand to every axis.
    auto shape = shapes->shapeOf(node.inputs[0]);
    if (!shape)
      return emitError(loc) << "Pad with 'axes' needs the rank of '" << node.inputs[0] << "'";
    int64_t rank = shape->size();
    std::vector<int64_t> axes = node.attrs["axes"].ints, pads = node.attrs["pads"].ints;
    if (pads.size() != 2 * axes.size())
      return emitError(loc) << "Pad needs two pads per axis";
    std::vector<int64_t> full(2 * rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] < -rank || axes[i] >= rank)
        return emitError(loc) << "Pad axis " << axes[i] << " is out of range for rank " << rank;
      int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      full[axis] = pads[i];
      full[axis + rank] = pads[i + axes.size()];
    }
    node.attrs["pads"] = AttrValue::ofInts(std::move(full));
    node.attrs.erase("axes");
    return success();
  }
  if (node.opType == "Squeeze" || node.opType == "Unsqueeze") {
    auto from = requireShape(node.inputs[0], loc);
    if (failed(from))
      return failure();
    std::optional<std::vector<int64_t>> axes;
    if (node.attrs.count("axes"))
      axes = node.attrs["axes"].ints;
    if (node.opType == "Unsqueeze" && !axes)
      return emitError(loc) << "Unsqueeze needs 'axes'";
    // On the ONNX shape, where a size other than a number (the batch, or a
    // dimension merging it) stands in as kBatchDim, which is never squeezed.
    auto logical = batchGroups->logicalShape(node.inputs[0], loc);
    if (failed(logical))
      return failure();
    std::vector<int64_t> proxy;
    std::vector<DimExpr> symbolic;
    for (const DimExpr &dim : *logical) {
      proxy.push_back(dim.isConstant() ? dim.constantTerm() : kBatchDim);
      if (!dim.isConstant())
        symbolic.push_back(dim);
    }
    auto to = node.opType == "Squeeze" ? squeezeShape(proxy, axes, loc) : unsqueezeShape(proxy, *axes, loc);
    if (failed(to))
      return failure();
    if (!symbolic.empty()) {
      std::vector<DimExpr> target;
      size_t next = 0;
      for (int64_t dim : *to)
        target.push_back(dim == kBatchDim ? symbolic[next++] : DimExpr(dim));
      return batchGroups->reshapeTo(node, inferenceNode, target, loc);
    }
    node.opType = "Reshape";
    node.attrs = {{"shape", AttrValue::ofInts(reshapeTargetFor(*from, *to))}};
    return success();
  }
  if (node.opType == "Dropout") {
    // Inference: the output is the input, and there is no mask to return.
    auto training = node.attrs.find("training_mode");
    if (training != node.attrs.end() && llvm::is_contained(training->second.ints, 1))
      return emitError(loc) << "Dropout in training mode is not supported";
    if (node.outputs.size() > 1)
      return emitError(loc) << "Dropout's mask output is not supported";
    node.opType = "Identity";
    node.attrs.clear();
    return success();
  }
  if (node.opType == "CastLike") {
    // A Cast to the element type of the second input, whose values are
    // never read.
    std::optional<int32_t> like = node.inputs.size() == 2 ? shapes->elemTypeOf(node.inputs[1]) : std::nullopt;
    if (!like)
      return emitError(loc) << "CastLike needs the element type of its second input";
    node.opType = "Cast";
    node.inputs.resize(1);
    node.attrs.clear();
    node.attrs["to"] = AttrValue::ofInt(*like);
  }
  if (node.opType == "Cast") {
    // fuse.cast names its target as plans do; `saturate` (opset 19) only
    // concerns float8 targets, which fusec does not have.
    auto to = node.attrs.find("to");
    if (to == node.attrs.end() || to->second.kind != AttrValue::Kind::Int)
      return emitError(loc) << "Cast needs an integer attribute 'to'";
    std::optional<DType> dtype = dtypeForOnnxType(static_cast<int32_t>(to->second.i));
    if (!dtype)
      return emitError(loc)
             << "Cast to " << onnxTypeName(static_cast<int32_t>(to->second.i))
             << " is not supported (fusec casts to FLOAT, FLOAT16, BFLOAT16, INT64, INT32, INT8, UINT8 and BOOL)";
    // A Cast to the type its input already has is the identity (as f32
    // models exported with a Cast to FLOAT had it before fuse.cast existed).
    int32_t from = node.inputs.empty() || node.inputs[0].empty()
                       ? onnx::TensorProto::UNDEFINED
                       : shapes->elemTypeOf(node.inputs[0]).value_or(onnx::TensorProto::UNDEFINED);
    node.opType = from == to->second.i ? "Identity" : "Cast";
    node.attrs.clear();
    if (node.opType == "Cast")
      node.attrs["to"] = AttrValue::ofString(runtime::elementTypeName(*dtype));
  }
  return success();
}

LogicalResult OnnxGraphReader::importRuntimeNode(const onnx::NodeProto &node, const std::string &name, Location loc) {
  // Every op fusec computes at run time has a required first output; the
  // rewrites below name their results after it.
  if (node.output(0).empty())
    return emitError(loc) << node.op_type() << " has no first output";
  GraphNode graphNode;
  graphNode.name = name;
  graphNode.opType = node.op_type();
  graphNode.opset = opset;
  graphNode.inputs.assign(node.input().begin(), node.input().end());
  graphNode.outputs.assign(node.output().begin(), node.output().end());
  // Outputs nobody reads (BatchNormalization's training statistics, MaxPool's
  // indices, ...) are dropped: fuse ops compute the inference form only.
  // Split's part sizes may follow from its output count, so it keeps them all.
  while (graphNode.outputs.size() > 1 && graphNode.opType != "Split" && !consumed.contains(graphNode.outputs.back()))
    graphNode.outputs.pop_back();
  for (const onnx::AttributeProto &attribute : node.attribute()) {
    auto value = convertAttribute(attribute, node.op_type(), loc);
    if (failed(value))
      return failure();
    graphNode.attrs[attribute.name()] = std::move(*value);
  }
  onnx::NodeProto inferenceNode = node;
  if (failed(batchGroups->checkSupported(graphNode, loc)) ||
      failed(importBatchReshape(graphNode, inferenceNode, loc)) ||
      failed(convertImportTimeInputs(graphNode, inferenceNode, loc)) ||
      failed(lowerNode(graphNode, inferenceNode, loc)) || failed(batchGroups->rewrite(graphNode, inferenceNode, loc)))
    return failure();

  // The float type the node computes in: that of its first run-time input
  // (asked only when needed: each question may run ONNX shape inference).
  // With no run-time input, the type of its first float constant; an
  // integer-only node keeps its integers (and the fuse op refuses them).
  auto computeType = [&]() -> int32_t {
    for (const std::string &input : graphNode.inputs)
      if (!input.empty() && runtime.contains(input))
        return shapes->elemTypeOf(input).value_or(onnx::TensorProto::FLOAT);
    for (const std::string &input : graphNode.inputs)
      if (auto it = known.find(input); !input.empty() && it != known.end() && it->second.isFloat())
        return it->second.elemType;
    return onnx::TensorProto::UNDEFINED;
  };
  for (std::string &input : graphNode.inputs) {
    auto it = known.find(input);
    if (input.empty() || it == known.end())
      continue;
    shapes->addConstant(input, it->second);
    if (it->second.isInt() && !takesIntegerOperands(graphNode.opType)) {
      // ONNX gives float and integer operands one type, except Pow's
      // exponent; fuse ops compute it in the node's float type. Integer
      // operands of integer tensors stay integers (and fuse ops refuse them),
      // as do those of the ops that compare, combine and select integers.
      int32_t type = computeType();
      if (type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 ||
          type == onnx::TensorProto::BFLOAT16) {
        auto asFloat = floatConstant(input, it->second, type, loc);
        if (failed(asFloat))
          return failure();
        input = *asFloat;
      }
    }
    if (failed(useConstant(input, loc)))
      return failure();
  }
  for (const std::string &output : graphNode.outputs)
    if (!output.empty())
      runtime.insert(output);
  // The onnx library fusec links may predate an op's shape inference (Gelu,
  // opset 20): its output has its input's shape.
  if (graphNode.opType == "Gelu" && !graphNode.inputs.empty() && graphNode.outputs.size() == 1)
    if (std::optional<std::vector<int64_t>> shape = shapes->shapeOf(graphNode.inputs[0]))
      shapes->declareShape(graphNode.outputs[0], *shape,
                           shapes->elemTypeOf(graphNode.inputs[0]).value_or(onnx::TensorProto::FLOAT));
  shapes->addNode(inferenceNode);
  graph.nodes.push_back(std::move(graphNode));
  return success();
}

LogicalResult OnnxGraphReader::readOutputs() {
  for (const onnx::ValueInfoProto &output : model.graph().output()) {
    const std::string &name = output.name();
    int32_t declared = output.type().tensor_type().elem_type();
    if (declared != onnx::TensorProto::UNDEFINED) {
      std::optional<DType> dtype = dtypeForOnnxType(declared);
      if (!dtype)
        return emitError(fileLoc) << "graph output '" << name << "' has element type " << onnxTypeName(declared)
                                  << ", which fusec does not support (FLOAT, FLOAT16, BFLOAT16, INT64, INT32 and "
                                     "BOOL are)";
      // GraphBuilder compares it with the type the nodes compute.
      graph.declaredOutputTypes[name] = *dtype;
    }
    if (auto it = known.find(name); it != known.end()) {
      // The graph returns only values nodes compute: an Identity returns the
      // folded constant.
      std::string constantName = name + "@constant";
      known[constantName] = it->second;
      if (failed(useConstant(constantName, fileLoc)))
        return failure();
      GraphNode identity;
      identity.name = name + "@identity";
      identity.opType = "Identity";
      identity.opset = opset;
      identity.inputs = {constantName};
      identity.outputs = {name};
      graph.nodes.push_back(std::move(identity));
    } else if (!runtime.contains(name)) {
      return emitError(fileLoc) << "graph output '" << name << "' is not computed by any node";
    } else if (std::optional<BatchGroup> group = batchGroups->groupOf(name)) {
      auto shape = batchGroups->logicalShape(name, fileLoc);
      return emitError(fileLoc) << "graph output '" << name << "' has dimension " << group->axis << " of size "
                                << (succeeded(shape) ? (*shape)[group->axis].str() : std::string("?"))
                                << ", which merges the batch size with other dimensions: a plan's outputs hold "
                                   "the batch as a dimension of its own";
    }
    graph.outputs.push_back(name);
  }
  return success();
}

FailureOr<Graph> OnnxGraphReader::read() {
  graph.sourcePath = path;
  if (failed(readOpset()) || failed(checkOpTypes()) || failed(readInitializers()) || failed(readInputs()))
    return failure();
  for (const onnx::NodeProto &node : model.graph().node())
    for (const std::string &input : node.input())
      consumed.insert(input);
  for (const onnx::ValueInfoProto &output : model.graph().output())
    consumed.insert(output.name());
  for (int i = 0; i < model.graph().node_size(); ++i)
    if (failed(importNode(model.graph().node(i), nodeName(model.graph().node(i), i))))
      return failure();
  if (failed(readOutputs()))
    return failure();
  for (const std::string &name : usedConstants) {
    KnownTensor &tensor = known[name];
    GraphConstant constant;
    constant.name = name;
    constant.shape = tensor.shape;
    constant.dtype = *dtypeForOnnxType(tensor.elemType); // useConstant checked it
    if (tensor.isFloat())
      constant.data = std::move(tensor.floats);
    else
      constant.ints = *tensor.staticInts();
    graph.constants.push_back(std::move(constant));
  }
  return std::move(graph);
}

} // namespace

OnnxOpKind classifyOnnxOp(StringRef opType) {
  if (isShapeQueryOp(opType))
    return OnnxOpKind::ShapeQuery;
  if (isSupportedOnnxOp(opType) || isLoweredOp(opType))
    return OnnxOpKind::Compute;
  if (isFoldableOnnxOp(opType))
    return OnnxOpKind::ImportTime;
  return OnnxOpKind::Unsupported;
}

std::vector<std::string> readableOnnxOps() {
  std::vector<std::string> names = supportedOnnxOps();
  for (const std::string &name : foldableOnnxOps())
    names.push_back(name);
  for (const char *name : {"Dropout", "Squeeze", "Unsqueeze", "CastLike", "Shape", "Size"})
    names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  assert(llvm::all_of(names, [](const std::string &name) { return classifyOnnxOp(name) != OnnxOpKind::Unsupported; }));
  return names;
}

bool isImportTimeInput(StringRef opType, int64_t opset, size_t index) {
  return llvm::any_of(kImportTimeInputs, [&](const ImportTimeInput &entry) {
    return entry.appliesTo(opType, opset) && index == entry.index;
  });
}

FailureOr<Graph> readOnnxGraph(const onnx::ModelProto &model, StringRef sourceName, MLIRContext &context,
                               const DimensionSizes &sizes) {
  return OnnxGraphReader(model, sourceName, context, sizes).read();
}

FailureOr<Graph> readOnnxGraph(StringRef path, MLIRContext &context, const DimensionSizes &sizes) {
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(fileLoc) << "cannot read: " << buffer.getError().message();
  StringRef bytes = (*buffer)->getBuffer();
  // Protobuf parses at most 2 GiB; larger models keep their weights in
  // external data files (OnnxExternalData.h).
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return emitError(fileLoc) << "the model file is over 2 GiB, protobuf's limit (store the weights as external data)";
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return emitError(fileLoc) << "not an ONNX model: the file does not parse as an "
                                 "onnx.ModelProto";
  // Protobuf skips fields it does not know, so some foreign bytes parse.
  if (!model.has_graph() || model.opset_import_size() == 0)
    return emitError(fileLoc) << "not an ONNX model: it has no graph or no opset import";
  return readOnnxGraph(model, path, context, sizes);
}

OwningOpRef<ModuleOp> importOnnxModel(const onnx::ModelProto &model, StringRef sourceName, MLIRContext &context,
                                      const DimensionSizes &sizes) {
  auto graph = readOnnxGraph(model, sourceName, context, sizes);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

OwningOpRef<ModuleOp> importOnnxModel(StringRef path, MLIRContext &context, const DimensionSizes &sizes) {
  auto graph = readOnnxGraph(path, context, sizes);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

} // namespace fusec::import
