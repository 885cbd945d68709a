//===- FormAttentionViews.cpp - Attention reading and writing through views =//
//
// torch exports multi-head attention with its heads split and merged by
// data movement: a fused QKV projection's output becomes Q, K and V through
// Slice -> Reshape -> Transpose, and the attention output goes back through
// Transpose -> Reshape. As kernels of their own those chains copy every
// head tensor once more (four copy kernels per layer). Each is only a
// different way of addressing the same elements, so the attention kernel
// reads its operands, and writes its result, through them: the chains join
// the attention op's group here, as a rule pattern, and codegen turns each
// into strides (ir/StridedView.h).
//
//===----------------------------------------------------------------------===//
#include "passes/FusionAttributes.h"
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/StridedView.h"

#include "mlir/IR/Builders.h"

namespace fusec {
#define GEN_PASS_DEF_FORMATTENTIONVIEWS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

bool isFree(Operation *op) { return isViewOp(op) && !op->hasAttr(fusec::kGroupAttr); }

/// The longest prefix of `chain` (ops nearest the attention first) that is a
/// strided view with a contiguous last dimension, so that each row of D
/// elements is one contiguous load or store: read from the tensor the
/// prefix starts at (`reads`, the ops applied forward), or stored into the
/// tensor it ends in (the ops undone backward).
SmallVector<Operation *> longestViewPrefix(ArrayRef<Operation *> chain, bool reads) {
  for (size_t length = chain.size(); length > 0; --length) {
    std::optional<StridedView> view = composeViewChain(chain.take_front(length), reads);
    if (view && view->strides.back() == 1)
      return SmallVector<Operation *>(chain.take_front(length));
  }
  return {};
}

/// The single-use Slice, Reshape, Flatten and Transpose ops through which an
/// attention kernel reads `operand`, nearest first.
SmallVector<Operation *> inputChain(Value operand) {
  SmallVector<Operation *> chain;
  Value value = operand;
  while (Operation *op = value.getDefiningOp()) {
    if (!isFree(op) || !value.hasOneUse())
      break;
    chain.push_back(op);
    value = op->getOperand(0);
  }
  return longestViewPrefix(chain, /*reads=*/true);
}

/// The single-use Reshape, Flatten and Transpose ops through which an
/// attention kernel stores `result`, in order. A Slice never joins: its
/// result does not cover what the kernel computes.
SmallVector<Operation *> outputChain(Value result) {
  SmallVector<Operation *> chain;
  Value value = result;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (!isFree(user) || llvm::isa<SliceOp>(user))
      break;
    chain.push_back(user);
    value = user->getResult(0);
  }
  return longestViewPrefix(chain, /*reads=*/false);
}

struct FormAttentionViewsPass : fusec::impl::FormAttentionViewsBase<FormAttentionViewsPass> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    int64_t nextGroup = fusec::nextFreeGroupId(body);
    Builder builder(&getContext());
    for (auto attention : llvm::to_vector(body.getOps<AttentionOp>())) {
      if (attention->hasAttr(fusec::kGroupAttr))
        continue;
      SmallVector<Operation *> inputs;
      for (Value operand : {attention.getQuery(), attention.getKey(), attention.getValue()})
        llvm::append_range(inputs, inputChain(operand));
      SmallVector<Operation *> outputs = outputChain(attention.getOutput());
      if (inputs.empty() && outputs.empty())
        continue;
      auto group = builder.getI64IntegerAttr(nextGroup++);
      attention->setAttr(fusec::kGroupAttr, group);
      for (Operation *op : llvm::concat<Operation *>(inputs, outputs)) {
        op->setAttr(fusec::kGroupAttr, group);
        op->setAttr(fusec::kFusedByAttr, builder.getStringAttr("attention-views"));
      }
      numInputViews += inputs.size();
      numOutputViews += outputs.size();
    }
  }
};

} // namespace
