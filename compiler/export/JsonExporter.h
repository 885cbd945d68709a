//===- JsonExporter.h - fuse dialect to fusec-graph JSON -------*- C++ -*-===//
#ifndef FUSEC_COMPILER_EXPORT_JSONEXPORTER_H
#define FUSEC_COMPILER_EXPORT_JSONEXPORTER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fusec {

/// Writes `module`'s @main as a fusec-graph JSON file at `jsonPath` with its
/// constants in `<jsonPath without .json>.safetensors` next to it. Both files
/// are written atomically. Only unfused IR (no superkernels) is exported.
mlir::LogicalResult exportJsonModel(mlir::ModuleOp module, const std::string &jsonPath);

} // namespace fusec

#endif // FUSEC_COMPILER_EXPORT_JSONEXPORTER_H
