//===- BatchLimit.cpp - The largest batch a plan can run at -----------------===//

#include "runtime/BatchLimit.h"

#include "runtime/Error.h"
#include "support/CheckedMath.h"
#include "support/IndexedBatch.h"

#include <algorithm>
#include <limits>
#include <unistd.h>

namespace fusec::runtime {

uint64_t physicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long pageSize = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(kMaxTensorBytes);
  return uint64_t(pages) * uint64_t(pageSize);
}

BatchLimit batchLimitOf(const Plan &plan, uint64_t availableBytes) {
  // The verifier bounds every term by kMaxTensorBytes (2^52) and a plan has
  // far fewer than 2^10 of them, so these sums cannot overflow; the checked
  // adds keep that an invariant rather than an assumption.
  BatchLimit limit;
  limit.availableBytes = availableBytes;
  const int64_t saturated = std::numeric_limits<int64_t>::max();
  auto add = [&](int64_t &total, int64_t term) { total = checkedAdd(total, term).value_or(saturated); };
  add(limit.bytesPerBatch, plan.arena().size.perBatch);
  add(limit.fixedBytes, plan.arena().size.fixed);
  for (const BufferDesc &buffer : plan.buffers()) {
    if (buffer.kind != BufferKind::Input && buffer.kind != BufferKind::Output)
      continue;
    const BatchLinear bytes = buffer.byteSize();
    add(limit.bytesPerBatch, bytes.perBatch);
    add(limit.fixedBytes, bytes.fixed);
  }
  const int64_t available = int64_t(std::min<uint64_t>(availableBytes, uint64_t(saturated)));
  if (limit.fixedBytes > available)
    limit.maxBatch = 0;
  else if (limit.bytesPerBatch == 0)
    limit.maxBatch = saturated;
  else
    limit.maxBatch = (available - limit.fixedBytes) / limit.bytesPerBatch;
  limit.maxBatch = std::min(limit.maxBatch, kLargestIndexedBatch);
  return limit;
}

void checkBatchAgainst(const Plan &plan, const BatchLimit &limit, int64_t batch) {
  if (batch < 1)
    throw Error("batch size must be at least 1, got " + std::to_string(batch));
  if (batch <= limit.maxBatch)
    return;
  if (batch > kLargestIndexedBatch)
    throw Error(plan.sourceName() + ": batch size " + std::to_string(batch) + " is too large: a plan's kernels " +
                "index batches up to " + std::to_string(kLargestIndexedBatch) + ", so the largest batch is " +
                std::to_string(limit.maxBatch));
  throw Error(plan.sourceName() + ": batch size " + std::to_string(batch) + " is too large: a run needs " +
              std::to_string(limit.bytesPerBatch) + " bytes per sample plus " + std::to_string(limit.fixedBytes) +
              " (arena, inputs and outputs) and this machine has " + std::to_string(limit.availableBytes) +
              " bytes of memory, so the largest batch is " + std::to_string(limit.maxBatch));
}

} // namespace fusec::runtime
