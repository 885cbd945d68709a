//===- OnnxConstantFolding.cpp - Evaluate ONNX nodes at import ------------===//
#include "compiler/import/OnnxConstantFolding.h"
#include "compiler/import/Graph.h"
#include "compiler/import/OnnxProtoUtils.h"
#include "ir/ShapeUtils.h"
#include "support/CheckedMath.h"
#include "support/ScalarOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

using namespace mlir;

namespace fusec::import {
namespace {

using Shape = std::vector<int64_t>;
using Results = std::vector<KnownTensor>;

/// Folding materialises a constant in the compiler's memory, from inputs
/// that may be a few bytes (ConstantOfShape, Range, a broadcasting Add), so a
/// small hostile model must not exhaust memory or time through it. Float
/// tensors become weights: at most 2^26 (256 MiB). Integer tensors only feed
/// shapes, axes, pads and indices, and every element may become an attribute
/// entry: at most 2^18, far beyond any of those (fusec-fuzz-onnx found a
/// 7 KB model folding 2^20 pads that took seconds to reject).
constexpr int64_t kMaxFoldedFloats = int64_t(1) << 26;
constexpr int64_t kMaxFoldedInts = int64_t(1) << 18;

int64_t foldLimit(KnownTensor::Kind kind) {
  return kind == KnownTensor::Kind::Float ? kMaxFoldedFloats : kMaxFoldedInts;
}

/// Whether a folded tensor of `count` elements of `kind` is within its limit.
bool fitsFoldLimit(int64_t count, KnownTensor::Kind kind) { return count >= 0 && count <= foldLimit(kind); }

/// "67108864 floats" or "262144 integers", for diagnostics.
std::string foldLimitText(KnownTensor::Kind kind) {
  return std::to_string(foldLimit(kind)) + (kind == KnownTensor::Kind::Float ? " floats" : " integers");
}

Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `visit(flatIndex, index)` for every element of `shape` in C order.
template <typename Visitor> void forEachIndex(ArrayRef<int64_t> shape, Visitor visit) {
  int64_t count = numElements(shape);
  Shape index(shape.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    visit(flat, ArrayRef<int64_t>(index));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// A tensor of `source`'s kind holding its elements at the flat `indices`:
/// every layout op (Gather, Slice, Transpose, ...) is one such selection.
KnownTensor takeElements(const KnownTensor &source, Shape shape, ArrayRef<int64_t> indices) {
  KnownTensor result;
  result.kind = source.kind;
  result.elemType = source.elemType;
  result.shape = std::move(shape);
  for (int64_t index : indices) {
    if (source.isFloat())
      result.floats.push_back(source.floats[index]);
    else
      result.ints.push_back(source.ints[index]);
  }
  return result;
}

KnownTensor withShape(KnownTensor tensor, Shape shape) {
  tensor.shape = std::move(shape);
  return tensor;
}

/// For each element of the broadcast result of `shapes` (numpy rules, C
/// order), the flat index it reads in each input.
struct Broadcast {
  Shape shape;
  std::vector<std::vector<int64_t>> indices; ///< [input][element]
};

/// Evaluates one node. Each fold method checks the inputs it reads.
class NodeFolder {
public:
  NodeFolder(const onnx::NodeProto &node, int64_t opset, ArrayRef<const KnownTensor *> inputs, Location loc)
      : node(node), opset(opset), inputs(inputs), loc(loc) {}

  using Method = FailureOr<Results> (NodeFolder::*)();
  static const llvm::StringMap<Method> &methods();

  FailureOr<Results> fold() { return (this->*methods().lookup(node.op_type()))(); }

private:
  InFlightDiagnostic error() { return emitError(loc) << node.op_type() << " cannot be evaluated at import: "; }
  const KnownTensor *input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  FailureOr<const KnownTensor *> required(size_t i) {
    if (!input(i))
      return error() << "input " << i << " is required";
    return input(i);
  }
  /// Input `i` as integers without the batch size (axes, shapes, indices).
  FailureOr<Shape> staticInts(size_t i, StringRef what) {
    auto tensor = required(i);
    if (failed(tensor))
      return failure();
    if (!(*tensor)->isInt())
      return error() << "the " << what << " (input " << i << ") must be integers";
    auto values = (*tensor)->staticInts();
    if (!values)
      return error() << "the " << what << " (input " << i << ") is " << intsToString(**tensor)
                     << ", which depends on the batch size";
    return *values;
  }
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, bool inclusiveEnd = false) {
    int64_t limit = inclusiveEnd ? rank + 1 : rank;
    int64_t normalized = axis < 0 ? axis + rank : axis;
    if (normalized < 0 || normalized >= limit)
      return error() << "axis " << axis << " is out of range for rank " << rank;
    return normalized;
  }
  FailureOr<int64_t> intAttribute(StringRef name, int64_t defaultValue) {
    return getIntAttribute(node, name, defaultValue, loc);
  }
  /// Squeeze and Unsqueeze axes: an attribute before opset 13, an
  /// optional input since.
  FailureOr<std::optional<Shape>> axesArgument() {
    if (opset < 13)
      return getIntsAttribute(node, "axes", loc);
    if (!input(1))
      return std::optional<Shape>();
    auto axes = staticInts(1, "axes");
    if (failed(axes))
      return failure();
    return std::optional<Shape>(std::in_place, axes->begin(), axes->end());
  }

  FailureOr<Results> foldConstant();
  FailureOr<Results> foldIdentity() {
    auto data = required(0);
    if (failed(data))
      return failure();
    return Results{**data};
  }
  FailureOr<Results> foldCast();
  FailureOr<Results> foldConstantOfShape();
  /// The scale's and zero point's index for each element of input 0
  /// (per tensor: 0; per axis: the coordinate along `axis`).
  FailureOr<std::vector<int64_t>> quantizationIndices(const KnownTensor &data, const KnownTensor &scale);
  FailureOr<Results> foldDequantizeLinear();
  FailureOr<Results> foldQuantizeLinear();
  FailureOr<Results> foldGather();
  FailureOr<Results> foldSqueeze();
  FailureOr<Results> foldUnsqueeze();
  FailureOr<Results> foldConcat();
  FailureOr<Results> foldSlice();
  FailureOr<Results> foldReshape();
  FailureOr<Results> foldFlatten();
  FailureOr<Results> foldTranspose();
  FailureOr<Results> foldRange();
  FailureOr<Results> foldScatterND();
  FailureOr<Broadcast> broadcast(ArrayRef<const KnownTensor *> operands);
  FailureOr<Results> foldArithmetic();
  FailureOr<Results> foldComparison();
  FailureOr<Results> foldWhere();
  FailureOr<Results> foldExpand();
  FailureOr<Results> foldTrilu();
  FailureOr<Results> foldUnary();
  FailureOr<DimExpr> applyInt(const DimExpr &lhs, const DimExpr &rhs, bool fmod);
  float applyFloat(float lhs, float rhs, bool fmod) const;

  const onnx::NodeProto &node;
  int64_t opset;
  ArrayRef<const KnownTensor *> inputs;
  Location loc;
};

const llvm::StringMap<NodeFolder::Method> &NodeFolder::methods() {
  static const llvm::StringMap<Method> table = {
      {"Constant", &NodeFolder::foldConstant},
      {"Identity", &NodeFolder::foldIdentity},
      {"Cast", &NodeFolder::foldCast},
      {"ConstantOfShape", &NodeFolder::foldConstantOfShape},
      // Quantized weights: a QDQ model's int8 initializers (and int32
      // biases) behind DequantizeLinear become f32 constants.
      {"DequantizeLinear", &NodeFolder::foldDequantizeLinear},
      {"QuantizeLinear", &NodeFolder::foldQuantizeLinear},
      {"Gather", &NodeFolder::foldGather},
      {"Squeeze", &NodeFolder::foldSqueeze},
      {"Unsqueeze", &NodeFolder::foldUnsqueeze},
      {"Concat", &NodeFolder::foldConcat},
      {"Slice", &NodeFolder::foldSlice},
      {"Reshape", &NodeFolder::foldReshape},
      {"Flatten", &NodeFolder::foldFlatten},
      {"Transpose", &NodeFolder::foldTranspose},
      {"Range", &NodeFolder::foldRange},
      {"ScatterND", &NodeFolder::foldScatterND},
      {"Expand", &NodeFolder::foldExpand},
      {"Trilu", &NodeFolder::foldTrilu},
      // Shape arithmetic, symbolic where an operand mentions the batch size.
      {"Add", &NodeFolder::foldArithmetic},
      {"Sub", &NodeFolder::foldArithmetic},
      {"Mul", &NodeFolder::foldArithmetic},
      {"Div", &NodeFolder::foldArithmetic},
      {"Mod", &NodeFolder::foldArithmetic},
      {"Max", &NodeFolder::foldArithmetic},
      {"Min", &NodeFolder::foldArithmetic},
      {"Equal", &NodeFolder::foldComparison},
      {"Less", &NodeFolder::foldComparison},
      {"LessOrEqual", &NodeFolder::foldComparison},
      {"Greater", &NodeFolder::foldComparison},
      {"GreaterOrEqual", &NodeFolder::foldComparison},
      {"Where", &NodeFolder::foldWhere},
      {"Neg", &NodeFolder::foldUnary},
      {"Abs", &NodeFolder::foldUnary},
      {"Not", &NodeFolder::foldUnary},
      // Scales exporters compute from a head size (1 / sqrt(D), and its
      // square root applied to Q and K both).
      {"Sqrt", &NodeFolder::foldUnary},
      {"Reciprocal", &NodeFolder::foldUnary},
  };
  return table;
}

FailureOr<Results> NodeFolder::foldConstant() {
  if (node.attribute_size() != 1)
    return error() << "it needs exactly one value attribute";
  const onnx::AttributeProto &value = node.attribute(0);
  const std::string &name = value.name();
  if (name == "value") {
    auto tensor = readTensorProto(value.t(), loc);
    if (failed(tensor))
      return failure();
    return Results{std::move(*tensor)};
  }
  if (name == "value_float")
    return Results{KnownTensor::ofFloats({}, {value.f()})};
  if (name == "value_floats")
    return Results{KnownTensor::ofFloats({value.floats_size()}, {value.floats().begin(), value.floats().end()})};
  if (name == "value_int")
    return Results{KnownTensor::ofInts({}, std::vector<int64_t>{value.i()})};
  if (name == "value_ints")
    return Results{
        KnownTensor::ofInts({value.ints_size()}, std::vector<int64_t>(value.ints().begin(), value.ints().end()))};
  return error() << "attribute '" << name << "' is not supported";
}

/// A float as int64 or int32 the way fuse.cast converts it: toward zero,
/// saturating at the type's range, NaN as 0.
int64_t floatToInteger(float value, bool toInt32) {
  if (std::isnan(value))
    return 0;
  double truncated = std::trunc(static_cast<double>(value));
  double low = toInt32 ? -2147483648.0 : -9223372036854775808.0;
  double high = toInt32 ? 2147483647.0 : 9223372036854775808.0;
  if (truncated <= low)
    return toInt32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  if (truncated >= high)
    return toInt32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(truncated);
}

FailureOr<Results> NodeFolder::foldCast() {
  auto data = required(0);
  auto to = intAttribute("to", onnx::TensorProto::UNDEFINED);
  if (failed(data) || failed(to))
    return failure();
  const KnownTensor &source = **data;
  switch (*to) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    // Values are rounded to the target type, as a run-time Cast would.
    std::vector<float> values;
    if (source.isFloat()) {
      values.reserve(source.floats.size());
      for (float v : source.floats)
        values.push_back(roundToOnnxType(v, *to));
    } else {
      if (source.hasSymbols())
        return error() << intsToString(source) << " has no value to convert to float before run time";
      values.reserve(source.ints.size());
      for (const DimExpr &v : source.ints)
        values.push_back(roundToOnnxType(static_cast<float>(v.constantTerm()), *to));
    }
    return Results{KnownTensor::ofFloats(source.shape, std::move(values), *to)};
  }
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::BOOL: {
    bool toBool = *to == onnx::TensorProto::BOOL;
    std::vector<DimExpr> values;
    bool toInt32 = *to == onnx::TensorProto::INT32;
    if (source.isFloat()) {
      for (float v : source.floats)
        values.emplace_back(toBool ? v != 0 : floatToInteger(v, toInt32));
    } else {
      for (const DimExpr &v : source.ints) {
        if (toBool) {
          std::optional<int> sign = DimExpr::compare(v, 0);
          if (!sign)
            return error() << "whether " << v.str() << " is 0 depends on the batch size";
          values.emplace_back(*sign != 0);
        } else if (toInt32 && v.isConstant()) {
          // int64 to int32 keeps the low 32 bits, as a run-time Cast does; a
          // symbolic size is assumed to fit.
          values.emplace_back(static_cast<int32_t>(static_cast<uint32_t>(v.constantTerm())));
        } else {
          values.push_back(v);
        }
      }
    }
    return Results{KnownTensor::ofInts(source.shape, std::move(values), *to)};
  }
  default:
    return error() << "casting to " << onnxTypeName(*to) << " is not supported";
  }
}

FailureOr<std::vector<int64_t>> NodeFolder::quantizationIndices(const KnownTensor &data, const KnownTensor &scale) {
  auto blockSize = intAttribute("block_size", 0);
  if (failed(blockSize))
    return failure();
  if (*blockSize != 0)
    return error() << "blocked quantization (block_size) is not supported";
  const int64_t count = numElements(data.shape);
  if (scale.shape.empty() || (scale.shape.size() == 1 && scale.shape[0] == 1))
    return std::vector<int64_t>(count, 0);
  if (scale.shape.size() != 1)
    return error() << "the scale must be a scalar or a vector, not of shape " << fuse::shapeToString(scale.shape);
  auto axisAttribute = intAttribute("axis", 1);
  if (failed(axisAttribute))
    return failure();
  auto axis = normalizeAxis(*axisAttribute, static_cast<int64_t>(data.shape.size()));
  if (failed(axis))
    return failure();
  if (data.shape[*axis] != scale.shape[0])
    return error() << "the scale has " << scale.shape[0] << " elements, the input's axis " << *axis << " has "
                   << data.shape[*axis];
  const Shape strides = stridesOf(data.shape);
  std::vector<int64_t> indices(count);
  for (int64_t i = 0; i < count; ++i)
    indices[i] = (i / strides[*axis]) % data.shape[*axis];
  return indices;
}

/// (x - zero point) * scale in f32, as fuse.dequantize_linear computes it;
/// rounded to the scale's type, which ONNX gives the result.
FailureOr<Results> NodeFolder::foldDequantizeLinear() {
  auto data = required(0), scale = required(1);
  if (failed(data) || failed(scale))
    return failure();
  const KnownTensor *zero = input(2);
  if (!(*data)->isInt() || (*data)->hasSymbols() || !(*scale)->isFloat() || (zero && !zero->isInt()))
    return error() << "the input and zero point must be integers and the scale a float";
  if (zero && zero->shape != (*scale)->shape && !(zero->size() == 1 && (*scale)->size() == 1))
    return error() << "the scale and the zero point differ in shape";
  auto indices = quantizationIndices(**data, **scale);
  if (failed(indices))
    return failure();
  std::vector<float> values(indices->size());
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t at = (*indices)[i];
    values[i] = roundToOnnxType(scalar::dequantize((*data)->ints[i].constantTerm(), (*scale)->floats[at],
                                                   zero ? zero->ints[at].constantTerm() : 0),
                                (*scale)->elemType);
  }
  return Results{KnownTensor::ofFloats((*data)->shape, std::move(values), (*scale)->elemType)};
}

