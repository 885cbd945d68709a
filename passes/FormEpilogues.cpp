//===- FormEpilogues.cpp - Conv/Gemm/MatMul epilogue groups ---------------===//
#include "passes/FusionGraph.h"
#include "passes/Passes.h"

#include "ir/ConvPrologue.h"
#include "ir/FuseOps.h"
#include "ir/StridedView.h"

#include "mlir/IR/Builders.h"

namespace fusec {
#define GEN_PASS_DEF_FORMEPILOGUES
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// An op its facts declare a conv/GEMM epilogue's activation (FuseOps.td).
bool isActivation(Operation *op) {
  auto facts = llvm::dyn_cast<OpFactsInterface>(op);
  return facts && facts.isEpilogueActivation();
}

bool isArithmetic(Operation *op) { return llvm::isa<AddOp, SubOp, MulOp, DivOp>(op); }

/// PRelu with a constant slope (per channel, after a conv) is an activation.
bool isConstantSlopePRelu(Operation *op, Value value) {
  auto prelu = llvm::dyn_cast<PReluOp>(op);
  return prelu && prelu.getLhs() == value && prelu.getRhs().getDefiningOp<ConstantOp>();
}

/// Taps a conv may have to be recomputed in a LayerNorm's prologue: each
/// normalised element evaluates its conv once (9x9 windows and below).
constexpr int64_t kMaxNormPrologueTaps = 81;

/// The LayerNorm `conv` computes the input of, when `conv` is cheap to
/// evaluate per element there: depthwise (one input channel per output
/// channel), channels-last, a static image, its one user a LayerNorm over
/// the channels (the last axis). ConvNeXt's depthwise 7x7 conv and the
/// LayerNorm after it then read and write the image once, in one kernel.
LayerNormOp normOfDepthwiseConv(ConvOp conv) {
  auto input = llvm::cast<RankedTensorType>(conv.getInput().getType());
  auto weight = llvm::cast<RankedTensorType>(conv.getWeight().getType());
  if (!conv.getChannelsLast() || !conv.getResult().hasOneUse() || input.getRank() != 4 ||
      static_cast<int64_t>(conv.getGroup()) != input.getDimSize(3) || weight.getDimSize(0) != input.getDimSize(3) ||
      weight.getDimSize(3) != 1 || weight.getDimSize(1) * weight.getDimSize(2) > kMaxNormPrologueTaps ||
      llvm::any_of(input.getShape().drop_front(), ShapedType::isDynamic))
    return LayerNormOp();
  auto norm = llvm::dyn_cast<LayerNormOp>(*conv.getResult().getUsers().begin());
  if (!norm || norm.getInput() != conv.getResult() || norm.getAxis() != 3 || norm->hasAttr(fusec::kGroupAttr))
    return LayerNormOp();
  return norm;
}

/// The Slice, Reshape and Flatten ops that compute a matrix product's A
/// from rows of another tensor (a classifier's first token of each
/// sequence), nearest first, when the product reads A through them instead
/// of a copy: each read only by the next and in no group, their composition
/// a view with contiguous columns, static offsets and strides, and not A's
/// own dense layout (a flatten alone is an alias already: reshape-in-place).
SmallVector<Operation *> operandRowViews(Operation *product) {
  if (auto gemm = llvm::dyn_cast<GemmOp>(product); gemm && gemm.getTransA())
    return {};
  SmallVector<Operation *> chain;
  Value value = product->getOperand(0);
  while (Operation *op = value.getDefiningOp()) {
    if (!llvm::isa<SliceOp, ReshapeOp, FlattenOp>(op) || op->hasAttr(fusec::kGroupAttr) || !value.hasOneUse())
      break;
    chain.push_back(op);
    value = op->getOperand(0);
  }
  for (size_t length = chain.size(); length > 0; --length)
    if (matrixRowsThrough(ArrayRef(chain).take_front(length)))
      return SmallVector<Operation *>(ArrayRef(chain).take_front(length));
  return {};
}

struct FormEpiloguesPass : fusec::impl::FormEpiloguesBase<FormEpiloguesPass> {
  using FormEpiloguesBase::FormEpiloguesBase;

  bool enabled(StringRef rule) const { return !llvm::is_contained(disabledRules, rule.str()); }

