//===- OnnxQuantizationOps.cpp - QuantizeLinear and DequantizeLinear -------===//
#include "compiler/import/OnnxQuantizationOps.h"

#include "compiler/import/OnnxOpBuilders.h"
#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include <onnx/onnx_pb.h>

#include <cstring>

using namespace mlir;
using namespace fusec::fuse;

namespace fusec::import {

namespace {

/// The quantized type an ONNX element type names (INT8, UINT8), or null.
Type quantizedTypeFor(MLIRContext *context, int64_t onnxType) {
  if (onnxType == onnx::TensorProto::INT8)
    return IntegerType::get(context, 8);
  if (onnxType == onnx::TensorProto::UINT8)
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  return {};
}

/// Refuses what fuse's quantization ops do not have: blocked quantization.
LogicalResult checkUnblocked(BuildContext &ctx) {
  if (ctx.attrs.getInt("block_size", 0) != 0) {
    ctx.attrs.invalid(ctx.node.opType + " with 'block_size' (blocked quantization) is not supported: fusec "
                                        "quantizes per tensor or per axis");
    return failure();
  }
  return success();
}

/// A scale or zero point as fuse's ops take it: a scalar or one-element
/// vector stays (it broadcasts), a vector as long as the input's `axis`
/// dimension is reshaped to lie along that axis.
FailureOr<Value> alongAxis(BuildContext &ctx, Value parameter, StringRef what) {
  auto type = llvm::cast<RankedTensorType>(parameter.getType());
  if (type.getRank() == 0 || (type.getRank() == 1 && type.getDimSize(0) == 1))
    return parameter;
  const int64_t rank = ctx.rank(0);
  if (type.getRank() != 1) {
    ctx.attrs.invalid(ctx.node.opType + "'s " + what + " must be a scalar or a vector (per axis), not of shape " +
                      shapeToString(type.getShape()));
    return failure();
  }
  FailureOr<int64_t> axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 1), rank);
  if (failed(axis))
    return failure();
  if (type.getDimSize(0) != ctx.shape(0)[*axis]) {
    ctx.attrs.invalid(ctx.node.opType + "'s " + what + " has " + std::to_string(type.getDimSize(0)) +
                      " elements, but the input's axis " + std::to_string(*axis) + " has " +
                      shapeToString(ctx.shape(0).slice(*axis, 1)));
    return failure();
  }
  std::vector<int64_t> shape(rank, 1);
  shape[*axis] = type.getDimSize(0);
  // A constant (the usual case) is reshaped here, so that the op's folder
  // sees constant parameters; anything else by a Reshape.
  if (auto constant = parameter.getDefiningOp<ConstantOp>()) {
    auto reshaped = RankedTensorType::get(shape, type.getElementType());
    std::vector<uint8_t> storage;
    if (std::optional<ArrayRef<uint8_t>> bytes = constantBytes(constant.getValue(), storage)) {
      ArrayRef<char> raw(reinterpret_cast<const char *>(bytes->data()), bytes->size());
      return ctx.builder.create<ConstantOp>(ctx.loc(), DenseElementsAttr::getFromRawBuffer(reshaped, raw)).getResult();
    }
  }
  return ctx.create<ReshapeOp>(parameter, ctx.ints(shape));
}

/// The scale in f32 (widened when it is f16 or bf16), and its ONNX type.
FailureOr<Value> f32Scale(BuildContext &ctx, Value scale) {
  Type type = elementTypeOf(scale);
  if (type.isF32())
    return scale;
  if (!type.isF16() && !type.isBF16()) {
    ctx.attrs.invalid(ctx.node.opType + "'s scale must be a float, not " +
                      elementTypeName(type).value_or("an unsupported type").str());
    return failure();
  }
  return ctx.create<CastOp>(scale, ctx.builder.getStringAttr("f32"));
}

/// The zero point operand (input 2), or zeros of `quantized` shaped like
/// the scale where the node has none.
FailureOr<Value> zeroPoint(BuildContext &ctx, Type quantized) {
  if (Value given = ctx.operand(2)) {
    if (elementTypeOf(given) != quantized) {
      ctx.attrs.invalid(ctx.node.opType + "'s zero point is " +
                        elementTypeName(elementTypeOf(given)).value_or("an unsupported type").str() + ", not " +
                        elementTypeName(quantized)->str());
      return failure();
    }
    return given;
  }
  auto scaleType = llvm::cast<RankedTensorType>(ctx.operand(1).getType());
  auto type = RankedTensorType::get(scaleType.getShape(), quantized);
  const int64_t count = scaleType.getNumElements();
  return ctx.builder.create<ConstantOp>(ctx.loc(), DenseElementsAttr::get(type, SmallVector<APInt>(count, APInt(8, 0))))
      .getResult();
}

