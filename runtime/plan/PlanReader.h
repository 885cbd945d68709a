//===- PlanReader.h - Parse a plan manifest into plain structs --------------===//
//
// Reading checks that every required field is present with the right type
// and that buffer ids are 0..N-1; cross-references (ids, indices, ranges,
// shapes) are PlanVerifier's job.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLANREADER_H
#define FUSEC_RUNTIME_PLAN_PLANREADER_H

#include "runtime/plan/Plan.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusec::runtime {

/// Throws Error "<sourceName>: <field path>: <reason>" on the first problem.
PlanManifest readManifest(const nlohmann::json &manifest, const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_PLANREADER_H
