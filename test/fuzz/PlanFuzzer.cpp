//===- PlanFuzzer.cpp - libFuzzer harness: plan reader, verifier, CPU run ---===//
//
// Feeds arbitrary bytes to Plan::fromBytes (container, manifest reader and
// verifier) and runs every plan that loads once on the CPU backend at batch
// 1 with deterministic random inputs, each of its shape variants once. Any Error is an expected rejection;
// a crash, a sanitizer report, an escaping exception of another type or a
// hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "runtime/BatchLimit.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/plan/Plan.h"
#include "tools/fuserun/RandomInputs.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

using namespace fusec::runtime;

namespace {

/// Plans whose run at batch 1 needs more than this are verified but not run:
/// a loadable plan with a 4 GiB arena is valid, yet it would only measure
/// the allocator. The batch limit logic itself is exercised at this size.
constexpr uint64_t kRunMemoryBytes = uint64_t(16) << 20;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    auto plan = std::make_shared<const Plan>(Plan::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.plan"));
    // Every shape variant, each picked by its inputs' shapes; one with
    // ranges at both ends of them, which the session specializes it to.
    std::vector<std::shared_ptr<const Plan>> variants;
    auto add = [&](const Plan &variant) {
      if (variant.ranges().empty()) {
        variants.push_back(std::shared_ptr<const Plan>(plan, &variant));
        return;
      }
      for (const auto &sizes : {rangeMinimums(variant.ranges()), rangeMaximums(variant.ranges())})
        variants.push_back(std::make_shared<const Plan>(variant.specialize(sizes)));
    };
    add(*plan);
    for (const Plan &variant : plan->shapeVariants())
      add(variant);
    Session session(plan, Device::Cpu);
    for (const auto &variant : variants)
      if (batchLimitOf(*variant, kRunMemoryBytes).maxBatch >= 1)
        session.run(1, makeRandomInputs(*variant, 1, /*seed=*/1));
  } catch (const Error &) {
  }
  return 0;
}
