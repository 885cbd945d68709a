//===- fusec-opt.cpp - mlir-opt with the fuse dialect and fusec passes ----===//
#include "ir/FuseDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fusec::registerDialects(registry);
  fusec::registerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "fusec optimizer driver\n", registry));
}
