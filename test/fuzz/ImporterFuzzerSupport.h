//===- ImporterFuzzerSupport.h - What the importer fuzzers share ------------===//
//
// One MLIRContext for the whole fuzzing run (creating one per input would
// dominate the time) and a diagnostic handler that drops the importers'
// error messages: a rejected model is the expected outcome, not output.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H
#define FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H

#include "ir/FuseDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

namespace fusec::fuzz {

inline mlir::MLIRContext &importerContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    auto *created = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    created->printOpOnDiagnostic(false);
    created->getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
    return created;
  }();
  return *context;
}

} // namespace fusec::fuzz

#endif // FUSEC_TEST_FUZZ_IMPORTERFUZZERSUPPORT_H
