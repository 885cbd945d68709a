//===- HalfFloatTest.cpp - f16 and bf16 conversions against a reference ----===//
//
// The reference rounds in double: it finds the two representable neighbours
// of a value by their bit patterns and picks the nearer, the even one on a
// tie, so it shares no arithmetic with HalfFloat.h.
//
//===----------------------------------------------------------------------===//

#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace fusec;

namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint32_t toBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// The value of a non-negative half bit pattern, by the definition of
/// binary16; 0x7c00 (infinity) counts as 65536 for rounding.
double halfValue(uint16_t bits) {
  const int exponent = bits >> 10, mantissa = bits & 0x3ff;
  if (exponent == 0)
    return std::ldexp(mantissa, -24);
  return std::ldexp(1024 + mantissa, exponent - 25);
}

/// The nearest of two neighbouring patterns `low` < `high` to `x`, ties to
/// the even pattern.
template <typename Bits> Bits nearest(double x, Bits low, double lowValue, Bits high, double highValue) {
  const double below = x - lowValue, above = highValue - x;
  if (below < above)
    return low;
  if (above < below)
    return high;
  return (low & 1) ? high : low;
}

uint16_t referenceHalf(float value) {
  const double x = std::fabs(static_cast<double>(value));
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  // Binary search over the non-negative patterns 0 .. 0x7c00, which are
  // ordered like their values.
  uint16_t low = 0, high = 0x7c00;
  if (x >= halfValue(high))
    return sign | 0x7c00;
  while (high - low > 1) {
    const uint16_t middle = static_cast<uint16_t>((low + high) / 2);
    (halfValue(middle) <= x ? low : high) = middle;
  }
  return sign | nearest<uint16_t>(x, low, halfValue(low), high, halfValue(high));
}

uint16_t referenceBfloat16(float value) {
  const double x = std::fabs(static_cast<double>(value));
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const uint16_t low = static_cast<uint16_t>((toBits(value) & 0x7fffffffu) >> 16);
  if (low == 0x7f80) // infinity
    return sign | low;
  const uint16_t high = low + 1;
  const double highValue = high == 0x7f80 ? std::ldexp(1.0, 128) : fromBits(uint32_t(high) << 16);
  return sign | nearest<uint16_t>(x, low, fromBits(uint32_t(low) << 16), high, highValue);
}

} // namespace

TEST_CASE("every f16 bit pattern converts to its value and back") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    const float value = halfBitsToFloat(half);
    const bool isNan = (half & 0x7c00) == 0x7c00 && (half & 0x3ff) != 0;
    if (isNan) {
      REQUIRE(std::isnan(value));
      // Quiet NaNs round-trip exactly; signalling ones come back quiet.
      REQUIRE(floatToHalfBits(value) == (half | 0x200));
      continue;
    }
    const double expected = (half & 0x8000 ? -1 : 1) * halfValue(half & 0x7fff);
    if ((half & 0x7fff) == 0x7c00)
      REQUIRE(std::isinf(value));
    else
      REQUIRE(static_cast<double>(value) == expected);
    REQUIRE(floatToHalfBits(value) == half);
  }
}

TEST_CASE("float to f16 rounds like the double reference") {
  // Every midpoint between neighbouring halves (exact in float): the ties.
  for (uint16_t bits = 0; bits < 0x7c00; ++bits) {
    const float middle = static_cast<float>((halfValue(bits) + halfValue(bits + 1)) / 2);
    REQUIRE(static_cast<double>(middle) == (halfValue(bits) + halfValue(bits + 1)) / 2);
    const uint16_t even = (bits & 1) ? bits + 1 : bits;
    REQUIRE(floatToHalfBits(middle) == even);
    REQUIRE(referenceHalf(middle) == even);
    REQUIRE(floatToHalfBits(-middle) == (0x8000 | even));
    // Just either side of the tie.
    REQUIRE(floatToHalfBits(std::nextafter(middle, 0.0f)) == bits);
    REQUIRE(floatToHalfBits(std::nextafter(middle, INFINITY)) == bits + 1);
  }
  // A sweep over the float bit patterns (both signs, every exponent).
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 997) {
    const float value = fromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    INFO("float bits 0x" << std::hex << bits);
    REQUIRE(floatToHalfBits(value) == referenceHalf(value));
  }
}

TEST_CASE("f16 overflow, subnormals, zeros and NaN") {
  CHECK(floatToHalfBits(65504.0f) == 0x7bff);
  CHECK(floatToHalfBits(65519.996f) == 0x7bff);
  CHECK(floatToHalfBits(65520.0f) == 0x7c00); // the tie goes to the even pattern: infinity
  CHECK(floatToHalfBits(-1e10f) == 0xfc00);
  CHECK(floatToHalfBits(INFINITY) == 0x7c00);
  CHECK(floatToHalfBits(std::ldexp(1.0f, -24)) == 0x0001);    // smallest subnormal
  CHECK(floatToHalfBits(std::ldexp(1.0f, -25)) == 0x0000);    // tie with zero: even
  CHECK(floatToHalfBits(std::ldexp(1.5f, -25)) == 0x0001);    // above the tie
  CHECK(floatToHalfBits(std::ldexp(3.0f, -25)) == 0x0002);    // 1.5 units: tie to even 2
  CHECK(floatToHalfBits(std::ldexp(1023.5f, -24)) == 0x0400); // rounds up into the normals
  CHECK(floatToHalfBits(std::numeric_limits<float>::denorm_min()) == 0);
  CHECK(floatToHalfBits(-0.0f) == 0x8000);
  CHECK(std::isnan(halfBitsToFloat(floatToHalfBits(NAN))));
  CHECK(std::isnan(roundToHalf(-NAN)));
  CHECK(roundToHalf(0.1f) == 0.0999755859375f);
  CHECK(roundToHalf(1.0f + std::ldexp(1.0f, -11)) == 1.0f); // tie to even
}

TEST_CASE("float to bf16 rounds like the double reference") {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 991) {
    const float value = fromBits(static_cast<uint32_t>(bits));
    INFO("float bits 0x" << std::hex << bits);
    if (std::isnan(value)) {
      REQUIRE(std::isnan(bfloat16BitsToFloat(floatToBfloat16Bits(value))));
      continue;
    }
    REQUIRE(floatToBfloat16Bits(value) == referenceBfloat16(value));
  }
  // Ties: exactly half-way goes to the even pattern.
  CHECK(floatToBfloat16Bits(fromBits(0x3f808000)) == 0x3f80);
  CHECK(floatToBfloat16Bits(fromBits(0x3f818000)) == 0x3f82);
  CHECK(floatToBfloat16Bits(fromBits(0x3f808001)) == 0x3f81);
  // The largest floats round up to infinity.
  CHECK(floatToBfloat16Bits(std::numeric_limits<float>::max()) == 0x7f80);
  CHECK(floatToBfloat16Bits(-std::numeric_limits<float>::max()) == 0xff80);
  CHECK(floatToBfloat16Bits(fromBits(0x7f7f7fff)) == 0x7f7f);
  // Every bf16 pattern converts exactly and back; NaNs stay quiet NaNs.
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float value = bfloat16BitsToFloat(static_cast<uint16_t>(bits));
    REQUIRE(toBits(value) == bits << 16);
    if (std::isnan(value))
      REQUIRE(floatToBfloat16Bits(value) == (bits | 0x40));
    else
      REQUIRE(floatToBfloat16Bits(value) == bits);
  }
  CHECK(roundToBfloat16(1.0f / 3.0f) == fromBits(0x3eab0000));
}
