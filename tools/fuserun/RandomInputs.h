//===- RandomInputs.h - Deterministic inputs for smoke tests and benchmarks ===//
#ifndef FUSEC_TOOLS_FUSERUN_RANDOMINPUTS_H
#define FUSEC_TOOLS_FUSERUN_RANDOMINPUTS_H

#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <cstdint>
#include <map>
#include <string>

namespace fusec::runtime {

/// One tensor per plan input, shaped for `batch` and of the input's dtype,
/// with float values uniform in [-1, 1) (then rounded to f16/bf16), integers
/// uniform in [0, 8) and i1 values 0 or 1. The values depend only on `seed`, the input's position and its
/// shape, identically on every platform.
std::map<std::string, Tensor> makeRandomInputs(const Plan &plan, int64_t batch, uint64_t seed);

} // namespace fusec::runtime

#endif // FUSEC_TOOLS_FUSERUN_RANDOMINPUTS_H
