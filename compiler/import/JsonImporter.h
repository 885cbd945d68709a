//===- JsonImporter.h - fusec-graph JSON to the fuse dialect ----*- C++ -*-===//
#ifndef FUSEC_COMPILER_IMPORT_JSONIMPORTER_H
#define FUSEC_COMPILER_IMPORT_JSONIMPORTER_H

#include "compiler/import/Graph.h"
#include "compiler/import/SymbolicDimensions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace fusec::import {

/// Parses a fusec-graph JSON file (docs/json-format.md) and the safetensors
/// file it names. Reports problems as diagnostics naming the file and node.
/// Input dimensions named in `sizes` are read as those sizes; the one other
/// name, if any, is the batch.
mlir::FailureOr<Graph> readJsonGraph(llvm::StringRef path, mlir::MLIRContext &context,
                                     const DimensionSizes &sizes = {});

/// readJsonGraph on a document already in memory: `text` is read as the
/// contents of `path`, which names it in diagnostics and is what a 'weights'
/// file resolves against. Nothing is read from `path` itself.
mlir::FailureOr<Graph> readJsonGraphFromBuffer(llvm::StringRef text, llvm::StringRef path, mlir::MLIRContext &context,
                                               const DimensionSizes &sizes = {});

/// readJsonGraph (or readJsonGraphFromBuffer) followed by buildModule.
mlir::OwningOpRef<mlir::ModuleOp> importJsonModel(llvm::StringRef path, mlir::MLIRContext &context,
                                                  const DimensionSizes &sizes = {});
mlir::OwningOpRef<mlir::ModuleOp> importJsonModelFromBuffer(llvm::StringRef text, llvm::StringRef path,
                                                            mlir::MLIRContext &context,
                                                            const DimensionSizes &sizes = {});

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_JSONIMPORTER_H
