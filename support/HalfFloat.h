//===- HalfFloat.h - IEEE binary16 and bfloat16 conversions -----*- C++ -*-===//
//
// Bit-exact conversions between float and the two 16-bit float formats a
// plan may hold: IEEE binary16 ("f16") and bfloat16 ("bf16", the upper half
// of an f32). Float to 16 bits rounds to nearest, ties to even; values too
// large become infinities; f16 keeps subnormals; a NaN stays a (quiet) NaN.
// Header-only, exception-free and free of dependencies, so the runtime, the
// compiler and the codegen emulation all round exactly alike.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H
#define FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace fusec {

namespace detail {
inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}
inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
} // namespace detail

inline uint16_t floatToHalfBits(float value) {
  const uint32_t bits = detail::floatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, keeping the payload's top bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) // >= 65520 rounds past 65504, the largest half
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) { // >= 2^-14: a normal half
    // Rebias the exponent (127 -> 15), then round away the 13 low bits.
    uint32_t rebiased = magnitude - 0x38000000u;
    rebiased += 0xfffu + ((rebiased >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rebiased >> 13));
  }
  // A subnormal half: the value in units of 2^-24, rounded to nearest even.
  const uint32_t exponent = magnitude >> 23;
  if (exponent == 0)
    return static_cast<uint16_t>(sign);   // f32 subnormals are far below 2^-25
  const uint32_t shift = 126u - exponent; // >= 14
  if (shift > 24)
    return static_cast<uint16_t>(sign); // below 2^-25: rounds to zero
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t quotient = mantissa >> shift;
  const uint32_t remainder = mantissa & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (remainder > halfway || (remainder == halfway && (quotient & 1u)))
    ++quotient; // may carry into the smallest normal, which encodes the same
  return static_cast<uint16_t>(sign | quotient);
}

inline float halfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1fu)
    return detail::bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  return detail::bitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t floatToBfloat16Bits(float value) {
  const uint32_t bits = detail::floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, make it quiet
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round away the low 16 bits to nearest even; a carry into the exponent is
  // the correct rounding (up to infinity for the largest finite floats).
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

inline float bfloat16BitsToFloat(uint16_t bits) { return detail::bitsToFloat(static_cast<uint32_t>(bits) << 16); }

/// The nearest f16 value (as a float).
inline float roundToHalf(float value) { return halfBitsToFloat(floatToHalfBits(value)); }
/// The nearest bf16 value (as a float).
inline float roundToBfloat16(float value) { return bfloat16BitsToFloat(floatToBfloat16Bits(value)); }

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_HALFFLOAT_H