/// clamp(rint(x / scale) + zero point), as fuse.quantize_linear computes it.
FailureOr<Results> NodeFolder::foldQuantizeLinear() {
  auto data = required(0), scale = required(1);
  if (failed(data) || failed(scale))
    return failure();
  const KnownTensor *zero = input(2);
  if (!(*data)->isFloat() || !(*scale)->isFloat() || (zero && !zero->isInt()))
    return error() << "the input and scale must be floats and the zero point an integer";
  if (zero && zero->shape != (*scale)->shape && !(zero->size() == 1 && (*scale)->size() == 1))
    return error() << "the scale and the zero point differ in shape";
  const int32_t type = zero ? zero->elemType : onnx::TensorProto::UINT8;
  if (type != onnx::TensorProto::INT8 && type != onnx::TensorProto::UINT8)
    return error() << "quantizing to " << onnxTypeName(type) << " is not supported";
  auto indices = quantizationIndices(**data, **scale);
  if (failed(indices))
    return failure();
  const float low = type == onnx::TensorProto::INT8 ? -128.0f : 0.0f;
  const float high = type == onnx::TensorProto::INT8 ? 127.0f : 255.0f;
  std::vector<DimExpr> values;
  values.reserve(indices->size());
  for (size_t i = 0; i < indices->size(); ++i) {
    const int64_t at = (*indices)[i];
    values.emplace_back(scalar::quantize((*data)->floats[i], (*scale)->floats[at],
                                         zero ? zero->ints[at].constantTerm() : 0, low, high));
  }
  return Results{KnownTensor::ofInts((*data)->shape, std::move(values), type)};
}

