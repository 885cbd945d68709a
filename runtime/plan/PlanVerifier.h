//===- PlanVerifier.h - Cross-check a parsed plan manifest ------------------===//
//
// After verification every id and index in the manifest is in range, every
// shape a kernel sees agrees with the buffer behind it, weights lie inside
// the weights section, arena buffers lie inside the arena at every batch
// size, kernels only read buffers that are inputs, weights or written by
// an earlier kernel, and every device kernel of a GPU plan has a launch
// geometry within CUDA's block limits and kernel images inside the
// kernel_images section. Backends rely on this and do no range checks of their
// own.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLANVERIFIER_H
#define FUSEC_RUNTIME_PLAN_PLANVERIFIER_H

#include "runtime/plan/Plan.h"

#include <optional>
#include <string>

namespace fusec::runtime {

/// The sizes of the sections the manifest points into; nullopt for a
/// section the plan does not have.
struct SectionSizes {
  std::optional<uint64_t> weights;
  std::optional<uint64_t> kernelImages;
};

/// Throws Error "<sourceName>: <reason>" on the first problem.
void verifyManifest(const PlanManifest &manifest, const SectionSizes &sections, const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_PLANVERIFIER_H
