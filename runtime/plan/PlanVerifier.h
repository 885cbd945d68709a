//===- PlanVerifier.h - Cross-check a parsed plan manifest ------------------===//
//
// After verification every id and index in the manifest is in range, every
// shape a kernel sees agrees with the buffer behind it, weights lie inside
// the weights section, arena buffers lie inside the arena at every batch
// size, and kernels only read buffers that are inputs, weights or written by
// an earlier kernel. Backends rely on this and do no range checks of their
// own.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLANVERIFIER_H
#define FUSEC_RUNTIME_PLAN_PLANVERIFIER_H

#include "runtime/plan/Plan.h"

#include <optional>
#include <string>

namespace fusec::runtime {

/// `weightsSectionSize` is the size of the weights section, or nullopt if the
/// plan has none. Throws Error "<sourceName>: <reason>" on the first problem.
void verifyManifest(const PlanManifest &manifest,
                    std::optional<uint64_t> weightsSectionSize,
                    const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_PLANVERIFIER_H
