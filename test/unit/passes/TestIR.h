//===- TestIR.h - Parse fuse IR snippets in unit tests ----------*- C++ -*-===//
#ifndef FUSEC_TEST_UNIT_PASSES_TESTIR_H
#define FUSEC_TEST_UNIT_PASSES_TESTIR_H

#include "compiler/Driver.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

namespace fusec::test {

inline mlir::OwningOpRef<mlir::ModuleOp> parseIR(mlir::MLIRContext &context, const char *ir) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
  REQUIRE(module);
  return module;
}

inline mlir::func::FuncOp mainFunc(mlir::ModuleOp module) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>("main");
  REQUIRE(func);
  return func;
}

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_PASSES_TESTIR_H