FailureOr<Results> NodeFolder::foldConstantOfShape() {
  auto shape = staticInts(0, "shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t dim) { return dim < 0; }))
    return error() << "the shape has a negative dimension";
  KnownTensor fill = KnownTensor::ofFloats({}, {0.0f});
  if (const onnx::AttributeProto *value = findAttribute(node, "value")) {
    auto tensor = readTensorProto(value->t(), loc);
    if (failed(tensor))
      return failure();
    if (tensor->size() != 1)
      return error() << "'value' must hold one element";
    fill = std::move(*tensor);
  }
  // The folded constant is materialised here and later stored in the plan.
  if (!isPlausibleShape(*shape, /*allowBatch=*/false) || !fitsFoldLimit(numElements(*shape), fill.kind))
    return error() << "the shape " << fuse::shapeToString(*shape) << " is too large to fold (more than "
                   << foldLimitText(fill.kind) << ")";
  KnownTensor result;
  result.kind = fill.kind;
  result.elemType = fill.elemType;
  result.shape = std::move(*shape);
  if (fill.isFloat())
    result.floats.assign(numElements(result.shape), fill.floats[0]);
  else
    result.ints.assign(numElements(result.shape), fill.ints[0]);
  return Results{std::move(result)};
}

FailureOr<Results> NodeFolder::foldGather() {
  auto data = required(0);
  auto indices = staticInts(1, "indices");
  auto axisAttr = intAttribute("axis", 0);
  if (failed(data) || failed(indices) || failed(axisAttr))
    return failure();
  const KnownTensor &source = **data;
  int64_t rank = source.shape.size();
  auto axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  int64_t dim = source.shape[*axis];
  int64_t outer = numElements(ArrayRef<int64_t>(source.shape).take_front(*axis));
  int64_t inner = numElements(ArrayRef<int64_t>(source.shape).drop_front(*axis + 1));
  for (int64_t &index : *indices) {
    if (index < -dim || index >= dim)
      return error() << "index " << index << " is out of range for a dimension of " << dim;
    if (index < 0)
      index += dim;
  }
  Shape shape(source.shape.begin(), source.shape.begin() + *axis);
  shape.insert(shape.end(), input(1)->shape.begin(), input(1)->shape.end());
  shape.insert(shape.end(), source.shape.begin() + *axis + 1, source.shape.end());
  Shape selected;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t index : *indices)
      for (int64_t i = 0; i < inner; ++i)
        selected.push_back((o * dim + index) * inner + i);
  return Results{takeElements(source, shape, selected)};
}

