//===- DiagnosticsTest.cpp - fusec's diagnostic formats --------------------===//
#include "compiler/Diagnostics.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace fusec;

TEST_CASE("a diagnostic collector keeps every diagnostic of its context in fusec's format") {
  mlir::MLIRContext context;
  const mlir::Location loc = mlir::FileLineColLoc::get(&context, "model.json", 0, 0);
  {
    DiagnosticCollector collector(&context);
    mlir::emitError(loc) << "graph output 'y' is not produced by any node";
    mlir::emitWarning(loc) << "second";
    CHECK(collector.text() == "model.json: error: graph output 'y' is not produced by any node\n"
                              "model.json: warning: second\n");
  }
  // A collector sees only what is emitted while it is installed.
  DiagnosticCollector later(&context);
  mlir::emitRemark(loc) << "third";
  CHECK(later.text() == "model.json: remark: third\n");
}
