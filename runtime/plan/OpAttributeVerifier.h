//===- OpAttributeVerifier.h - Op attributes of a plan, checked at load -----===//
//
// The plan verifier's per-op part: before anything runs, every attribute the
// backends size memory or loops by is checked with the rules the fuse
// dialect's verifier applies (support/OpRules.h), and the result
// shape those attributes give must be the one the plan records. A plan that
// fusec could not have written is rejected at load time instead of
// misbehaving (overflowing, hanging, allocating) when it runs.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_OPATTRIBUTEVERIFIER_H
#define FUSEC_RUNTIME_PLAN_OPATTRIBUTEVERIFIER_H

#include "runtime/plan/Plan.h"

#include <string>

namespace fusec::runtime {

/// Throws Error "<sourceName>: kernel 'k' op Conv 'name': <reason>". The
/// kernel's value indices must already be verified.
void verifyOpAttributes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_OPATTRIBUTEVERIFIER_H
