//===- ImporterFuzzerSupport.h - What the importer fuzzers share ------------===//
//
// The MLIRContext an input is imported into, in two lifetimes, and a
// diagnostic handler that drops the importers' error messages (a rejected
// model is the expected outcome, not output).
//
// A context keeps what each input adds to it until it dies: uniqued names,
// locations and attributes, and every weight blob (MLIR's resource manager
// holds those). Which lifetime is faster depends on the input (docs/fuzzing.md
// has the figures):
//  - JSON graphs are small and rarely carry weights: one context for the
//    whole run grows slowly, and creating a context per input (loading the
//    dialects) would cost more than the import itself (about 3.6x the CPU
//    time per input).
//  - ONNX models carry weights, so a shared context grows with every model
//    that imports, libFuzzer sees more allocations than frees after almost
//    every input and re-runs it under LeakSanitizer, whose scans of the
//    growing heap then cost more than the import (until libFuzzer stops
//    checking for leaks after 1000 such inputs). A context per input frees
//    everything the input made: about 3x less CPU time per input, memory
//    that stays flat, and leak checks that stay on.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H
#define FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H

#include "ir/FuseDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace fusec::fuzz {

/// fusec's dialects loaded, diagnostics dropped.
inline std::unique_ptr<mlir::MLIRContext> makeImporterContext() {
  static const mlir::DialectRegistry *registry = [] {
    auto *created = new mlir::DialectRegistry();
    registerDialects(*created);
    return created;
  }();
  auto context = std::make_unique<mlir::MLIRContext>(*registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  context->getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
  return context;
}

/// One context for the whole fuzzing run.
inline mlir::MLIRContext &sharedImporterContext() {
  static mlir::MLIRContext *context = makeImporterContext().release();
  return *context;
}

} // namespace fusec::fuzz

#endif // FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H
