//===- MemoryPlannerTest.cpp - Arena placement by liveness ----------------===//
#include "compiler/MemoryPlanner.h"

#include <catch2/catch.hpp>

using namespace fusec;

namespace {
bool overlapAt(const MemoryPlan &plan, const std::vector<BufferLifetime> &buffers, size_t a, size_t b, uint64_t batch) {
  uint64_t a0 = plan.offsets[a].at(batch), a1 = a0 + buffers[a].size.at(batch);
  uint64_t b0 = plan.offsets[b].at(batch), b1 = b0 + buffers[b].size.at(batch);
  return a0 < b1 && b0 < a1;
}
} // namespace

TEST_CASE("buffers with disjoint lifetimes share bytes", "[memory]") {
  // A chain a -> b -> c: a and c never live together.
  std::vector<BufferLifetime> buffers = {{{1024, 0}, 0, 1}, {{1024, 0}, 1, 2}, {{1024, 0}, 2, 3}};
  MemoryPlan plan = planMemory(buffers, 64);
  CHECK(plan.arenaSize == BatchLinear{2048, 0});
  CHECK(plan.offsets[0] == plan.offsets[2]);
  CHECK(plan.lowerBound == BatchLinear{2048, 0});
}

TEST_CASE("placements never overlap live buffers at any batch", "[memory]") {
  std::vector<BufferLifetime> buffers = {{{256, 0}, 0, 4}, {{0, 100}, 1, 2}, {{512, 0}, 1, 3}, {{0, 64}, 2, 5},
                                         {{128, 0}, 3, 5}, {{64, 0}, 4, 4},  {{0, 1000}, 0, 0}};
  MemoryPlan plan = planMemory(buffers, 64);
  for (uint64_t batch : {1, 3, 16})
    for (size_t a = 0; a < buffers.size(); ++a)
      for (size_t b = a + 1; b < buffers.size(); ++b) {
        bool live = buffers[a].firstStep <= buffers[b].lastStep && buffers[b].firstStep <= buffers[a].lastStep;
        if (live)
          CHECK_FALSE(overlapAt(plan, buffers, a, b, batch));
      }
  for (const BatchLinear &offset : plan.offsets) {
    CHECK(offset.perBatch % 64 == 0);
    CHECK(offset.fixed % 64 == 0);
  }
  for (size_t i = 0; i < buffers.size(); ++i)
    CHECK(plan.offsets[i].at(16) + buffers[i].size.at(16) <= plan.arenaSize.at(16));
  CHECK(plan.lowerBound.at(1) <= plan.arenaSize.at(1));
}
