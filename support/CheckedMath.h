//===- CheckedMath.h - Overflow-checked size arithmetic ---------*- C++ -*-===//
//
// Element counts, byte sizes, shapes and window geometry all come from files
// (models, plans, .npy inputs) and from the batch size a user asks for, so
// every product and sum of them may overflow int64_t. These helpers compute
// such sizes with __builtin_*_overflow and return std::nullopt instead of
// wrapping; each caller turns that into an error naming its tensor or
// attribute. They throw nothing, so the exception-free MLIR code (ir/,
// compiler/) and the runtime share them.
//
// kMaxTensorBytes bounds what any one tensor may occupy. The importers, shape
// inference, the plan writer and the plan verifier all apply the same bound,
// so the compiler never writes a plan the runtime calls implausible.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_CHECKEDMATH_H
#define FUSEC_RUNTIME_SUPPORT_CHECKEDMATH_H

#include <cstdint>
#include <limits>
#include <optional>

namespace fusec {

/// 4 PiB: larger tensors are corrupt data, not models. Bounding sizes by it
/// also leaves room to add a few of them without overflowing int64_t.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 52;

/// The symbolic batch dimension in a shape (plan::kBatchDim).
inline constexpr int64_t kShapeBatchDim = -1;

/// a * b, or nullopt if it overflows int64_t.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a + b, or nullopt if it overflows int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a - b, or nullopt if it overflows int64_t.
inline std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_sub_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a + b + c, or nullopt if any partial sum overflows.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b, int64_t c) {
  std::optional<int64_t> ab = checkedAdd(a, b);
  return ab ? checkedAdd(*ab, c) : std::nullopt;
}

/// `value` as a float, +-infinity where it is finite but beyond float's range
/// (a plain conversion of such a value is undefined behaviour).
inline float narrowToFloat(double value) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (value > kMax)
    return std::numeric_limits<float>::infinity();
  if (value < -kMax)
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}

/// The product of `dims`, or nullopt if a dimension is negative or the
/// product overflows. A zero dimension makes the product zero whatever the
/// other dimensions are, but they must still be non-negative.
template <typename Range> std::optional<int64_t> checkedElementCount(const Range &dims) {
  int64_t count = 1;
  bool overflowed = false;
  for (int64_t dim : dims) {
    if (dim < 0)
      return std::nullopt;
    if (!overflowed && !__builtin_mul_overflow(count, dim, &count))
      continue;
    overflowed = true;
  }
  for (int64_t dim : dims)
    if (dim == 0)
      return 0;
  if (overflowed)
    return std::nullopt;
  return count;
}

/// The bytes of a shape whose batch dimensions (kShapeBatchDim) are `batch`,
/// with `elementBytes` bytes per element (float32 unless given), or nullopt if
/// a dimension is invalid, the size overflows, or it exceeds kMaxTensorBytes.
template <typename Range>
std::optional<int64_t> checkedTensorBytes(const Range &dims, int64_t batch = 1, int64_t elementBytes = 4) {
  int64_t count = 1;
  bool empty = false;
  for (int64_t dim : dims) {
    const int64_t size = dim == kShapeBatchDim ? batch : dim;
    if (size < 0)
      return std::nullopt;
    empty |= size == 0;
    std::optional<int64_t> product = checkedMul(count, size == 0 ? 1 : size);
    if (!product || *product > kMaxTensorBytes)
      return std::nullopt;
    count = *product;
  }
  if (empty)
    return 0;
  std::optional<int64_t> bytes = checkedMul(count, elementBytes);
  if (!bytes || *bytes > kMaxTensorBytes)
    return std::nullopt;
  return bytes;
}

/// Whether a shape is one fusec handles: every dimension non-negative (or the
/// batch dimension, if `allowBatch`) and, at batch 1, at most
/// kMaxTensorBytes of float32 data.
template <typename Range> bool isPlausibleShape(const Range &dims, bool allowBatch) {
  for (int64_t dim : dims)
    if (dim < 0 && !(allowBatch && dim == kShapeBatchDim))
      return false;
  return checkedTensorBytes(dims).has_value();
}

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_CHECKEDMATH_H