FailureOr<Results> NodeFolder::foldSqueeze() {
  auto data = required(0);
  auto axes = axesArgument();
  if (failed(data) || failed(axes))
    return failure();
  auto shape = squeezeShape((*data)->shape, *axes, loc);
  if (failed(shape))
    return failure();
  return Results{withShape(**data, *shape)};
}

FailureOr<Results> NodeFolder::foldUnsqueeze() {
  auto data = required(0);
  auto axes = axesArgument();
  if (failed(data) || failed(axes))
    return failure();
  if (!*axes)
    return error() << "'axes' is required";
  auto shape = unsqueezeShape((*data)->shape, **axes, loc);
  if (failed(shape))
    return failure();
  return Results{withShape(**data, *shape)};
}

FailureOr<Results> NodeFolder::foldConcat() {
  if (!findAttribute(node, "axis"))
    return error() << "'axis' is required";
  auto axisAttr = intAttribute("axis", 0);
  if (failed(axisAttr) || failed(required(0)))
    return failure();
  for (size_t i = 1; i < inputs.size(); ++i)
    if (failed(required(i)))
      return failure();
  const KnownTensor &first = *inputs.front();
  int64_t rank = first.shape.size();
  auto axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  Shape shape = first.shape;
  shape[*axis] = 0;
  for (const KnownTensor *part : inputs) {
    if (part->kind != first.kind)
      return error() << "inputs mix float and integer tensors";
    if (static_cast<int64_t>(part->shape.size()) != rank)
      return error() << "inputs differ in rank";
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && part->shape[d] != first.shape[d])
        return error() << "input shapes do not match outside the axis";
    shape[*axis] += part->shape[*axis];
  }
  // Each input contributes one contiguous chunk per index of the outer dims.
  int64_t outer = numElements(ArrayRef<int64_t>(shape).take_front(*axis));
  KnownTensor result;
  result.kind = first.kind;
  result.elemType = first.elemType;
  result.shape = shape;
  for (int64_t o = 0; o < outer; ++o) {
    for (const KnownTensor *part : inputs) {
      int64_t chunk = numElements(ArrayRef<int64_t>(part->shape).drop_front(*axis));
      if (part->isFloat())
        result.floats.insert(result.floats.end(), part->floats.begin() + o * chunk,
                             part->floats.begin() + (o + 1) * chunk);
      else
        result.ints.insert(result.ints.end(), part->ints.begin() + o * chunk, part->ints.begin() + (o + 1) * chunk);
    }
  }
  return Results{std::move(result)};
}

FailureOr<Results> NodeFolder::foldSlice() {
  auto data = required(0);
  if (failed(data))
    return failure();
  const KnownTensor &source = **data;
  int64_t rank = source.shape.size();
  Shape starts, ends, axes, steps;
  if (opset < 10) {
    auto startsAttr = getIntsAttribute(node, "starts", loc);
    auto endsAttr = getIntsAttribute(node, "ends", loc);
    auto axesAttr = getIntsAttribute(node, "axes", loc);
    if (failed(startsAttr) || failed(endsAttr) || failed(axesAttr))
      return failure();
    if (!*startsAttr || !*endsAttr)
      return error() << "'starts' and 'ends' are required";
    starts = **startsAttr;
    ends = **endsAttr;
    if (*axesAttr)
      axes = **axesAttr;
  } else {
    auto startsInput = staticInts(1, "starts");
    auto endsInput = staticInts(2, "ends");
    if (failed(startsInput) || failed(endsInput))
      return failure();
    starts = *startsInput;
    ends = *endsInput;
    for (auto [index, values, what] : {std::make_tuple(3, &axes, "axes"), std::make_tuple(4, &steps, "steps")}) {
      if (!input(index))
        continue;
      auto given = staticInts(index, what);
      if (failed(given))
        return failure();
      *values = *given;
    }
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return error() << "'starts', 'ends', 'axes' and 'steps' differ in length";

  // The indices kept along each axis; axes not sliced keep all of theirs.
  std::vector<Shape> kept(rank);
  for (int64_t d = 0; d < rank; ++d) {
    kept[d].resize(source.shape[d]);
    std::iota(kept[d].begin(), kept[d].end(), 0);
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = source.shape[*axis], step = steps[i];
    if (step == 0)
      return error() << "a step is 0";
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    kept[*axis].clear();
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      for (int64_t index = start; index < end; index += step)
        kept[*axis].push_back(index);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      for (int64_t index = start; index > end; index += step)
        kept[*axis].push_back(index);
    }
  }
  Shape shape, strides = stridesOf(source.shape), selected;
  for (const Shape &indices : kept)
    shape.push_back(indices.size());
  forEachIndex(shape, [&](int64_t, ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += kept[d][index[d]] * strides[d];
    selected.push_back(flat);
  });
  return Results{takeElements(source, shape, selected)};
}

