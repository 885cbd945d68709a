//===- ConvPrologue.cpp - Per-channel ops a conv applies as it loads ------===//

#include "ir/ConvPrologue.h"

#include "ir/ElementTypes.h"
#include "ir/OpClassification.h"

#include <algorithm>

using namespace mlir;

namespace fusec::fuse {

int64_t inputChannelAxis(ConvOp conv) { return conv.getChannelsLast() ? 3 : 1; }

bool isPerChannelShape(ArrayRef<int64_t> constantShape, ArrayRef<int64_t> shape, int64_t channelAxis) {
  if (constantShape.size() > shape.size())
    return false;
  const size_t leading = shape.size() - constantShape.size();
  for (size_t d = 0; d < constantShape.size(); ++d) {
    const int64_t axis = static_cast<int64_t>(leading + d);
    if (constantShape[d] != 1 && !(axis == channelAxis && constantShape[d] == shape[axis]))
      return false;
  }
  return true;
}

bool isChannelwiseOp(Operation *op, Value chain, int64_t channelAxis, function_ref<bool(Value)> isPerChannel) {
  if (op->getNumResults() != 1 || classifyOp(op) != OpClass::Elementwise || llvm::isa<TriluOp>(op))
    return false;
  auto chainType = llvm::cast<RankedTensorType>(chain.getType());
  if (llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape() != chainType.getShape())
    return false;
  if (auto norm = llvm::dyn_cast<BatchNormOp>(op))
    // Its parameters are per channel along axis 1.
    return channelAxis == 1 && norm.getInput() == chain && isPerChannel(norm.getScale()) &&
           isPerChannel(norm.getBias()) && isPerChannel(norm.getMean()) && isPerChannel(norm.getVariance());
  bool readsChain = false;
  for (Value operand : op->getOperands()) {
    if (operand == chain) {
      readsChain = true;
      continue;
    }
    auto type = llvm::dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !isPerChannelShape(type.getShape(), chainType.getShape(), channelAxis) || !isPerChannel(operand))
      return false;
  }
  return readsChain;
}

Value convInputSource(ConvOp conv) {
  Value value = conv.getInput();
  auto shape = llvm::cast<RankedTensorType>(value.getType()).getShape();
  while (Operation *op = value.getDefiningOp()) {
    if (op->getBlock() != conv->getBlock() || classifyOp(op) != OpClass::Elementwise)
      break;
    Value next;
    for (Value operand : op->getOperands())
      if (llvm::cast<RankedTensorType>(operand.getType()).getShape() == shape)
        next = operand;
    if (!next)
      break;
    value = next;
  }
  return value;
}

SmallVector<Operation *> convPrologue(ConvOp conv, function_ref<bool(Operation *)> canJoin) {
  const int64_t channelAxis = inputChannelAxis(conv);
  auto isConstant = [](Value value) { return static_cast<bool>(value.getDefiningOp<ConstantOp>()); };
  SmallVector<Operation *> chain; // last op first
  Value value = conv.getInput();
  while (Operation *op = value.getDefiningOp()) {
    if (!value.hasOneUse() || op->getBlock() != conv->getBlock() || !canJoin(op))
      break;
    // The operand the chain continues through: the one that is not a
    // per-channel constant.
    Value next;
    for (Value operand : op->getOperands())
      if (!isConstant(operand))
        next = next ? Value() : operand;
    if (!next || !isChannelwiseOp(op, next, channelAxis, isConstant))
      break;
    chain.push_back(op);
    value = next;
  }
  // The template loads elements of the conv input's type: the chain starts
  // where a tensor of that type goes in.
  const Type inputElement = elementTypeOf(conv.getInput());
  while (!chain.empty()) {
    Operation *first = chain.back();
    Value root;
    for (Value operand : first->getOperands())
      if (!isConstant(operand))
        root = operand;
    if (elementTypeOf(root) == inputElement)
      break;
    chain.pop_back();
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

} // namespace fusec::fuse
