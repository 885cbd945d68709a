//===- OpTypeVerifier.h - Element types of a plan's ops, checked at load ---===//
//
// The element-type rules of docs/plan-format.md ("Element types"), one per
// rules::TypeRule (support/OpRules.h): Cast converts one value into
// the type its "to" attribute names; comparisons, logic and Where build and
// apply masks; data movement (Identity, Reshape, Slice, Gather, ...) keeps
// the type; every other op takes and gives float values (f32, f16, bf16,
// mixed freely).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H
#define FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H

#include "runtime/plan/Plan.h"

#include <string>

namespace fusec::runtime {

/// The op that converts between element types.
inline constexpr const char *kCastOp = "Cast";

/// Throws Error "<sourceName>: kernel 'k' op Relu 'name': <reason>". The
/// kernel's value indices must already be verified.
void verifyOpElementTypes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H