FailureOr<Results> NodeFolder::foldReshape() {
  auto data = required(0);
  if (failed(data))
    return failure();
  Shape target;
  if (opset < 5) {
    auto shapeAttr = getIntsAttribute(node, "shape", loc);
    if (failed(shapeAttr))
      return failure();
    if (!*shapeAttr)
      return error() << "'shape' is required";
    target = **shapeAttr;
  } else {
    auto shapeInput = staticInts(1, "shape");
    if (failed(shapeInput))
      return failure();
    target = *shapeInput;
  }
  auto allowZero = intAttribute("allowzero", 0);
  if (failed(allowZero))
    return failure();
  const Shape &from = (*data)->shape;
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !*allowZero) {
      if (i >= from.size())
        return error() << "shape entry " << i << " copies a dimension the input lacks";
      target[i] = from[i];
    }
    if (target[i] == -1) {
      if (inferAt >= 0)
        return error() << "the shape has more than one -1";
      inferAt = i;
    } else if (target[i] < 0) {
      return error() << "shape entry " << target[i] << " is invalid";
    } else {
      std::optional<int64_t> product = checkedMul(known, target[i]);
      if (!product)
        return error() << "the target shape " << fuse::shapeToString(target) << " is implausibly large";
      known = *product;
    }
  }
  int64_t total = numElements(from);
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      return error() << "cannot infer the -1 entry";
    target[inferAt] = total / known;
  } else if (known != total) {
    return error() << "the new shape holds " << known << " elements, the input " << total;
  }
  return Results{withShape(**data, target)};
}

FailureOr<Results> NodeFolder::foldFlatten() {
  auto data = required(0);
  auto axisAttr = intAttribute("axis", 1);
  if (failed(data) || failed(axisAttr))
    return failure();
  ArrayRef<int64_t> shape = (*data)->shape;
  auto axis = normalizeAxis(*axisAttr, shape.size(), /*inclusiveEnd=*/true);
  if (failed(axis))
    return failure();
  return Results{withShape(**data, {numElements(shape.take_front(*axis)), numElements(shape.drop_front(*axis))})};
}

FailureOr<Results> NodeFolder::foldTranspose() {
  auto data = required(0);
  auto permAttr = getIntsAttribute(node, "perm", loc);
  if (failed(data) || failed(permAttr))
    return failure();
  const KnownTensor &source = **data;
  int64_t rank = source.shape.size();
  Shape perm(rank);
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (*permAttr)
    perm = **permAttr;
  Shape identity(rank);
  std::iota(identity.begin(), identity.end(), 0);
  if (!std::is_permutation(perm.begin(), perm.end(), identity.begin(), identity.end()))
    return error() << "'perm' is not a permutation of the " << rank << " axes";
  Shape shape, strides = stridesOf(source.shape), selected;
  for (int64_t p : perm)
    shape.push_back(source.shape[p]);
  forEachIndex(shape, [&](int64_t, ArrayRef<int64_t> index) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += index[d] * strides[perm[d]];
    selected.push_back(flat);
  });
  return Results{takeElements(source, shape, selected)};
}

FailureOr<Results> NodeFolder::foldRange() {
  for (size_t i = 0; i < 3; ++i) {
    auto operand = required(i);
    if (failed(operand))
      return failure();
    if ((*operand)->size() != 1 || (*operand)->kind != input(0)->kind)
      return error() << "start, limit and delta must be scalars of one type";
  }
  if (input(0)->isFloat()) {
    // Range-27's stash_type: 1 (the default) computes f16/bf16 ranges in f32
    // and rounds, as this does; 0 would round every step.
    auto stash = intAttribute("stash_type", 1);
    if (failed(stash))
      return failure();
    if (*stash != 1 && input(0)->elemType != onnx::TensorProto::FLOAT)
      return error() << "stash_type " << *stash << " (compute in the input's precision) is not supported";
    float start = input(0)->floats[0], limit = input(1)->floats[0], delta = input(2)->floats[0];
    if (delta == 0)
      return error() << "delta is 0";
    // Checked before the conversion: the step count may be inf, NaN or
    // beyond int64.
    float steps = std::ceil((limit - start) / delta);
    int64_t count = steps > 0 && steps <= float(kMaxFoldedFloats) ? static_cast<int64_t>(steps) : 0;
    if (std::isnan(steps) || steps > float(kMaxFoldedFloats))
      return error() << "the range from " << start << " to " << limit << " by " << delta << " holds more than "
                     << foldLimitText(KnownTensor::Kind::Float);
    std::vector<float> values;
    values.reserve(count);
    for (int64_t i = 0; i < count; ++i)
      values.push_back(roundToOnnxType(start + i * delta, input(0)->elemType));
    return Results{KnownTensor::ofFloats({count}, std::move(values), input(0)->elemType)};
  }
  Shape bounds;
  for (size_t i = 0; i < 3; ++i) {
    auto value = staticInts(i, i == 0 ? "start" : i == 1 ? "limit" : "delta");
    if (failed(value))
      return failure();
    bounds.push_back(value->front());
  }
  int64_t start = bounds[0], limit = bounds[1], delta = bounds[2];
  if (delta == 0)
    return error() << "delta is 0";
  // ceil((limit - start) / delta) in 128 bits: the difference of two int64
  // values does not fit 64.
  __int128 span = static_cast<__int128>(limit) - start;
  __int128 steps = (span + delta + (delta > 0 ? -1 : 1)) / delta;
  int64_t count = steps > 0 && steps <= kMaxFoldedInts ? static_cast<int64_t>(steps) : 0;
  if (steps > kMaxFoldedInts)
    return error() << "the range from " << start << " to " << limit << " by " << delta << " holds more than "
                   << foldLimitText(KnownTensor::Kind::Int);
  Shape values;
  values.reserve(count);
  // Every value lies between start and limit, but i * delta alone may not.
  for (int64_t i = 0; i < count; ++i)
    values.push_back(static_cast<int64_t>(start + static_cast<__int128>(i) * delta));
  // The values lie between start and limit, so they fit the inputs' type.
  return Results{KnownTensor::ofInts({count}, values, input(0)->elemType)};
}

