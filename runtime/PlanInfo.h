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

/// What a plan's kernels compute in, as fusec's --precision names it:
/// "fp16" or "bf16" if a kernel holds values of that type (both:
/// "fp16+bf16"), else "tf32" if a kernel's config (or a variant's) does its
/// products in plain TF32, else "fp32" (FMA, or 3xTF32 on the tensor
/// cores). Read from the kernels, so a plan's file name does not matter:
/// scripts pick their tolerances for `fuserun --check` by it.
std::string planPrecision(const Plan &plan);

/// {"plan", "format_version", "compiler_version", "target", "source_hash",
///  "precision" (planPrecision),
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
