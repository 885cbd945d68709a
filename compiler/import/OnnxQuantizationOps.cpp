//===- OnnxQuantizationOps.cpp - QuantizeLinear and DequantizeLinear -------===//
#include "compiler/import/OnnxQuantizationOps.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include <onnx/onnx_pb.h>

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

} // namespace fusec::import
