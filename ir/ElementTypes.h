//===- ElementTypes.h - The element types fuse tensors may have -*- C++ -*-===//
//
// fuse tensors hold f32, f16 or bf16 values, which ops compute with, or
// i64, i32 or i1 values (token ids, indices, masks), which only fuse.cast and
// the structural ops (constants, superkernels) carry, or the quantized i8
// and u8 (MLIR's signless i8 and ui8), which fuse.quantize_linear gives and
// fuse.dequantize_linear takes. The names are the plan
// format's dtypes (docs/plan-format.md), so the compiler and the runtime
// spell every type the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_ELEMENTTYPES_H
#define FUSEC_IR_ELEMENTTYPES_H

#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace fusec::fuse {

/// "f32", "f16", "bf16", "i64", "i32", "i1", "i8" or "u8" (ui8);
/// std::nullopt for any other type (si8, f64, ...).
std::optional<llvm::StringRef> elementTypeName(mlir::Type type);

/// The type `name` (as elementTypeName spells it) denotes, or a null Type.
mlir::Type parseElementType(mlir::MLIRContext *context, llvm::StringRef name);

/// f32, f16 or bf16: the types fuse ops compute with.
bool isComputeElementType(mlir::Type type);

/// i8 or u8: the types QuantizeLinear gives.
bool isQuantizedElementType(mlir::Type type);

/// Bytes one element occupies in a plan (i1: one byte).
int64_t elementByteSize(mlir::Type type);

/// The element type of a ranked tensor value or type.
mlir::Type elementTypeOf(mlir::Value value);

/// `type` with element type `element` and the same shape.
mlir::RankedTensorType withElementType(mlir::Type type, mlir::Type element);

} // namespace fusec::fuse

#endif // FUSEC_IR_ELEMENTTYPES_H