/// fuse.{quantize,dequantize}_linear's scale and zero point operands.
struct Parameters {
  Value scale, zeroPoint;
};
FailureOr<Parameters> parameters(BuildContext &ctx, Type quantized) {
  // `axis` may be given with per-tensor parameters too (it then says
  // nothing); read it so that it counts as known.
  (void)ctx.attrs.getInt("axis", 1);
  FailureOr<Value> zero = zeroPoint(ctx, quantized);
  if (failed(zero))
    return failure();
  auto scaleType = llvm::cast<RankedTensorType>(ctx.operand(1).getType());
  auto zeroType = llvm::cast<RankedTensorType>(zero->getType());
  auto scaleShape = scaleType.getShape(), zeroShape = zeroType.getShape();
  // One element each (a scalar beside a [1], as quantizers write them):
  // both per tensor, the zero point shaped like the scale.
  if (scaleShape != zeroShape && scaleType.getNumElements() == 1 && zeroType.getNumElements() == 1) {
    zero = ctx.create<ReshapeOp>(*zero, ctx.ints(scaleShape));
    if (failed(zero))
      return failure();
  } else if (scaleShape != zeroShape) {
    ctx.attrs.invalid(ctx.node.opType + "'s scale " + shapeToString(scaleShape) + " and zero point " +
                      shapeToString(zeroShape) + " differ in shape");
    return failure();
  }
  FailureOr<Value> scale = f32Scale(ctx, ctx.operand(1));
  if (failed(scale))
    return failure();
  FailureOr<Value> scaleAlong = alongAxis(ctx, *scale, "scale");
  if (failed(scaleAlong))
    return failure();
  FailureOr<Value> zeroAlong = alongAxis(ctx, *zero, "zero point");
  if (failed(zeroAlong))
    return failure();
  return Parameters{*scaleAlong, *zeroAlong};
}

} // namespace

FailureOr<Results> buildQuantizeLinear(BuildContext &ctx) {
  if (failed(checkUnblocked(ctx)))
    return failure();
  // `saturate` (opset 19) concerns float8 results only, which fusec does
  // not quantize to: integers always saturate.
  (void)ctx.attrs.getInt("saturate", 1);
  // The quantized type: the zero point's, else opset 21's output_dtype,
  // else UINT8 (ONNX's default).
  Type quantized;
  if (Value given = ctx.operand(2)) {
    quantized = elementTypeOf(given);
    if (!isQuantizedElementType(quantized)) {
      ctx.attrs.invalid("QuantizeLinear to " + elementTypeName(quantized).value_or("this type").str() +
                        " is not supported (fusec quantizes to INT8 and UINT8)");
      return failure();
    }
  } else {
    const int64_t declared = ctx.attrs.getInt("output_dtype", onnx::TensorProto::UINT8);
    quantized =
        quantizedTypeFor(ctx.builder.getContext(), declared == 0 ? int64_t(onnx::TensorProto::UINT8) : declared);
    if (!quantized) {
      ctx.attrs.invalid("QuantizeLinear's output_dtype " + std::to_string(declared) +
                        " is not supported (fusec quantizes to INT8 and UINT8)");
      return failure();
    }
  }
  if (!isComputeElementType(elementTypeOf(ctx.operand(0)))) {
    ctx.attrs.invalid("QuantizeLinear's input must be a float tensor");
    return failure();
  }
  FailureOr<Parameters> given = parameters(ctx, quantized);
  if (failed(given))
    return failure();
  return single(ctx.create<QuantizeLinearOp>(ctx.operand(0), given->scale, given->zeroPoint));
}

FailureOr<Results> buildDequantizeLinear(BuildContext &ctx) {
  if (failed(checkUnblocked(ctx)))
    return failure();
  Type quantized = elementTypeOf(ctx.operand(0));
  if (!isQuantizedElementType(quantized)) {
    // An INT32 DequantizeLinear (a QDQ model's bias) folds at import when
    // its input is a constant; at run time fusec has none.
    ctx.attrs.invalid("DequantizeLinear of " + elementTypeName(quantized).value_or("this type").str() +
                      " at run time is not supported (fusec dequantizes INT8 and UINT8; constant inputs of other "
                      "integer types fold at import)");
    return failure();
  }
  const Type scaleType = elementTypeOf(ctx.operand(1));
  FailureOr<Parameters> given = parameters(ctx, quantized);
  if (failed(given))
    return failure();
  FailureOr<Value> result = ctx.create<DequantizeLinearOp>(ctx.operand(0), given->scale, given->zeroPoint);
  // ONNX types the result as the scale: an f16 or bf16 scale rounds it.
  if (succeeded(result) && !scaleType.isF32())
    result = ctx.create<CastOp>(*result, ctx.builder.getStringAttr(*elementTypeName(scaleType)));
  return single(result);
}

