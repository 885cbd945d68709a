//===- FuseDialect.cpp - The fuse dialect -----------------------------===//
#include "ir/FuseDialect.h"
#include "ir/FuseAttributes.h"
#include "ir/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace fusec::fuse;

#include "ir/FuseDialect.cpp.inc"

void FuseDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ir/FuseOps.cpp.inc"
      >();
}

void fusec::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<FuseDialect, mlir::func::FuncDialect>();
}

mlir::Operation *FuseDialect::materializeConstant(mlir::OpBuilder &builder, mlir::Attribute value, mlir::Type type,
                                                  mlir::Location loc) {
  auto elements = llvm::dyn_cast<mlir::ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}
