//===- ElementConversion.cpp - Between stored elements and f32/i64 values -===//

#include "runtime/ElementConversion.h"

#include "support/HalfFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace fusec::runtime {

namespace {

template <typename T> T loadAt(const void *src, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t *>(src) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T> void storeAt(void *dst, size_t index, T value) {
  std::memcpy(static_cast<uint8_t *>(dst) + index * sizeof(T), &value, sizeof(T));
}

/// Significand bits (with the implicit one) of each float type.
int precisionOf(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return 11;
  case ElementType::BF16:
    return 8;
  default:
    return 24;
  }
}

/// An i8 element from its byte (two's complement).
int64_t signedByte(uint8_t bits) { return bits < 128 ? int64_t(bits) : int64_t(bits) - 256; }

} // namespace

void loadFloats(const void *src, ElementType type, size_t count, float *dst) {
  switch (type) {
  case ElementType::F32:
    std::memcpy(dst, src, count * sizeof(float));
    return;
  case ElementType::F16:
    for (size_t i = 0; i < count; ++i)
      dst[i] = halfBitsToFloat(loadAt<uint16_t>(src, i));
    return;
  case ElementType::BF16:
    for (size_t i = 0; i < count; ++i)
      dst[i] = bfloat16BitsToFloat(loadAt<uint16_t>(src, i));
    return;
  default:
    for (size_t i = 0; i < count; ++i)
      dst[i] = static_cast<float>(elementAsDouble(src, type, i));
    return;
  }
}

void storeFloats(const float *src, size_t count, ElementType type, void *dst) {
  switch (type) {
  case ElementType::F32:
    std::memmove(dst, src, count * sizeof(float));
    return;
  case ElementType::F16:
    for (size_t i = 0; i < count; ++i)
      storeAt<uint16_t>(dst, i, floatToHalfBits(src[i]));
    return;
  case ElementType::BF16:
    for (size_t i = 0; i < count; ++i)
      storeAt<uint16_t>(dst, i, floatToBfloat16Bits(src[i]));
    return;
  default:
    for (size_t i = 0; i < count; ++i) {
      const int64_t value = floatToInteger(src[i], type);
      storeIntegers(&value, 1, type, static_cast<uint8_t *>(dst) + i * elementSize(type));
    }
    return;
  }
}

void roundFloats(float *values, size_t count, ElementType type) {
  if (type == ElementType::F16)
    for (size_t i = 0; i < count; ++i)
      values[i] = roundToHalf(values[i]);
  if (type == ElementType::BF16)
    for (size_t i = 0; i < count; ++i)
      values[i] = roundToBfloat16(values[i]);
}

void loadIntegers(const void *src, ElementType type, size_t count, int64_t *dst) {
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
    case ElementType::I64:
      dst[i] = loadAt<int64_t>(src, i);
      break;
    case ElementType::I32:
      dst[i] = loadAt<int32_t>(src, i);
      break;
    case ElementType::I1:
      dst[i] = loadAt<uint8_t>(src, i) != 0;
      break;
    case ElementType::I8:
      dst[i] = signedByte(loadAt<uint8_t>(src, i));
      break;
    case ElementType::U8:
      dst[i] = loadAt<uint8_t>(src, i);
      break;
    default:
      dst[i] = floatToInteger(static_cast<float>(elementAsDouble(src, type, i)), ElementType::I64);
      break;
    }
  }
}

void storeIntegers(const int64_t *src, size_t count, ElementType type, void *dst) {
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
    case ElementType::I64:
      storeAt<int64_t>(dst, i, src[i]);
      break;
    case ElementType::I32:
      storeAt<int32_t>(dst, i, static_cast<int32_t>(src[i]));
      break;
    case ElementType::I1:
      storeAt<uint8_t>(dst, i, src[i] != 0 ? 1 : 0);
      break;
    case ElementType::I8:
      storeAt<int8_t>(dst, i, static_cast<int8_t>(src[i]));
      break;
    case ElementType::U8:
      storeAt<uint8_t>(dst, i, static_cast<uint8_t>(src[i]));
      break;
    default: {
      const float value = integerToFloat(src[i], type);
      storeFloats(&value, 1, type, static_cast<uint8_t *>(dst) + i * elementSize(type));
      break;
    }
    }
  }
}