  /// The rule under which `user` joins a group whose current value is
  /// `value`, or an empty string.
  StringRef ruleFor(Operation *user, Value value, bool haveResidual) const {
    if (user->getResult(0).getType() != value.getType())
      return ""; // an epilogue computes exactly the anchor's output elements
    if (isActivation(user) || isConstantSlopePRelu(user, value))
      return enabled("epilogue-activation") ? "epilogue-activation" : "";
    if (!isArithmetic(user))
      return "";
    Value other = user->getOperand(0) == value ? user->getOperand(1) : user->getOperand(0);
    if (other == value)
      return "";
    if (other.getDefiningOp<ConstantOp>())
      return enabled("bias-epilogue") ? "bias-epilogue" : "";
    if (llvm::isa<AddOp>(user) && !haveResidual)
      return enabled("add-to-output") ? "add-to-output" : "";
    return "";
  }

  void runOnOperation() override {
    Builder builder(&getContext());
    int64_t nextGroup = 0;
    for (Operation &op : getOperation().getBody().front()) {
      if (!llvm::isa<ConvOp, GemmOp, MatMulOp>(op) || op.hasAttr(fusec::kGroupAttr))
        continue;
      auto group = builder.getI64IntegerAttr(nextGroup++);
      op.setAttr(fusec::kGroupAttr, group);
      ++numGroups;
      // A depthwise conv whose only reader normalises its channels is
      // computed in the norm's kernel, as its prologue (the norm is the
      // kernel's core: kernelCore).
      if (auto conv = llvm::dyn_cast<ConvOp>(op); conv && enabled("conv-into-norm")) {
        auto hasNoGroup = [](Operation *candidate) { return !candidate->hasAttr(fusec::kGroupAttr); };
        if (LayerNormOp norm = normOfDepthwiseConv(conv); norm && convPrologue(conv, hasNoGroup).empty()) {
          norm->setAttr(fusec::kGroupAttr, group);
          op.setAttr(fusec::kFusedByAttr, builder.getStringAttr("conv-into-norm"));
          ++numFusedOps;
          continue;
        }
      }
      // Ops another rule grouped (an earlier conv's epilogue) stay there.
      if (auto conv = llvm::dyn_cast<ConvOp>(op); conv && enabled("conv-prologue"))
        for (Operation *prologue :
             convPrologue(conv, [](Operation *candidate) { return !candidate->hasAttr(fusec::kGroupAttr); })) {
          prologue->setAttr(fusec::kGroupAttr, group);
          prologue->setAttr(fusec::kFusedByAttr, builder.getStringAttr("conv-prologue"));
          ++numFusedOps;
        }
      if (llvm::isa<GemmOp, MatMulOp>(op) && enabled("operand-views"))
        for (Operation *view : operandRowViews(&op)) {
          view->setAttr(fusec::kGroupAttr, group);
          view->setAttr(fusec::kFusedByAttr, builder.getStringAttr("operand-views"));
          ++numFusedOps;
        }
      Value value = op.getResult(0);
      bool haveResidual = false;
      while (value.hasOneUse()) {
        Operation *user = *value.getUsers().begin();
        if (user->getBlock() != op.getBlock() || user->hasAttr(fusec::kGroupAttr) || user->getNumResults() != 1)
          break;
        StringRef rule = ruleFor(user, value, haveResidual);
        if (rule.empty())
          break;
        haveResidual |= rule == "add-to-output";
        user->setAttr(fusec::kGroupAttr, group);
        user->setAttr(fusec::kFusedByAttr, builder.getStringAttr(rule));
        ++numFusedOps;
        value = user->getResult(0);
      }
      // The conv on a model's NCHW input that feeds channels-last layers
      // (fuse-convert-to-channels-last leaves it NCHW) stores its result
      // transposed: the chain ends. Other convs keep the transpose apart,
      // and with it their library variant.
      auto conv = llvm::dyn_cast<ConvOp>(op);
      if (conv && llvm::isa<BlockArgument>(conv.getInput()) && enabled("epilogue-transpose") && value.hasOneUse()) {
        Operation *user = *value.getUsers().begin();
        if (llvm::isa<TransposeOp>(user) && user->getBlock() == op.getBlock() && !user->hasAttr(fusec::kGroupAttr)) {
          user->setAttr(fusec::kGroupAttr, group);
          user->setAttr(fusec::kFusedByAttr, builder.getStringAttr("epilogue-transpose"));
          ++numFusedOps;
        }
      }
    }
  }
};

} // namespace
