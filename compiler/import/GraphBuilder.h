//===- GraphBuilder.h - Graph to fuse dialect ------------------*- C++ -*-===//
#ifndef FUSEC_COMPILER_IMPORT_GRAPHBUILDER_H
#define FUSEC_COMPILER_IMPORT_GRAPHBUILDER_H

#include "compiler/import/Graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace fusec::import {

/// The attribute naming graph inputs and outputs on the entry function's
/// arguments and results.
inline constexpr const char *kTensorNameAttr = "fuse.name";
/// The entry function every importer creates.
inline constexpr const char *kEntryFunction = "main";

/// Checks the graph (unique names, defined inputs, no cycles) and builds a
/// module holding `func.func @main`. Nodes may come in any order; they are
/// emitted in a deterministic topological order. Every problem is reported
/// as an MLIR diagnostic naming the file and node; returns null on error.
mlir::OwningOpRef<mlir::ModuleOp> buildModule(const Graph &graph, mlir::MLIRContext &context);

/// The location importers give a node: its name inside the source file.
mlir::Location nodeLocation(mlir::MLIRContext &context, llvm::StringRef file, llvm::StringRef node);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_GRAPHBUILDER_H
