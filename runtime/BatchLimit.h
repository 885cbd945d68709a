//===- BatchLimit.h - The largest batch a plan can run at -------------------===//
//
// Every per-run allocation of a plan (the arena, the graph inputs and
// outputs) grows linearly with the batch size, so a huge --batch or C API
// batch would overflow the byte arithmetic or exhaust memory. The limit is
// derived once per session from the plan and the machine's memory, and every
// run checks its batch against it before anything is allocated.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_BATCHLIMIT_H
#define FUSEC_RUNTIME_BATCHLIMIT_H

#include "runtime/plan/Plan.h"

#include <cstdint>

namespace fusec::runtime {

struct BatchLimit {
  /// Bytes one run needs: perBatch * batch + fixed (arena, inputs, outputs).
  int64_t bytesPerBatch = 0;
  int64_t fixedBytes = 0;
  /// The memory the limit was derived from.
  uint64_t availableBytes = 0;
  /// The largest batch whose run fits availableBytes (0 if even the fixed
  /// part does not), at most kLargestIndexedBatch (the batch the kernels'
  /// index math is checked at, support/IndexedBatch.h).
  int64_t maxBatch = 0;
};

/// The physical memory of this machine in bytes.
uint64_t physicalMemoryBytes();

/// The limit for `plan` given `availableBytes` of memory.
BatchLimit batchLimitOf(const Plan &plan, uint64_t availableBytes);

/// Throws Error naming the plan unless 1 <= batch <= limit.maxBatch.
void checkBatchAgainst(const Plan &plan, const BatchLimit &limit, int64_t batch);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_BATCHLIMIT_H
