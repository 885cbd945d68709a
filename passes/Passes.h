//===- Passes.h - fusec passes ----------------------------------*- C++ -*-===//
#ifndef FUSEC_PASSES_PASSES_H
#define FUSEC_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "ir/FuseDialect.h"

namespace fusec {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
// registerFusecPasses() registers every pass above.
#include "passes/Passes.h.inc"

/// Registers every fusec pass (and the upstream ones fusec pipelines use)
/// with MLIR's global registry, for fusec-opt and embedding compilers.
void registerPasses();

} // namespace fusec

#endif // FUSEC_PASSES_PASSES_H
