//===- LibraryCallVerifier.h - The rules a library variant follows --------===//
//
// A library variant hands raw buffer addresses and sizes to a vendor
// library, which checks nothing about where they point: the reader checks
// every read and write of the described product lies inside its buffer at
// every batch the plan runs at, before anything runs.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_LIBRARYCALLVERIFIER_H
#define FUSEC_RUNTIME_PLAN_LIBRARYCALLVERIFIER_H

#include "runtime/plan/Plan.h"

#include <string>

namespace fusec::runtime {

/// Why `call`, a library variant of `kernel`, is invalid in `manifest`
/// ("" if it is valid): an unknown library, an operand that is not one of
/// the kernel's buffers (A, B, bias and C inputs, D an output), element
/// types the product cannot take, sizes below one, or a matrix reaching
/// past its buffer at batch 1 or `largestBatch` (sizes are linear in the
/// batch, so these two bound every batch between).
std::string checkLibraryCall(const PlanManifest &manifest, const KernelDesc &kernel, const LibraryCall &call,
                             int64_t largestBatch);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_LIBRARYCALLVERIFIER_H
