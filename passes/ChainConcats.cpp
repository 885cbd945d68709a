//===- ChainConcats.cpp - Concats built on earlier concats ----------------===//
//
// concat(x0, f1, ..., fk) after concat(x0, f1, ..., fk-1) becomes
// concat(earlier, fk). The values do not change; the concats of a DenseNet
// block then nest, each inside the next, so that fuse-place-concats can keep
// them all in the last one's buffer instead of copying every earlier feature
// map again for each layer.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/FuseOps.h"

namespace fusec {
#define GEN_PASS_DEF_CHAINCONCATS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// The earlier concat along the same axis whose operands are the longest
/// proper prefix of `concat`'s, or null.
ConcatOp longestPrefix(ConcatOp concat) {
  OperandRange operands = concat->getOperands();
  ConcatOp best;
  for (Operation *user : operands.front().getUsers()) {
    auto earlier = llvm::dyn_cast<ConcatOp>(user);
    if (!earlier || earlier == concat || earlier->getBlock() != concat->getBlock() ||
        !earlier->isBeforeInBlock(concat) || earlier.getAxis() != concat.getAxis())
      continue;
    const unsigned length = earlier->getNumOperands();
    if (length < 2 || length >= operands.size() || (best && length <= best->getNumOperands()))
      continue;
    if (llvm::equal(earlier->getOperands(), operands.take_front(length)))
      best = earlier;
  }
  return best;
}

struct ChainConcatsPass : fusec::impl::ChainConcatsBase<ChainConcatsPass> {
  void runOnOperation() override {
    // Last to first: each concat finds the one before it while that one
    // still lists all its operands, and becomes concat(previous, its last
    // operands).
    SmallVector<ConcatOp> concats;
    getOperation().walk([&](ConcatOp concat) { concats.push_back(concat); });
    for (ConcatOp concat : llvm::reverse(concats)) {
      ConcatOp earlier = longestPrefix(concat);
      if (!earlier)
        continue;
      SmallVector<Value> operands = {earlier.getResult()};
      llvm::append_range(operands, concat->getOperands().drop_front(earlier->getNumOperands()));
      concat->setOperands(operands);
      ++numChained;
    }
  }
};

} // namespace