namespace {

/// The node `opType` over `operands` with `attrs`, built at `ctx`'s node:
/// one step of a composite's lowering, checked as the op itself would be.
FailureOr<Value> buildInner(BuildContext &ctx, StringRef opType, ArrayRef<Value> operands,
                            const NodeAttributes &attrs = {}) {
  ImportedNode inner{ctx.node.name, opType, operands, attrs, ctx.node.loc, 1, 1, ctx.node.opset};
  FailureOr<SmallVector<Value>> results = buildOnnxNode(ctx.builder, inner);
  if (failed(results))
    return failure();
  return results->front();
}

/// The constant f32 values of `value` (a scale), or nullopt.
std::optional<std::vector<float>> constantFloats(Value value) {
  if (!value.getDefiningOp<ConstantOp>())
    return std::nullopt;
  return getConstantData(value);
}

/// QLinearConv's int32 bias as an f32 constant: B[n] * (x_scale *
/// w_scale[n]), its quantization (zero point 0) undone. The bias, x_scale
/// and w_scale must be constants (quantization tools write them so).
FailureOr<Value> dequantizedBias(BuildContext &ctx, Value bias, Value inputScale, Value weightScale) {
  auto constant = bias.getDefiningOp<ConstantOp>();
  auto type = llvm::cast<RankedTensorType>(bias.getType());
  std::optional<std::vector<float>> xScale = constantFloats(inputScale), wScale = constantFloats(weightScale);
  std::vector<uint8_t> storage;
  std::optional<ArrayRef<uint8_t>> bytes =
      constant ? constantBytes(constant.getValue(), storage) : std::optional<ArrayRef<uint8_t>>();
  if (!type.getElementType().isSignlessInteger(32) || type.getRank() != 1 || !bytes || !xScale || !wScale ||
      xScale->size() != 1 || (wScale->size() != 1 && int64_t(wScale->size()) != type.getDimSize(0))) {
    ctx.attrs.invalid("QLinearConv's bias must be a constant INT32 vector, with constant scales x_scale (one) and "
                      "w_scale (one, or one per output channel)");
    return failure();
  }
  std::vector<float> values(size_t(type.getDimSize(0)));
  for (size_t n = 0; n < values.size(); ++n) {
    int32_t quantized;
    std::memcpy(&quantized, bytes->data() + 4 * n, 4);
    values[n] = float(quantized) * ((*xScale)[0] * (*wScale)[wScale->size() == 1 ? 0 : n]);
  }
  auto resultType = RankedTensorType::get(type.getShape(), ctx.builder.getF32Type());
  return ctx.builder
      .create<ConstantOp>(ctx.loc(),
                          makeConstantData(resultType, constantNameAt(ctx.loc(), "bias_dequantized"), values))
      .getResult();
}

NodeAttributes axisAttribute(int64_t axis) { return NodeAttributes{{"axis", AttrValue::ofInt(axis)}}; }

} // namespace

FailureOr<Results> buildQLinearConv(BuildContext &ctx) {
  // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
  // y_zero_point, [B]; the Conv's attributes go to the Conv.
  ctx.attrs.passOnAll();
  FailureOr<Value> input = buildInner(ctx, "DequantizeLinear", {ctx.operand(0), ctx.operand(1), ctx.operand(2)});
  if (failed(input))
    return failure();
  FailureOr<Value> weight =
      buildInner(ctx, "DequantizeLinear", {ctx.operand(3), ctx.operand(4), ctx.operand(5)}, axisAttribute(0));
  if (failed(weight))
    return failure();
  SmallVector<Value> convOperands = {*input, *weight};
  if (Value bias = ctx.operand(8)) {
    FailureOr<Value> dequantized = dequantizedBias(ctx, bias, ctx.operand(1), ctx.operand(4));
    if (failed(dequantized))
      return failure();
    convOperands.push_back(*dequantized);
  }
  FailureOr<Value> conv = buildInner(ctx, "Conv", convOperands, ctx.node.attrs);
  if (failed(conv))
    return failure();
  return single(buildInner(ctx, "QuantizeLinear", {*conv, ctx.operand(6), ctx.operand(7)}));
}

FailureOr<Results> buildQLinearMatMul(BuildContext &ctx) {
  // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
  // y_zero_point: A's parameters per tensor or per row, B's per tensor or
  // per column.
  const int64_t rankA = ctx.rank(0), rankB = ctx.rank(3);
  if (rankA < 2 || rankB < 2) {
    ctx.attrs.invalid("QLinearMatMul takes operands of rank 2 or more");
    return failure();
  }
  FailureOr<Value> a =
      buildInner(ctx, "DequantizeLinear", {ctx.operand(0), ctx.operand(1), ctx.operand(2)}, axisAttribute(rankA - 2));
  if (failed(a))
    return failure();
  FailureOr<Value> b =
      buildInner(ctx, "DequantizeLinear", {ctx.operand(3), ctx.operand(4), ctx.operand(5)}, axisAttribute(rankB - 1));
  if (failed(b))
    return failure();
  FailureOr<Value> product = buildInner(ctx, "MatMul", {*a, *b});
  if (failed(product))
    return failure();
  return single(buildInner(ctx, "QuantizeLinear", {*product, ctx.operand(6), ctx.operand(7)}));
}

} // namespace fusec::import
