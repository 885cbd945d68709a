//===- MemoryPlanner.cpp - Arena placement by liveness --------------------===//
#include "compiler/MemoryPlanner.h"

#include <algorithm>
#include <numeric>

namespace fusec {
namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

/// Places the buffers in `members` (indices into `buffers`) whose sizes are
/// `sizeOf(buffer)`; returns the region's size.
template <typename SizeFn>
uint64_t placeRegion(const std::vector<BufferLifetime> &buffers, std::vector<size_t> members, SizeFn sizeOf,
                     uint64_t alignment, std::vector<uint64_t> &offsets) {
  // Largest first; ties by first step then index keep the result deterministic.
  std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    if (sizeOf(buffers[a]) != sizeOf(buffers[b]))
      return sizeOf(buffers[a]) > sizeOf(buffers[b]);
    return buffers[a].firstStep < buffers[b].firstStep;
  });
  // Which placed buffers are live at each step, so a buffer is only checked
  // against the buffers it coexists with.
  size_t steps = 0;
  for (size_t index : members)
    steps = std::max(steps, buffers[index].lastStep + 1);
  std::vector<std::vector<size_t>> placedLiveAt(steps);
  uint64_t regionSize = 0;
  for (size_t index : members) {
    const BufferLifetime &buffer = buffers[index];
    uint64_t size = alignUp(sizeOf(buffer), alignment);
    std::vector<size_t> neighbours;
    for (size_t step = buffer.firstStep; step <= buffer.lastStep; ++step)
      neighbours.insert(neighbours.end(), placedLiveAt[step].begin(), placedLiveAt[step].end());
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    // Intervals already taken by buffers live at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t other : neighbours)
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
    for (size_t step = buffer.firstStep; step <= buffer.lastStep; ++step)
      placedLiveAt[step].push_back(index);
  }
  return regionSize;
}

} // namespace

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers, uint64_t alignment) {
  std::vector<size_t> scaled, fixed;
  for (size_t i = 0; i < buffers.size(); ++i)
    (buffers[i].size.perBatch ? scaled : fixed).push_back(i);

  std::vector<uint64_t> scaledOffsets(buffers.size()), fixedOffsets(buffers.size());
  uint64_t scaledSize =
      placeRegion(buffers, scaled, [](const BufferLifetime &b) { return b.size.perBatch; }, alignment, scaledOffsets);
  uint64_t fixedSize =
      placeRegion(buffers, fixed, [](const BufferLifetime &b) { return b.size.fixed; }, alignment, fixedOffsets);

  MemoryPlan plan;
  plan.arenaSize = {int64_t(scaledSize), int64_t(fixedSize)};
  plan.offsets.resize(buffers.size());
  for (size_t index : scaled)
    plan.offsets[index] = {int64_t(scaledOffsets[index]), 0};
  // The fixed region starts where the scaled region ends, at every batch.
  for (size_t index : fixed)
    plan.offsets[index] = {int64_t(scaledSize), int64_t(fixedOffsets[index])};

  size_t steps = 0;
  for (const BufferLifetime &buffer : buffers)
    steps = std::max(steps, buffer.lastStep + 1);
  // Sweep: bytes become live at a buffer's first step and die after its last.
  std::vector<int64_t> deltaPerBatch(steps + 1, 0), deltaFixed(steps + 1, 0);
  for (const BufferLifetime &buffer : buffers) {
    deltaPerBatch[buffer.firstStep] += buffer.size.perBatch;
    deltaPerBatch[buffer.lastStep + 1] -= buffer.size.perBatch;
    deltaFixed[buffer.firstStep] += buffer.size.fixed;
    deltaFixed[buffer.lastStep + 1] -= buffer.size.fixed;
  }
  int64_t livePerBatch = 0, liveFixed = 0;
  for (size_t step = 0; step < steps; ++step) {
    livePerBatch += deltaPerBatch[step];
    liveFixed += deltaFixed[step];
    BatchLinear live{livePerBatch, liveFixed};
    if (live.at(1) > plan.lowerBound.at(1))
      plan.lowerBound = live;
  }
  return plan;
}

} // namespace fusec
