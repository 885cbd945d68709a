//===- MemoryPlanner.cpp - Arena placement by liveness --------------------===//
#include "compiler/MemoryPlanner.h"

#include <algorithm>
#include <numeric>

namespace fusec {
namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool livesOverlap(const BufferLifetime &a, const BufferLifetime &b) {
  return a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
}

/// Places the buffers in `members` (indices into `buffers`) whose sizes are
/// `sizeOf(buffer)`; returns the region's size.
template <typename SizeFn>
uint64_t placeRegion(const std::vector<BufferLifetime> &buffers, std::vector<size_t> members,
                     SizeFn sizeOf, uint64_t alignment, std::vector<uint64_t> &offsets) {
  // Largest first; ties by first step then index keep the result deterministic.
  std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    if (sizeOf(buffers[a]) != sizeOf(buffers[b]))
      return sizeOf(buffers[a]) > sizeOf(buffers[b]);
    return buffers[a].firstStep < buffers[b].firstStep;
  });
  std::vector<size_t> placed;
  uint64_t regionSize = 0;
  for (size_t index : members) {
    uint64_t size = alignUp(sizeOf(buffers[index]), alignment);
    // Intervals already taken by buffers live at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t other : placed)
      if (livesOverlap(buffers[index], buffers[other]))
        taken.push_back({offsets[other], offsets[other] + alignUp(sizeOf(buffers[other]), alignment)});
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    offsets[index] = offset;
    regionSize = std::max(regionSize, offset + size);
    placed.push_back(index);
  }
  return regionSize;
}

} // namespace

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers, uint64_t alignment) {
  std::vector<size_t> scaled, fixed;
  for (size_t i = 0; i < buffers.size(); ++i)
    (buffers[i].size.perBatch ? scaled : fixed).push_back(i);

  std::vector<uint64_t> scaledOffsets(buffers.size()), fixedOffsets(buffers.size());
  uint64_t scaledSize = placeRegion(
      buffers, scaled, [](const BufferLifetime &b) { return b.size.perBatch; }, alignment,
      scaledOffsets);
  uint64_t fixedSize = placeRegion(
      buffers, fixed, [](const BufferLifetime &b) { return b.size.fixed; }, alignment,
      fixedOffsets);

  MemoryPlan plan;
  plan.arenaSize = {scaledSize, fixedSize};
  plan.offsets.resize(buffers.size());
  for (size_t index : scaled)
    plan.offsets[index] = {scaledOffsets[index], 0};
  // The fixed region starts where the scaled region ends, at every batch.
  for (size_t index : fixed)
    plan.offsets[index] = {scaledSize, fixedOffsets[index]};

  size_t steps = 0;
  for (const BufferLifetime &buffer : buffers)
    steps = std::max(steps, buffer.lastStep + 1);
  for (size_t step = 0; step < steps; ++step) {
    LinearBytes live;
    for (const BufferLifetime &buffer : buffers) {
      if (buffer.firstStep <= step && step <= buffer.lastStep) {
        live.perBatch += buffer.size.perBatch;
        live.fixed += buffer.size.fixed;
      }
    }
    if (live.at(1) > plan.lowerBound.at(1))
      plan.lowerBound = live;
  }
  return plan;
}

} // namespace fusec
