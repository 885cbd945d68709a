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
#include "llvm/ADT/SmallPtrSet.h"

namespace fusec {
#define GEN_PASS_DEF_FORMATTENTIONVIEWS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

bool isFree(Operation *op) { return isViewOp(op) && !op->hasAttr(fusec::kGroupAttr); }

/// The longest prefix of `chain` (ops nearest the attention first) that is a
/// strided view, with a contiguous last dimension when `contiguousRows`, so
/// that each row of D elements is one contiguous load or store: read from
/// the tensor the prefix starts at (`reads`, the ops applied forward), or
/// stored into the tensor it ends in (the ops undone backward).
SmallVector<Operation *> longestViewPrefix(ArrayRef<Operation *> chain, bool reads, bool contiguousRows = true) {
  for (size_t length = chain.size(); length > 0; --length) {
    std::optional<StridedView> view = composeViewChain(chain.take_front(length), reads);
    if (view && (!contiguousRows || view->hasContiguousRows()))
      return SmallVector<Operation *>(chain.take_front(length));
  }
  return {};
}

/// The view ops (Slice, Reshape, Flatten, Transpose, Expand) through which
/// `attention` reads its query, key, value and mask, nearest first: each
/// op's result read only by the attention or by ops of these chains (a
/// fused QKV projection's head split shares its first views among Q, K and
/// V), each chain a strided view, with contiguous rows for Q, K and V (the
/// mask is read an element at a time: a padding mask broadcast over heads
/// and queries is one).
SmallVector<Operation *> inputChains(AttentionOp attention) {
  SmallVector<SmallVector<Operation *>> chains;
  SmallVector<Value> operands = {attention.getQuery(), attention.getKey(), attention.getValue()};
  if (attention.getMask())
    operands.push_back(attention.getMask());
  for (Value operand : operands) {
    SmallVector<Operation *> &chain = chains.emplace_back();
    for (Operation *op = operand.getDefiningOp(); op && isFree(op); op = op->getOperand(0).getDefiningOp())
      chain.push_back(op);
  }
  // Cutting one chain may leave a shared op read from outside another.
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::SmallPtrSet<Operation *, 16> members{attention.getOperation()};
    for (ArrayRef<Operation *> chain : chains)
      members.insert(chain.begin(), chain.end());
    for (auto [index, chain] : llvm::enumerate(chains)) {
      size_t length = 0;
      while (length < chain.size() &&
             llvm::all_of(chain[length]->getUsers(), [&](Operation *user) { return members.contains(user); }))
        ++length;
      // Q, K and V rows are loaded whole; the mask an element at a time.
      SmallVector<Operation *> kept =
          longestViewPrefix(ArrayRef(chain).take_front(length), /*reads=*/true, /*contiguousRows=*/index < 3);
      if (kept.size() != chain.size()) {
        chain = std::move(kept);
        changed = true;
      }
    }
  }
  SmallVector<Operation *> ops;
  llvm::SmallPtrSet<Operation *, 16> seen;
  for (ArrayRef<Operation *> chain : chains)
    for (Operation *op : chain)
      if (seen.insert(op).second)
        ops.push_back(op);
  return ops;
}

/// The single-use Reshape, Flatten and Transpose ops through which an
/// attention kernel stores `result`, in order. A Slice never joins: its
/// result does not cover what the kernel computes.
SmallVector<Operation *> outputChain(Value result) {
  SmallVector<Operation *> chain;
  Value value = result;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (!isFree(user) || llvm::isa<SliceOp, ExpandOp>(user))
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
      SmallVector<Operation *> inputs = inputChains(attention);
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
