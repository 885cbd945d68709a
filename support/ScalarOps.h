//===- ScalarOps.h - ONNX's float semantics of a few binary ops -*- C++ -*-===//
//
// The CPU backend computes these ops element by element and the ONNX
// importer (and the fuse ops' folders) fold them on constants; all must give
// the same value, NaN and the sign of a zero included.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_SCALAROPS_H
#define FUSEC_RUNTIME_SUPPORT_SCALAROPS_H

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fusec::scalar {

/// Max and Min: a NaN operand on the left propagates.
inline float max(float a, float b) { return (a > b || std::isnan(a)) ? a : b; }
inline float min(float a, float b) { return (a < b || std::isnan(a)) ? a : b; }

/// Mod: with `fmod` the remainder has the dividend's sign (C); without, the
/// divisor's (Python; Mod-28 spells it out: a zero result too).
inline float mod(float a, float b, bool fmod) {
  float r = std::fmod(a, b);
  if (!fmod && r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
    r += b;
  else if (!fmod && r == 0.0f)
    r = std::copysign(0.0f, b);
  return r;
}

/// QuantizeLinear to a type of range [low, high] (i8: -128..127, u8:
/// 0..255): one f32 division, rounded to the nearest integer with ties to
/// even (the default rounding mode), plus the zero point, saturated; NaN
/// gives the zero point. fusec_quantize (fusec_cuda_prelude.h) is the same
/// on the GPU.
inline int64_t quantize(float x, float scale, int64_t zeroPoint, float low, float high) {
  const float quotient = x / scale, zero = static_cast<float>(zeroPoint);
  const float shifted = std::isnan(quotient) ? zero : std::rint(quotient) + zero;
  return static_cast<int64_t>(std::clamp(shifted, low, high));
}

/// DequantizeLinear: the difference exact, the product one f32 rounding.
inline float dequantize(int64_t q, float scale, int64_t zeroPoint) { return static_cast<float>(q - zeroPoint) * scale; }

} // namespace fusec::scalar

#endif // FUSEC_RUNTIME_SUPPORT_SCALAROPS_H
