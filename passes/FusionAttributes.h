//===- FusionAttributes.h - Attributes carrying fusion decisions -*- C++ -*-===//
//
// Fusion passes communicate through discardable attributes, so every decision
// is visible in the IR (fusec-opt, --emit=fused-mlir) and the fusion report
// is read back from the IR.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PASSES_FUSIONATTRIBUTES_H
#define FUSEC_PASSES_FUSIONATTRIBUTES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>

namespace fusec {

/// i64 on an op: the fusion group (future kernel) it belongs to.
inline constexpr llvm::StringLiteral kGroupAttr = "fuse.group";
/// string on an op: the rule that put it into its group.
inline constexpr llvm::StringLiteral kFusedByAttr = "fuse.fused_by";
/// array of strings on an op: ops a rewrite folded into it ("pad", "bn").
inline constexpr llvm::StringLiteral kFoldedAttr = "fuse.folded";
/// dictionary on a group's first op: the cost model's estimates.
inline constexpr llvm::StringLiteral kKernelCostAttr = "fuse.kernel_cost";
/// array of dictionaries on the function: candidates the planner rejected.
inline constexpr llvm::StringLiteral kRejectedFusionsAttr = "fuse.rejected_fusions";
/// dictionary on the function: strategy, device profile and cost model used.
inline constexpr llvm::StringLiteral kFusionConfigAttr = "fuse.fusion_config";

/// The first `fuse.group` id no op of `body` has: a rule pattern numbers its
/// groups after those that patterns before it formed.
inline int64_t nextFreeGroupId(mlir::Block &body) {
  int64_t next = 0;
  for (mlir::Operation &op : body)
    if (auto id = op.getAttrOfType<mlir::IntegerAttr>(kGroupAttr))
      next = std::max(next, id.getInt() + 1);
  return next;
}

} // namespace fusec

#endif // FUSEC_PASSES_FUSIONATTRIBUTES_H
