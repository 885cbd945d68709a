//===- ElementConversion.h - Between stored elements and f32/i64 values ---===//
//
// The CPU reference computes float values in f32 and integer values in
// int64_t; these helpers move elements between a tensor's storage (any
// ElementType, little-endian, possibly unaligned) and those computation
// types, and implement Cast's conversions (docs/plan-format.md, "Element
// types").
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_ELEMENTCONVERSION_H
#define FUSEC_RUNTIME_ELEMENTCONVERSION_H

#include "runtime/ElementType.h"

#include <cstddef>
#include <cstdint>

namespace fusec::runtime {

/// Reads `count` elements of float type `type` from `src` as f32 (exact).
void loadFloats(const void *src, ElementType type, size_t count, float *dst);
/// Writes `count` f32 values into storage of float type `type`, rounding to
/// nearest even where the type is narrower.
void storeFloats(const float *src, size_t count, ElementType type, void *dst);
/// Rounds f32 values to the nearest value of float type `type` (f16, bf16);
/// a no-op for f32.
void roundFloats(float *values, size_t count, ElementType type);

/// Reads `count` elements of integer type `type` (i64, i32, i1, i8, u8) as
/// int64_t.
void loadIntegers(const void *src, ElementType type, size_t count, int64_t *dst);
/// Writes int64_t values into storage of integer type `type`; each value
/// must already lie in the type's range (convertInteger() makes it so).
void storeIntegers(const int64_t *src, size_t count, ElementType type, void *dst);

/// Element `index` of storage of any type, as a double (exact for f32, f16,
/// bf16, i32 and i1; i64 beyond 2^53 rounds).
double elementAsDouble(const void *src, ElementType type, size_t index);

/// Cast's conversions. To a float type: the nearest value, ties to even
/// (from an integer, rounded once, directly to the target's precision). To
/// an integer type: floats truncate toward zero, NaN becomes 0, and values
/// beyond the type's range saturate; to i1, x != 0.
float floatToFloat(float value, ElementType to);
float integerToFloat(int64_t value, ElementType to);
int64_t floatToInteger(float value, ElementType to);
int64_t integerToInteger(int64_t value, ElementType to);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_ELEMENTCONVERSION_H
