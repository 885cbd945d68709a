//===- TypedConstants.h - fuse.constant ops of any element type -*- C++ -*-===//
//
// ir/ConstantData.h creates f32 constants; imported graphs also hold f16,
// bf16, i64, i32, i1, i8 and u8 tensors. Their data goes straight into the
// attribute's storage (16-bit patterns, integers), never through a
// per-element APFloat or APInt, so large half-precision weights stay cheap.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_TYPEDCONSTANTS_H
#define FUSEC_COMPILER_IMPORT_TYPEDCONSTANTS_H

#include "compiler/import/Graph.h"

#include "mlir/IR/Builders.h"

namespace fusec::import {

/// The MLIR element type of `type`.
mlir::Type elementTypeFor(mlir::MLIRContext *context, DType type);

/// Creates the fuse.constant holding `constant` (its name keys the resource
/// blob of large tensors).
mlir::Value createGraphConstant(mlir::OpBuilder &builder, mlir::Location loc, const GraphConstant &constant);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_TYPEDCONSTANTS_H
