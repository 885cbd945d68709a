//===- PlanInfo.h - Describe a plan for people and scripts ------------------===//
//
// What `fuserun --info` prints: the plan's interface, kernels, and memory use
// at a given batch size, as JSON or as a readable summary of the same data.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLANINFO_H
#define FUSEC_RUNTIME_PLANINFO_H

#include "runtime/plan/Plan.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusec::runtime {

/// {"plan", "format_version", "compiler_version", "target", "source_hash",
///  "batch", "batch_buckets", "inputs"/"outputs": [{name, dtype, shape}],
///  "kernels": {"count", "list": [{name, kind, ops: [op names]}]},
///  "arena_bytes", "arena_lower_bound_bytes" (both at `batch`),
///  "weight_bytes"}, and for a plan naming dimensions "dims" (the described
///  variant's) and "shape_variants" (every variant's dims, the plan's own
///  first). Describes the shape variant for `dims` if given; throws Error
///  naming the variants the plan holds if it has none for them.
nlohmann::json describePlan(const Plan &plan, int64_t batch, const std::map<std::string, int64_t> &dims = {});

/// A multi-line, human-readable rendering of describePlan()'s result.
std::string formatPlanSummary(const nlohmann::json &description);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLANINFO_H
