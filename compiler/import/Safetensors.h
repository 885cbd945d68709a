//===- Safetensors.h - Read f32 tensors from .safetensors -----*- C++ -*-===//
#ifndef FUSEC_COMPILER_IMPORT_SAFETENSORS_H
#define FUSEC_COMPILER_IMPORT_SAFETENSORS_H

#include "compiler/import/Graph.h"

#include "mlir/IR/Location.h"

namespace fusec::import {

/// Reads every tensor of a safetensors file (8-byte little-endian header
/// length, JSON header, data). Only F32 tensors are accepted. Header, offset
/// and size mismatches are reported at `loc`, naming the file and tensor.
mlir::LogicalResult readSafetensors(llvm::StringRef path, mlir::Location loc, std::vector<GraphConstant> &tensors);

/// Writes `tensors` as a safetensors file (atomically: temp file + rename).
mlir::LogicalResult writeSafetensors(llvm::StringRef path, mlir::Location loc,
                                     const std::vector<GraphConstant> &tensors);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_SAFETENSORS_H
