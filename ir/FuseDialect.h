//===- FuseDialect.h - The fuse dialect -----------------------*- C++ -*-===//
#ifndef FUSEC_IR_FUSEDIALECT_H
#define FUSEC_IR_FUSEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ir/FuseDialect.h.inc"

namespace fusec {
/// Registers the dialects fusec's IR uses: fuse and func.
void registerDialects(mlir::DialectRegistry &registry);
} // namespace fusec

#endif // FUSEC_IR_FUSEDIALECT_H
