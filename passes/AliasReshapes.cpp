//===- AliasReshapes.cpp - Reshapes that share their operand's bytes ------===//
//
// A Reshape or Flatten of a dense tensor moves no element: its result is the
// operand's bytes under another shape. As a kernel it still reads and writes
// the whole tensor (every CNN classifier's flatten before its Linear, the
// reshapes around a transformer's heads). A kernel that only reshapes is
// marked `fuse.alias`; the plan writer gives its result an alias of its
// operand's buffer and emits no kernel (docs/plan-format.md "Views").
//
// Runs after fuse-place-concats: a slice of a concatenation is not dense,
// and a reshape whose result is stored into a concatenation keeps its copy.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/SliceViews.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace fusec {
#define GEN_PASS_DEF_ALIASRESHAPES
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// Whether the kernel's body is a chain of Reshape/Flatten ops from its one
/// operand to its one result.
bool onlyReshapes(SuperkernelOp kernel) {
  if (kernel.getKind() != "data_movement" || kernel.getNumResults() != 1 || kernel.getInputs().size() != 1)
    return false;
  Block &body = kernel.getBody().front();
  Value value = body.getArgument(0);
  for (Operation &op : body.without_terminator()) {
    if (!llvm::isa<ReshapeOp, FlattenOp>(op) || op.getOperand(0) != value)
      return false;
    value = op.getResult(0);
  }
  return body.getTerminator()->getOperand(0) == value && value != body.getArgument(0);
}

bool isReturned(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) { return llvm::isa<func::ReturnOp>(user); });
}

struct AliasReshapesPass : fusec::impl::AliasReshapesBase<AliasReshapesPass> {
  void runOnOperation() override {
    getOperation().walk([&](SuperkernelOp kernel) {
      if (!onlyReshapes(kernel))
        return;
      Value operand = kernel.getInputs()[0], result = kernel.getResult(0);
      // The operand's bytes must be a kernel's own, dense buffer.
      auto producer = operand.getDefiningOp<SuperkernelOp>();
      if (!producer || sliceViewOf(operand) || isReturned(result) || sliceViewOf(result))
        return;
      kernel->setAttr(kAliasAttr, UnitAttr::get(kernel.getContext()));
      ++numAliased;
    });
  }
};

} // namespace
