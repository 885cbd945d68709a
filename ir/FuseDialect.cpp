//===- FuseDialect.cpp - The fuse dialect -----------------------------===//
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace fusec::fuse;

#include "ir/FuseDialect.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/FuseOps.cpp.inc"
      >();
}

void fusec::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<FuseDialect, mlir::func::FuncDialect>();
}
