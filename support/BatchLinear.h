//===- BatchLinear.h - Quantities linear in the batch size ------*- C++ -*-===//
//
// The batch is a plan's dynamic dimension, so element counts, byte sizes,
// arena offsets and the work a launch grid covers are all linear functions of
// it: `perBatch * batch + fixed`. Codegen, the memory planner, the plan writer
// and the runtime share this one type for them; a grid dimension is such a
// quantity divided (rounding up) by the work one block covers.
//
// Plain C++ with no dependencies: part of fusec_support, which both the
// compiler and the runtime use.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_BATCHLINEAR_H
#define FUSEC_RUNTIME_SUPPORT_BATCHLINEAR_H

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fusec {

/// perBatch * batch + fixed.
struct BatchLinear {
  int64_t perBatch = 0;
  int64_t fixed = 0;

  /// The value at `batch` (>= 0). Saturates at INT64_MAX rather than
  /// overflowing, so that callers can compare the result with their limits.
  int64_t at(int64_t batch) const {
    int64_t scaled = 0, sum = 0;
    if (__builtin_mul_overflow(perBatch, batch, &scaled) || __builtin_add_overflow(scaled, fixed, &sum))
      return std::numeric_limits<int64_t>::max();
    return sum;
  }

  /// True when the value does not depend on the batch.
  bool isFixed() const { return perBatch == 0; }

  friend bool operator==(const BatchLinear &a, const BatchLinear &b) {
    return a.perBatch == b.perBatch && a.fixed == b.fixed;
  }
  friend bool operator!=(const BatchLinear &a, const BatchLinear &b) { return !(a == b); }
};

/// One dimension of a launch grid: ceil(work.at(batch) / divisor), at least 1
/// (a grid dimension of zero blocks is not a launch).
struct GridDim {
  BatchLinear work;
  int64_t divisor = 1;

  /// Saturates at INT64_MAX like BatchLinear::at; the scheduler rejects
  /// anything above the device's grid limits.
  int64_t at(int64_t batch) const {
    const int64_t total = work.at(batch);
    if (total <= 0)
      return 1;
    return total / divisor + (total % divisor != 0);
  }

  friend bool operator==(const GridDim &a, const GridDim &b) { return a.work == b.work && a.divisor == b.divisor; }
};

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_BATCHLINEAR_H
