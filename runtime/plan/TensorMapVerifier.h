//===- TensorMapVerifier.h - The rules a launch's tensor maps follow ------===//
//
// A TMA copy reads wherever its tensor map says, so the reader checks each
// map against the buffer it names before anything runs: the rules
// cuTensorMapEncodeTiled applies, and the matrix inside the buffer at every
// batch the plan runs at.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_TENSORMAPVERIFIER_H
#define FUSEC_RUNTIME_PLAN_TENSORMAPVERIFIER_H

#include "runtime/plan/Plan.h"

#include <string>

namespace fusec::runtime {

/// Why `map`, passed by a launch of `kernel`, is invalid in `manifest` (""
/// if it is valid): a buffer position outside the kernel's buffers, a buffer
/// whose element type is not the map's, columns that are not a positive
/// multiple of 8 below 2^32, a box other than 64 columns (the swizzle span)
/// by 1 to 256 rows, rows outside [1, 2^32] or a matrix reaching past its
/// buffer at batch 1 or `largestBatch` (rows are linear in the batch, so
/// these two bound every batch between).
std::string checkTensorMap(const PlanManifest &manifest, const KernelDesc &kernel, const TensorMapDesc &map,
                           int64_t largestBatch);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_TENSORMAPVERIFIER_H
