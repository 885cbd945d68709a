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

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

bool isFree(Operation *op) { return isViewOp(op) && !op->hasAttr(fusec::kGroupAttr); }

/// The view ops, nearest first, through which an attention kernel can read
/// `operand` from the tensor the chain starts at: the longest chain of
/// single-use views whose composition is strided with a contiguous last
/// dimension (so that each row of D elements is one contiguous load).
SmallVector<Operation *> inputChain(Value operand) {
  SmallVector<Operation *> chain;
  Value value = operand;
  while (Operation *op = value.getDefiningOp()) {
    if (!isFree(op) || !value.hasOneUse())
      break;
    chain.push_back(op);
    value = op->getOperand(0);
  }
  for (size_t length = chain.size(); length > 0; --length) {
    std::optional<StridedView> view = contiguousView(shapeOf(chain[length - 1]->getOperand(0)));
    for (size_t i = length; i-- > 0 && view;)
      view = forwardView(chain[i], *view);
    if (view && view->strides.back() == 1)
      return SmallVector<Operation *>(chain.begin(), chain.begin() + length);
  }
  return {};
}

/// The view ops, in order, through which an attention kernel can store
/// `result` into the tensor the chain ends at: the longest chain of
/// single-use Reshape, Flatten and Transpose ops whose last result, viewed
/// back in `result`'s shape, has a contiguous last dimension.
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
  for (size_t length = chain.size(); length > 0; --length) {
    std::optional<StridedView> view = contiguousView(shapeOf(chain[length - 1]->getResult(0)));
    for (size_t i = length; i-- > 0 && view;)
      view = backwardView(chain[i], *view);
    if (view && view->strides.back() == 1)
      return SmallVector<Operation *>(chain.begin(), chain.begin() + length);
  }
  return {};
}

struct FormAttentionViewsPass : fusec::impl::FormAttentionViewsBase<FormAttentionViewsPass> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    // Group ids continue after those other rule patterns gave.
    int64_t nextGroup = 0;
    for (Operation &op : body)
      if (auto id = op.getAttrOfType<IntegerAttr>(fusec::kGroupAttr))
        nextGroup = std::max(nextGroup, id.getInt() + 1);
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
