//===- FusedModule.h - Parse or import a test module and fuse it -*- C++ -*-===//
//
// The codegen tests start from a module fused by the default pipeline: one
// helper each for MLIR text and for a fusec JSON graph, so every test
// reports a parse, import or pass failure the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_FUSEDMODULE_H
#define FUSEC_TEST_UNIT_CODEGEN_FUSEDMODULE_H

#include "passes/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace fusec::test {

/// Runs the fusion pipeline with `options` on `module`; fails the test with
/// the diagnostics if a pass fails.
void fuse(mlir::ModuleOp module, const FusionOptions &options = FusionOptions());

/// Parses the MLIR text `ir` and fuses it; fails the test (with the
/// diagnostics and the text) if it does not parse.
mlir::OwningOpRef<mlir::ModuleOp> parseAndFuse(mlir::MLIRContext &context, const std::string &ir,
                                               const FusionOptions &options = FusionOptions());

/// Imports the fusec JSON graph `text` (diagnostics name `fileName`) and fuses it.
mlir::OwningOpRef<mlir::ModuleOp> importJsonAndFuse(mlir::MLIRContext &context, const std::string &text,
                                                    const std::string &fileName,
                                                    const FusionOptions &options = FusionOptions());

/// FusionOptions with only the strategy set ("greedy", "none", ...).
FusionOptions withStrategy(const std::string &strategy);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_FUSEDMODULE_H
