//===- OpTypeVerifier.h - Element types of a plan's ops, checked at load ---===//
//
// The element-type rules of docs/plan-format.md ("Element types"): only Cast
// and Identity handle integer values; every other op takes and gives float
// values (f32, f16, bf16, mixed freely); Cast converts one value into the
// type its "to" attribute names; Identity keeps the type.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H
#define FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H

#include "runtime/plan/Plan.h"

#include <string>

namespace fusec::runtime {

/// The ops that accept values of any element type.
inline constexpr const char *kCastOp = "Cast";
inline constexpr const char *kIdentityOp = "Identity";

/// Throws Error "<sourceName>: kernel 'k' op Relu 'name': <reason>". The
/// kernel's value indices must already be verified.
void verifyOpElementTypes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_OPTYPEVERIFIER_H