FailureOr<Broadcast> NodeFolder::broadcast(ArrayRef<const KnownTensor *> operands) {
  size_t rank = 0;
  for (const KnownTensor *operand : operands)
    rank = std::max(rank, operand->shape.size());
  Broadcast result;
  result.shape.assign(rank, 1);
  for (const KnownTensor *operand : operands) {
    const size_t offset = rank - operand->shape.size();
    for (size_t d = 0; d < operand->shape.size(); ++d) {
      int64_t &dim = result.shape[offset + d];
      const int64_t own = operand->shape[d];
      if (own != dim && own != 1 && dim != 1)
        return error() << "shapes " << fuse::shapeToString(operands[0]->shape) << " and "
                       << fuse::shapeToString(operand->shape) << " do not broadcast";
      dim = dim == 1 ? own : dim;
    }
  }
  // Broadcasting multiplies sizes ([n, 1] + [1, m] has n * m elements).
  const KnownTensor::Kind kind = operands.back()->kind;
  std::optional<int64_t> count = checkedElementCount(result.shape);
  if (!count || !fitsFoldLimit(*count, kind))
    return error() << "the result " << fuse::shapeToString(result.shape) << " holds more than " << foldLimitText(kind);
  for (const KnownTensor *operand : operands) {
    const size_t offset = rank - operand->shape.size();
    Shape dense = stridesOf(operand->shape), strides(rank, 0);
    for (size_t d = 0; d < operand->shape.size(); ++d)
      strides[offset + d] = operand->shape[d] == 1 ? 0 : dense[d];
    std::vector<int64_t> &indices = result.indices.emplace_back();
    indices.reserve(*count);
    forEachIndex(result.shape, [&](int64_t, ArrayRef<int64_t> index) {
      int64_t flat = 0;
      for (size_t d = 0; d < rank; ++d)
        flat += index[d] * strides[d];
      indices.push_back(flat);
    });
  }
  return result;
}

float NodeFolder::applyFloat(float x, float y, bool fmod) const {
  const std::string &op = node.op_type();
  if (op == "Add")
    return x + y;
  if (op == "Sub")
    return x - y;
  if (op == "Mul")
    return x * y;
  if (op == "Div")
    return x / y;
  if (op == "Max")
    return scalar::max(x, y);
  if (op == "Min")
    return scalar::min(x, y);
  return scalar::mod(x, y, fmod);
}

FailureOr<DimExpr> NodeFolder::applyInt(const DimExpr &lhs, const DimExpr &rhs, bool fmod) {
  const std::string &op = node.op_type();
  std::optional<DimExpr> value;
  if (op == "Add")
    value = DimExpr::add(lhs, rhs);
  else if (op == "Sub")
    value = DimExpr::sub(lhs, rhs);
  else if (op == "Mul")
    value = DimExpr::mul(lhs, rhs);
  else if (op == "Max")
    value = DimExpr::max(lhs, rhs);
  else if (op == "Min")
    value = DimExpr::min(lhs, rhs);
  else if (rhs == DimExpr(0))
    return error() << "integer division by zero";
  else if (op == "Div")
    value = DimExpr::div(lhs, rhs);
  else
    value = DimExpr::mod(lhs, rhs, fmod);
  if (value)
    return *value;
  if (lhs.isConstant() && rhs.isConstant())
    return error() << lhs.str() << " " << op << " " << rhs.str() << " overflows 64-bit integers";
  return error() << lhs.str() << " " << op << " " << rhs.str()
                 << " has no value before run time: it is not a polynomial in the batch size";
}

FailureOr<Results> NodeFolder::foldArithmetic() {
  // Max and Min take one or more operands, the others exactly two.
  const bool variadic = node.op_type() == "Max" || node.op_type() == "Min";
  if (inputs.empty() || (!variadic && inputs.size() != 2))
    return error() << "it takes " << (variadic ? "one or more inputs" : "two inputs");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (failed(required(i)))
      return failure();
  for (const KnownTensor *operand : inputs)
    if (operand->kind != inputs[0]->kind)
      return error() << "the operands mix float and integer tensors";
  auto fmod = intAttribute("fmod", 0);
  if (failed(fmod))
    return failure();
  KnownTensor result = *inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    const KnownTensor *pair[] = {&result, inputs[i]};
    auto shape = broadcast(pair);
    if (failed(shape))
      return failure();
    KnownTensor next;
    next.kind = result.kind;
    next.elemType = result.elemType;
    next.shape = shape->shape;
    for (size_t e = 0; e < shape->indices[0].size(); ++e) {
      const int64_t a = shape->indices[0][e], b = shape->indices[1][e];
      if (result.isFloat()) {
        next.floats.push_back(
            roundToOnnxType(applyFloat(result.floats[a], inputs[i]->floats[b], *fmod != 0), result.elemType));
        continue;
      }
      auto value = applyInt(result.ints[a], inputs[i]->ints[b], *fmod != 0);
      if (failed(value))
        return failure();
      next.ints.push_back(std::move(*value));
    }
    result = std::move(next);
  }
  return Results{std::move(result)};
}

