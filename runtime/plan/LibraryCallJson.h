//===- LibraryCallJson.h - Library variants in the manifest ---------------===//
//
// The manifest form of a library variant (format 5.2, docs/plan-format.md
// "Library variants"), written by the compiler's plan writer and read by the
// plan reader: one definition of the field names for both.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_LIBRARYCALLJSON_H
#define FUSEC_RUNTIME_PLAN_LIBRARYCALLJSON_H

#include "runtime/plan/JsonFieldReader.h"
#include "runtime/plan/Plan.h"

#include <nlohmann/json.hpp>

namespace fusec::runtime {

/// {"library": "cublaslt", "matmul": {...}}.
nlohmann::json libraryCallToJson(const LibraryCall &call);

/// The inverse; throws Error naming the field for a missing or malformed
/// one (the verifier checks the values against the kernel afterwards).
LibraryCall readLibraryCall(const JsonFieldReader &entry);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_LIBRARYCALLJSON_H
