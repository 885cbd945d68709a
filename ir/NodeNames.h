//===- NodeNames.h - Model node names carried by locations ------*- C++ -*-===//
//
// Importers give each op a NameLoc with its node name; rewrites fuse those
// locations. Kernel names, resource keys, reports and diagnostics read the
// names back through these helpers.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_NODENAMES_H
#define FUSEC_IR_NODENAMES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace fusec::fuse {

/// The node names recorded in `loc` (NameLocs, also inside FusedLocs), in
/// order; empty when the location names no node.
llvm::SmallVector<std::string> nodeNamesOf(mlir::Location loc);

/// The first node name in `loc`, or "".
std::string firstNodeName(mlir::Location loc);

/// `text` as a C identifier fragment: runs of other characters become one
/// '_', and leading/trailing '_' are dropped ("/layer1/conv.0" -> "layer1_conv_0").
std::string identifierFrom(llvm::StringRef text);

} // namespace fusec::fuse

#endif // FUSEC_IR_NODENAMES_H
