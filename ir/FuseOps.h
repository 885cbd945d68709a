//===- FuseOps.h - fuse dialect operations --------------------*- C++ -*-===//
#ifndef FUSEC_IR_FUSEOPS_H
#define FUSEC_IR_FUSEOPS_H

#include "ir/FuseAttributes.h"
#include "ir/FuseDialect.h"
#include "ir/OpFacts.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fusec::fuse {
/// Checks that an op's result types are those its shape inference computes.
mlir::LogicalResult verifyInferredResultTypes(mlir::Operation *op);
} // namespace fusec::fuse

#include "ir/FuseInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ir/FuseOps.h.inc"

namespace fusec::fuse {
/// Infers `op`'s result types and sets them. On failure the op has emitted an
/// error and its types are unchanged.
mlir::LogicalResult inferAndSetResultTypes(mlir::Operation *op);
} // namespace fusec::fuse

#endif // FUSEC_IR_FUSEOPS_H
