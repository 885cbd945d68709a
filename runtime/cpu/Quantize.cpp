//===- Quantize.cpp - QuantizeLinear and DequantizeLinear -------------------===//
//
// The reference for quantized models (docs/precision.md, "Quantized
// models"): ONNX's QuantizeLinear and DequantizeLinear, with the scale and
// zero point broadcast to the input (the importer puts a per-axis vector on
// its axis). Both are typed ops (OpInfo::typed): the quantized side is i8
// or u8, held as int64 like every integer of the CPU backend.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/ScalarOps.h"

namespace fusec::runtime::cpu {

namespace {

/// The range of a quantized type.
struct QuantizedRange {
  float low, high;
};

QuantizedRange rangeOf(const OpContext &context, ElementType type) {
  if (type == ElementType::I8)
    return {-128.0f, 127.0f};
  if (type == ElementType::U8)
    return {0.0f, 255.0f};
  context.fail(std::string("the quantized type must be i8 or u8, not ") + elementTypeName(type));
}

void requireParameters(const OpContext &context, const ConstView &scale, const ConstView &zeroPoint,
                       ElementType quantized) {
  if (scale.type != ElementType::F32)
    context.fail(std::string("the scale is ") + elementTypeName(scale.type) + ", not f32");
  if (zeroPoint.type != quantized)
    context.fail(std::string("the zero point is ") + elementTypeName(zeroPoint.type) + ", not " +
                 elementTypeName(quantized));
  if (scale.shape != zeroPoint.shape)
    context.fail("the scale " + formatShape(scale.shape) + " and the zero point " + formatShape(zeroPoint.shape) +
                 " differ in shape");
}

/// y = clamp(rint(x / scale) + zero_point) (scalar::quantize).
void quantizeLinearOp(const OpContext &context) {
  const ConstView &x = context.operand(0), &scale = context.operand(1), &zeroPoint = context.operand(2);
  const MutableView &y = context.result();
  if (!isFloatElementType(x.type))
    context.fail(std::string("the input is ") + elementTypeName(x.type) + ", not a float");
  const QuantizedRange range = rangeOf(context, y.type);
  requireParameters(context, scale, zeroPoint, y.type);
  forEachBroadcast<3>(
      context, {&x.shape, &scale.shape, &zeroPoint.shape}, [&](int64_t out, const std::array<int64_t, 3> &in) {
        y.integers[out] =
            scalar::quantize(x.data[in[0]], scale.data[in[1]], zeroPoint.integers[in[2]], range.low, range.high);
      });
}

/// y = (x - zero_point) * scale (scalar::dequantize).
void dequantizeLinearOp(const OpContext &context) {
  const ConstView &x = context.operand(0), &scale = context.operand(1), &zeroPoint = context.operand(2);
  const MutableView &y = context.result();
  rangeOf(context, x.type);
  requireParameters(context, scale, zeroPoint, x.type);
  if (y.type != ElementType::F32)
    context.fail(std::string("the result is ") + elementTypeName(y.type) + ", not f32");
  forEachBroadcast<3>(
      context, {&x.shape, &scale.shape, &zeroPoint.shape}, [&](int64_t out, const std::array<int64_t, 3> &in) {
        y.data[out] = scalar::dequantize(x.integers[in[0]], scale.data[in[1]], zeroPoint.integers[in[2]]);
      });
}

} // namespace

void registerQuantizationOps(OpRegistry &registry) {
  registry.add("QuantizeLinear", OpInfo{quantizeLinearOp, 3, 3, /*typed=*/true});
  registry.add("DequantizeLinear", OpInfo{dequantizeLinearOp, 3, 3, /*typed=*/true});
}

} // namespace fusec::runtime::cpu