FailureOr<Results> NodeFolder::foldComparison() {
  auto lhs = required(0), rhs = required(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  if ((*lhs)->kind != (*rhs)->kind)
    return error() << "the operands mix float and integer tensors";
  auto shape = broadcast(inputs.take_front(2));
  if (failed(shape))
    return failure();
  const std::string &op = node.op_type();
  std::vector<DimExpr> values;
  for (size_t e = 0; e < shape->indices[0].size(); ++e) {
    const int64_t a = shape->indices[0][e], b = shape->indices[1][e];
    int sign = 0;
    if ((*lhs)->isFloat()) {
      const float x = (*lhs)->floats[a], y = (*rhs)->floats[b];
      if (std::isnan(x) || std::isnan(y)) {
        values.emplace_back(0); // every comparison with NaN is false
        continue;
      }
      sign = x < y ? -1 : x > y ? 1 : 0;
    } else {
      const DimExpr &x = (*lhs)->ints[a], &y = (*rhs)->ints[b];
      std::optional<int> order = DimExpr::compare(x, y);
      // x >= y or x <= y for certain (batch >= 1) decides the non-strict
      // comparisons even where the strict order is unknown.
      if (!order && op == "GreaterOrEqual" && DimExpr::alwaysAtLeast(x, y))
        order = 1;
      if (!order && op == "LessOrEqual" && DimExpr::alwaysAtLeast(y, x))
        order = -1;
      if (!order)
        return error() << "whether " << x.str() << " " << op << " " << y.str() << " holds depends on the batch size";
      sign = *order;
    }
    const bool holds = op == "Equal"         ? sign == 0
                       : op == "Less"        ? sign < 0
                       : op == "LessOrEqual" ? sign <= 0
                       : op == "Greater"     ? sign > 0
                                             : sign >= 0;
    values.emplace_back(holds);
  }
  return Results{KnownTensor::ofInts(shape->shape, std::move(values), onnx::TensorProto::BOOL)};
}

FailureOr<Results> NodeFolder::foldWhere() {
  auto condition = required(0), x = required(1), y = required(2);
  if (failed(condition) || failed(x) || failed(y))
    return failure();
  if (!(*condition)->isInt() || (*condition)->hasSymbols())
    return error() << "the condition must be booleans";
  if ((*x)->kind != (*y)->kind)
    return error() << "the operands mix float and integer tensors";
  auto shape = broadcast(inputs.take_front(3));
  if (failed(shape))
    return failure();
  KnownTensor result;
  result.kind = (*x)->kind;
  result.elemType = (*x)->elemType;
  result.shape = shape->shape;
  for (size_t e = 0; e < shape->indices[0].size(); ++e) {
    const bool pick = (*condition)->ints[shape->indices[0][e]].constantTerm() != 0;
    const KnownTensor &from = pick ? **x : **y;
    const int64_t at = shape->indices[pick ? 1 : 2][e];
    if (result.isFloat())
      result.floats.push_back(from.floats[at]);
    else
      result.ints.push_back(from.ints[at]);
  }
  return Results{std::move(result)};
}

/// Expand: numpy broadcasting of the data with a tensor of `shape` (a 1
/// keeps the data's dimension); symbolic elements move as they are.
FailureOr<Results> NodeFolder::foldExpand() {
  auto data = required(0);
  auto shape = staticInts(1, "shape");
  if (failed(data) || failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t dim) { return dim < 0; }))
    return error() << "the shape " << fuse::shapeToString(*shape) << " has a negative dimension";
  KnownTensor target;
  target.kind = (*data)->kind;
  target.shape = *shape;
  const KnownTensor *operands[] = {*data, &target};
  auto broadcasted = broadcast(operands);
  if (failed(broadcasted))
    return failure();
  return Results{takeElements(**data, broadcasted->shape, broadcasted->indices[0])};
}

/// Trilu (opset 14): the elements of each matrix (the last two axes) outside
/// the triangle become zero: upper keeps column - row >= k, lower column -
/// row <= k. A causal mask made by torch.tril of a constant folds to a
/// constant instead of a kernel run on every inference.
FailureOr<Results> NodeFolder::foldTrilu() {
  auto data = required(0);
  auto upper = intAttribute("upper", 1);
  if (failed(data) || failed(upper))
    return failure();
  int64_t k = 0;
  if (input(1)) {
    auto diagonal = staticInts(1, "k");
    if (failed(diagonal))
      return failure();
    if (diagonal->size() != 1)
      return error() << "k must hold one value, it holds " << diagonal->size();
    k = diagonal->front();
  }
  KnownTensor result = **data;
  const int64_t rank = result.shape.size();
  if (rank < 2)
    return error() << "the input has rank " << rank << ", Trilu needs 2 or more";
  const int64_t rows = result.shape[rank - 2], columns = result.shape[rank - 1];
  for (size_t flat = 0; flat < result.size(); ++flat) {
    const int64_t column = static_cast<int64_t>(flat) % columns;
    const int64_t row = static_cast<int64_t>(flat) / columns % rows;
    const bool kept = *upper ? column - row >= k : column - row <= k;
    if (kept)
      continue;
    if (result.isFloat())
      result.floats[flat] = 0.0f;
    else
      result.ints[flat] = DimExpr(0);
  }
  return Results{std::move(result)};
}

FailureOr<Results> NodeFolder::foldUnary() {
  auto data = required(0);
  if (failed(data))
    return failure();
  const std::string &op = node.op_type();
  KnownTensor result = **data;
  if (result.isFloat()) {
    if (op == "Not")
      return error() << "Not takes booleans";
    for (float &value : result.floats)
      value = op == "Neg" ? -value : op == "Abs" ? std::fabs(value) : op == "Sqrt" ? std::sqrt(value) : 1.0f / value;
    return Results{std::move(result)};
  }
  if (op == "Sqrt" || op == "Reciprocal")
    return error() << op << " takes floats";
  for (DimExpr &value : result.ints) {
    if (op == "Not") {
      if (!value.isConstant())
        return error() << "Not takes booleans";
      value = DimExpr(value.constantTerm() == 0);
      continue;
    }
    std::optional<int> sign = op == "Abs" ? DimExpr::compare(value, 0) : std::optional<int>(-1);
    if (!sign)
      return error() << "the sign of " << value.str() << " depends on the batch size";
    if (*sign < 0) {
      std::optional<DimExpr> negated = DimExpr::mul(value, -1);
      if (!negated)
        return error() << "-(" << value.str() << ") overflows 64-bit integers";
      value = std::move(*negated);
    }
  }
  return Results{std::move(result)};
}

} // namespace

