//===- HalfFloat.h - f16 and bf16 conversions -------------------*- C++ -*-===//
//
// IEEE binary16 (f16) and bfloat16 (bf16) to and from float, rounding to
// nearest even, as the GPU's cvt.rn does: overflow gives infinity, results
// below f16's normal range become subnormals, NaN stays NaN. Header-only and
// exception-free: the compiler converts weights with it, the CPU backend
// rounds values with it, and the CUDA emulation uses it for the kernels'
// conversions, so all three round the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H
#define FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace fusec {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// `value` as f16 bits, rounded to nearest even.
inline uint16_t floatToHalfBits(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, keeping the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) // rounds to 65520 or more: infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    // Below 2^-14, f16's smallest normal: a subnormal (or zero), in units of
    // 2^-24. Adding 0.5 (as a float) aligns the mantissa so that the FPU's
    // own round-to-nearest-even does the rounding.
    const float scaled = floatFromBits(magnitude) + 0.5f;
    return static_cast<uint16_t>(sign | (floatBits(scaled) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits.
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u) - 0x38000000u;
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

/// The float an f16 bit pattern denotes (exact).
inline float halfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
  if (exponent == 0x1f) // infinity or NaN
    return floatFromBits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    const float value = static_cast<float>(mantissa) * floatFromBits(0x33800000u);
    return sign ? -value : value;
  }
  return floatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// `value` as bf16 bits (the upper half of a float), rounded to nearest even.
inline uint16_t floatToBfloat16Bits(float value) {
  const uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a quiet NaN
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// The float a bf16 bit pattern denotes (exact).
inline float bfloat16BitsToFloat(uint16_t bf16) { return floatFromBits(static_cast<uint32_t>(bf16) << 16); }

/// `value` rounded to the nearest f16 / bf16, as a float.
inline float roundToHalf(float value) { return halfBitsToFloat(floatToHalfBits(value)); }
inline float roundToBfloat16(float value) { return bfloat16BitsToFloat(floatToBfloat16Bits(value)); }

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H