double elementAsDouble(const void *src, ElementType type, size_t index) {
  switch (type) {
  case ElementType::F32:
    return loadAt<float>(src, index);
  case ElementType::F16:
    return halfBitsToFloat(loadAt<uint16_t>(src, index));
  case ElementType::BF16:
    return bfloat16BitsToFloat(loadAt<uint16_t>(src, index));
  case ElementType::I64:
    return static_cast<double>(loadAt<int64_t>(src, index));
  case ElementType::I32:
    return loadAt<int32_t>(src, index);
  case ElementType::I1:
    return loadAt<uint8_t>(src, index) != 0 ? 1.0 : 0.0;
  case ElementType::I8:
    return double(signedByte(loadAt<uint8_t>(src, index)));
  case ElementType::U8:
    return loadAt<uint8_t>(src, index);
  }
  return 0.0;
}

float floatToFloat(float value, ElementType to) {
  roundFloats(&value, 1, to);
  return value;
}

float integerToFloat(int64_t value, ElementType to) {
  // Round |value| to the target's precision in integer arithmetic, so that
  // the result is rounded once (i64 -> f32 -> bf16 could round twice).
  const bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int shift = 0;
  const int precision = precisionOf(to);
  const int width = magnitude == 0 ? 0 : 64 - __builtin_clzll(magnitude);
  if (width > precision) {
    shift = width - precision;
    const uint64_t remainder = magnitude & ((uint64_t(1) << shift) - 1);
    const uint64_t halfway = uint64_t(1) << (shift - 1);
    magnitude >>= shift;
    if (remainder > halfway || (remainder == halfway && (magnitude & 1)))
      ++magnitude;
  }
  // Exact in float now; f16 may still overflow to infinity, which rounding
  // the exact value gives.
  const float result = std::ldexp(static_cast<float>(magnitude), shift);
  return floatToFloat(negative ? -result : result, to);
}

int64_t floatToInteger(float value, ElementType to) {
  if (to == ElementType::I1)
    return value != 0.0f ? 1 : 0;
  if (std::isnan(value))
    return 0;
  const double truncated = std::trunc(static_cast<double>(value));
  if (to == ElementType::I8 || to == ElementType::U8) {
    const double low = to == ElementType::I8 ? -128.0 : 0.0, high = to == ElementType::I8 ? 127.0 : 255.0;
    return static_cast<int64_t>(std::clamp(truncated, low, high));
  }
  if (to == ElementType::I32) {
    if (truncated >= 2147483647.0)
      return std::numeric_limits<int32_t>::max();
    if (truncated <= -2147483648.0)
      return std::numeric_limits<int32_t>::min();
    return static_cast<int64_t>(truncated);
  }
  // 2^63 is exact in double; every float below it converts exactly.
  if (truncated >= 9223372036854775808.0)
    return std::numeric_limits<int64_t>::max();
  if (truncated < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(truncated);
}

int64_t integerToInteger(int64_t value, ElementType to) {
  if (to == ElementType::I1)
    return value != 0 ? 1 : 0;
  if (to == ElementType::I8 || to == ElementType::U8)
    return std::clamp<int64_t>(value, to == ElementType::I8 ? -128 : 0, to == ElementType::I8 ? 127 : 255);
  if (to == ElementType::I32) {
    if (value > std::numeric_limits<int32_t>::max())
      return std::numeric_limits<int32_t>::max();
    if (value < std::numeric_limits<int32_t>::min())
      return std::numeric_limits<int32_t>::min();
  }
  return value;
}

} // namespace fusec::runtime
