//===- Safetensors.h - Read and write .safetensors weights -----*- C++ -*-===//
#ifndef FUSEC_COMPILER_IMPORT_SAFETENSORS_H
#define FUSEC_COMPILER_IMPORT_SAFETENSORS_H

#include "compiler/import/Graph.h"

#include "mlir/IR/Location.h"

namespace fusec::import {

/// Reads every tensor of a safetensors file (8-byte little-endian header
/// length, JSON header, data). F32, F16, BF16, I64, I32 and BOOL tensors
/// become constants of dtype f32, f16, bf16, i64, i32, i1, i8 and u8. Header,
/// dtype, offset and size mismatches are reported at `loc`, naming the file
/// and tensor. f32 tensors are not copied: they view the file's mapping
/// (GraphConstant::mapped), so the file must not change while the
/// compilation runs.
mlir::LogicalResult readSafetensors(llvm::StringRef path, mlir::Location loc, std::vector<GraphConstant> &tensors);

/// Writes `tensors`, each in its dtype, as a safetensors file (atomically:
/// temp file + rename).
mlir::LogicalResult writeSafetensors(llvm::StringRef path, mlir::Location loc,
                                     const std::vector<GraphConstant> &tensors);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_SAFETENSORS_H
