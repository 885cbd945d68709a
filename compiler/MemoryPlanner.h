//===- MemoryPlanner.h - Arena placement by liveness -----------*- C++ -*-===//
//
// Intermediate tensors share one arena: a tensor's bytes are reused once its
// last reader has run. Sizes are linear in the batch size (`perBatch * batch
// + fixed`), and so are offsets: batch-scaled tensors are placed in a region
// whose layout, computed in per-batch bytes, scales with the batch without
// creating overlaps; fixed-size tensors follow it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_MEMORYPLANNER_H
#define FUSEC_COMPILER_MEMORYPLANNER_H

#include "support/BatchLinear.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusec {

struct BufferLifetime {
  /// Exactly one of perBatch/fixed is non-zero (or both zero for empty tensors).
  BatchLinear size;
  /// The step (kernel index) writing the buffer and the last step reading it.
  size_t firstStep = 0;
  size_t lastStep = 0;
};

struct MemoryPlan {
  /// One offset per buffer, in the input order.
  std::vector<BatchLinear> offsets;
  BatchLinear arenaSize;
  /// Peak of simultaneously live bytes at batch 1, at the step where it peaks:
  /// no placement can use less at that step, at any batch.
  BatchLinear lowerBound;
};

/// Greedy by size: larger buffers are placed first, each at the lowest
/// aligned offset that does not overlap a placed buffer live at the same time.
MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers, uint64_t alignment);

} // namespace fusec

#endif // FUSEC_COMPILER_MEMORYPLANNER_H