/// ScatterND: a copy of `data` in which each index tuple (the last axis of
/// `indices`, k entries) selects an element or a slice (rank r - k) that
/// the matching part of `updates` replaces, or combines with under
/// `reduction` ("add", "mul", "max", "min"; opset 16+). Tuples apply in
/// order, so with duplicates the last one wins (ONNX leaves that undefined).
/// What exporters emit for in-place slice assignments on constants (the
/// shifted-window mask of Swin transformers).
FailureOr<Results> NodeFolder::foldScatterND() {
  auto data = required(0);
  auto indices = staticInts(1, "indices");
  auto updates = required(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  std::string reduction = "none";
  if (const onnx::AttributeProto *attribute = findAttribute(node, "reduction"))
    reduction = attribute->s();
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
    return error() << "unknown reduction '" << reduction << "'";
  const KnownTensor &source = **data, &update = **updates;
  if (source.kind != update.kind)
    return error() << "'data' and 'updates' must have one element type";
  const Shape &indexShape = input(1)->shape;
  const int64_t rank = source.shape.size();
  const int64_t k = indexShape.empty() ? 0 : indexShape.back();
  if (k < 1 || k > rank)
    return error() << "the last dimension of 'indices' (" << k << ") must be between 1 and the rank of 'data' (" << rank
                   << ")";
  Shape expected(indexShape.begin(), indexShape.end() - 1);
  expected.insert(expected.end(), source.shape.begin() + k, source.shape.end());
  if (update.shape != expected)
    return error() << "'updates' has shape " << fuse::shapeToString(update.shape) << ", but 'indices' and 'data' need "
                   << fuse::shapeToString(expected);
  if (reduction != "none" && (source.hasSymbols() || update.hasSymbols()))
    return error() << "a reduction of symbolic sizes is not evaluated at import";
  const Shape strides = stridesOf(source.shape);
  const int64_t slice = numElements(ArrayRef<int64_t>(source.shape).drop_front(k));
  const int64_t tuples = numElements(ArrayRef<int64_t>(indexShape).drop_back());
  KnownTensor result = source;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t index = (*indices)[t * k + j];
      const int64_t dim = source.shape[j];
      if (index < -dim || index >= dim)
        return error() << "index " << index << " is out of range for a dimension of " << dim;
      offset += (index < 0 ? index + dim : index) * strides[j];
    }
    for (int64_t e = 0; e < slice; ++e) {
      const size_t to = offset + e, from = t * slice + e;
      if (result.isFloat()) {
        float &value = result.floats[to];
        const float other = update.floats[from];
        value = reduction == "add"   ? value + other
                : reduction == "mul" ? value * other
                : reduction == "max" ? std::max(value, other)
                : reduction == "min" ? std::min(value, other)
                                     : other;
        value = roundToOnnxType(value, result.elemType);
      } else if (reduction == "none") {
        result.ints[to] = update.ints[from];
      } else {
        // Both are numbers (checked above); add and mul wrap as a run-time
        // int64 would.
        const int64_t value = result.ints[to].constantTerm(), other = update.ints[from].constantTerm();
        result.ints[to] = DimExpr(reduction == "add"   ? int64_t(uint64_t(value) + uint64_t(other))
                                  : reduction == "mul" ? int64_t(uint64_t(value) * uint64_t(other))
                                  : reduction == "max" ? std::max(value, other)
                                                       : std::min(value, other));
      }
    }
  }
  return Results{std::move(result)};
}

bool isFoldableOnnxOp(StringRef opType) { return NodeFolder::methods().count(opType); }

std::vector<std::string> foldableOnnxOps() {
  std::vector<std::string> names;
  for (const auto &entry : NodeFolder::methods())
    names.push_back(entry.getKey().str());
  return names;
}

FailureOr<std::vector<KnownTensor>> foldOnnxNode(const onnx::NodeProto &node, int64_t opset,
                                                 ArrayRef<const KnownTensor *> inputs, Location loc) {
  assert(isFoldableOnnxOp(node.op_type()) && "not a foldable op");
  auto results = NodeFolder(node, opset, inputs, loc).fold();
  if (failed(results))
    return failure();
  // The folders above check sizes before they build anything big; this also
  // bounds what several inputs add up to (Concat).
  for (const KnownTensor &result : *results)
    if (!fitsFoldLimit(result.size(), result.kind))
      return emitError(loc) << node.op_type() << " cannot be evaluated at import: its result holds more than "
                            << foldLimitText(result.kind);
  return results;
}

FailureOr<std::vector<int64_t>> squeezeShape(ArrayRef<int64_t> shape, const std::optional<std::vector<int64_t>> &axes,
                                             Location loc) {
  int64_t rank = shape.size();
  std::vector<bool> removed(rank, false);
  if (!axes) {
    for (int64_t d = 0; d < rank; ++d)
      removed[d] = shape[d] == 1;
  }
  for (int64_t axis : axes.value_or(std::vector<int64_t>())) {
    if (axis < -rank || axis >= rank)
      return emitError(loc) << "Squeeze axis " << axis << " is out of range for rank " << rank;
    int64_t d = axis < 0 ? axis + rank : axis;
    if (shape[d] != 1)
      return emitError(loc) << "Squeeze axis " << axis << " has size "
                            << (shape[d] == kBatchDim ? "batch" : std::to_string(shape[d])) << ", not 1";
    removed[d] = true;
  }
  std::vector<int64_t> result;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed[d])
      result.push_back(shape[d]);
  return result;
}

FailureOr<std::vector<int64_t>> unsqueezeShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes, Location loc) {
  int64_t rank = shape.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return emitError(loc) << "Unsqueeze axis " << axis << " is out of range for rank " << rank;
    int64_t d = axis < 0 ? axis + rank : axis;
    if (inserted[d])
      return emitError(loc) << "Unsqueeze axis " << axis << " is repeated";
    inserted[d] = true;
  }
  std::vector<int64_t> result;
  result.reserve(rank);
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    result.push_back(inserted[d] ? 1 : shape[next++]);
  return result;
}

} // namespace fusec::import
