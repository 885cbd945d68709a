//===- RandomInputs.h - Deterministic inputs for smoke tests and benchmarks ===//
#ifndef FUSEC_RUNTIME_RANDOMINPUTS_H
#define FUSEC_RUNTIME_RANDOMINPUTS_H

#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <cstdint>
#include <map>
#include <string>

namespace fusec::runtime {

/// One tensor per plan input, shaped for `batch`, with values uniform in
/// [-1, 1). The values depend only on `seed`, the input's position and its
/// shape, identically on every platform.
std::map<std::string, Tensor> makeRandomInputs(const Plan &plan, int64_t batch, uint64_t seed);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_RANDOMINPUTS_H
