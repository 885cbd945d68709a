//===- DotExporter.h - The fused graph as Graphviz DOT ----------*- C++ -*-===//
#ifndef FUSEC_COMPILER_EXPORT_DOTEXPORTER_H
#define FUSEC_COMPILER_EXPORT_DOTEXPORTER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fusec {

/// The fused `@main` as a Graphviz digraph: one node per op (its node name
/// and ONNX op), one cluster per superkernel labelled with the kernel name
/// and its estimated savings, graph inputs and outputs as ellipses. Weights
/// are left out. `dot -Tsvg` renders it.
std::string exportDot(mlir::ModuleOp module);

} // namespace fusec

#endif // FUSEC_COMPILER_EXPORT_DOTEXPORTER_H
