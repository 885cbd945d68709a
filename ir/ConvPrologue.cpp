//===- ConvPrologue.cpp - Per-channel ops a conv applies as it loads ------===//

#include "ir/ConvPrologue.h"

#include "ir/ElementTypes.h"
#include "ir/OpClassification.h"

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

ConvInputChain convInputChain(ConvOp conv) {
  ConvInputChain chain{conv.getInput(), {}};
  auto shape = llvm::cast<RankedTensorType>(conv.getInput().getType()).getShape();
  while (Operation *op = chain.source.getDefiningOp()) {
    if (op->getBlock() != conv->getBlock() || classifyOp(op) != OpClass::Elementwise)
      break;
    SmallVector<Value> images;
    for (Value operand : op->getOperands())
      if (llvm::cast<RankedTensorType>(operand.getType()).getShape() == shape && !llvm::is_contained(images, operand))
        images.push_back(operand);
    if (images.size() != 1)
      break;
    chain.ops.insert(chain.ops.begin(), op);
    chain.source = images.front();
  }
  return chain;
}

Value convInputSource(ConvOp conv) { return convInputChain(conv).source; }

SmallVector<Operation *> convPrologue(ConvOp conv, function_ref<bool(Operation *)> canJoin) {
  const int64_t channelAxis = inputChannelAxis(conv);
  auto isConstant = [](Value value) { return static_cast<bool>(value.getDefiningOp<ConstantOp>()); };
  const ConvInputChain chain = convInputChain(conv);
  auto inputOf = [&](size_t i) { return i == 0 ? chain.source : chain.ops[i - 1]->getResult(0); };
  // From the conv back: each op read by the next only, channel-wise with
  // per-channel constants, and one the caller lets join.
  size_t first = chain.ops.size();
  while (first > 0) {
    Operation *op = chain.ops[first - 1];
    if (!op->getResult(0).hasOneUse() || !canJoin(op) ||
        !isChannelwiseOp(op, inputOf(first - 1), channelAxis, isConstant))
      break;
    --first;
  }
  // The template loads elements of the conv input's type: the prologue
  // starts where a tensor of that type goes in.
  const Type inputElement = elementTypeOf(conv.getInput());
  while (first < chain.ops.size() && elementTypeOf(inputOf(first)) != inputElement)
    ++first;
  return SmallVector<Operation *>(chain.ops.begin() + first, chain.ops.end());
}

} // namespace fusec::fuse
