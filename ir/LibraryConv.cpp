//===- LibraryConv.cpp - Which fused convolutions a vendor library computes ===//

#include "ir/LibraryConv.h"

#include "ir/ElementTypes.h"
#include "ir/KernelConfig.h"
#include "ir/OpClassification.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fusec::fuse {

namespace {

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

bool convElement(Type type) { return type.isF32() || type.isF16() || type.isBF16(); }

LibraryConvMatch refuse(std::string reason) { return LibraryConvMatch{std::nullopt, std::move(reason)}; }

/// Whether `operand` holds one value per output channel as it broadcasts
/// against the output: [K] or [1, K, 1, 1] (NCHW), or [..., 1, K] (NHWC,
/// where a [K] vector lines up with the innermost channels).
bool isChannelVector(Value operand, int64_t channels, bool channelsLast) {
  ArrayRef<int64_t> shape = shapeOf(operand);
  if (shape.empty())
    return false;
  if (channelsLast)
    return shape.back() == channels && llvm::all_of(shape.drop_back(), [](int64_t dim) { return dim == 1; });
  // NCHW: the channel axis is 1 of a rank-4 operand; a rank-1 [K] would
  // broadcast along the width instead.
  return shape.size() == 4 && shape[0] == 1 && shape[1] == channels && shape[2] == 1 && shape[3] == 1;
}

} // namespace

LibraryConvMatch matchLibraryConv(SuperkernelOp kernel) {
  Block &body = kernel.getBody().front();
  ConvOp conv;
  for (Operation &op : body.without_terminator()) {
    if (auto found = llvm::dyn_cast<ConvOp>(&op)) {
      if (conv)
        return refuse("the kernel holds two convolutions");
      conv = found;
    } else if (!conv) {
      return refuse("'" + op.getName().stripDialect().str() +
                    "' before the convolution (a library reads its operands as they are in memory)");
    } else if (classifyOp(&op) != OpClass::Elementwise) {
      return refuse("'" + op.getName().stripDialect().str() + "' after the convolution");
    }
  }
  if (!conv)
    return refuse("no convolution");
  if (body.getTerminator()->getNumOperands() != 1)
    return refuse("the kernel writes " + std::to_string(body.getTerminator()->getNumOperands()) +
                  " values (a library call writes one)");
  auto inputArg = llvm::dyn_cast<BlockArgument>(conv.getInput());
  auto filterArg = llvm::dyn_cast<BlockArgument>(conv.getWeight());
  if (!inputArg || !filterArg)
    return refuse("a convolution operand is computed inside the kernel");
  const Type xType = elementTypeOf(conv.getInput());
  if (xType != elementTypeOf(conv.getWeight()) || !convElement(xType))
    return refuse("the convolution's input and filter are not both f32, f16 or bf16");
  ArrayRef<int64_t> inShape = shapeOf(conv.getInput()), wShape = shapeOf(conv.getWeight());
  if (inShape.size() != 4 || wShape.size() != 4)
    return refuse("not a 2-D convolution");
  if (llvm::any_of(inShape.drop_front(), ShapedType::isDynamic) || llvm::any_of(wShape, ShapedType::isDynamic))
    return refuse("a size other than the batch is unknown");

  LibraryConv c;
  const bool channelsLast = conv.getChannelsLast();
  c.layout = channelsLast ? LibraryConv::Layout::Nhwc : LibraryConv::Layout::Nchw;
  c.input = inputArg.getArgNumber();
  c.filter = filterArg.getArgNumber();
  c.n = ShapedType::isDynamic(inShape[0]) ? BatchLinear{1, 0} : BatchLinear{0, inShape[0]};
  c.c = channelsLast ? inShape[3] : inShape[1];
  c.h = channelsLast ? inShape[1] : inShape[2];
  c.w = channelsLast ? inShape[2] : inShape[3];
  c.k = wShape[0];
  c.r = channelsLast ? wShape[1] : wShape[2];
  c.s = channelsLast ? wShape[2] : wShape[3];
  c.groups = static_cast<int64_t>(conv.getGroup());
  ArrayRef<int64_t> pads = conv.getPads(), strides = conv.getStrides(), dilations = conv.getDilations();
  if (pads.size() != 4 || strides.size() != 2 || dilations.size() != 2)
    return refuse("not a 2-D convolution");
  // pads: [top, left, bottom, right].
  c.padBegin = {pads[0], pads[1]};
  c.padEnd = {pads[2], pads[3]};
  c.stride = {strides[0], strides[1]};
  c.dilation = {dilations[0], dilations[1]};
  if (Value bias = conv.getBias()) {
    auto biasArg = llvm::dyn_cast<BlockArgument>(bias);
    if (!biasArg)
      return refuse("the convolution's bias is computed inside the kernel");
    c.bias = biasArg.getArgNumber();
  }

  // The epilogue, in order: a bias and a residual (each once, before the
  // activation: the graph computes act(conv + bias + residual)), ReLU, and
  // casts of the value being computed.
  Value chain = conv.getResult();
  const ArrayRef<int64_t> out = shapeOf(chain);
  bool activated = false;
  for (Operation *op = conv->getNextNode(); op && op != body.getTerminator(); op = op->getNextNode()) {
    if (!chain.hasOneUse())
      return refuse("an epilogue value feeds several ops, which no library epilogue computes");
    if (*chain.getUsers().begin() != op)
      return refuse("'" + op->getName().stripDialect().str() + "' does not continue the convolution's epilogue");
    if (auto add = llvm::dyn_cast<AddOp>(op)) {
      Value other = add.getLhs() == chain ? add.getRhs() : add.getLhs();
      auto otherArg = llvm::dyn_cast<BlockArgument>(other);
      if (!otherArg || other == chain)
        return refuse("an add of a value computed inside the kernel");
      if (activated)
        return refuse("an add after the activation (the library adds bias and residual before it)");
      if (!c.bias && isChannelVector(other, c.k, channelsLast) && convElement(elementTypeOf(other))) {
        c.bias = otherArg.getArgNumber();
      } else if (!c.residual && shapeOf(other) == out) {
        c.residual = otherArg.getArgNumber();
        c.beta = 1.0;
      } else {
        return refuse("an add that is neither a bias per channel nor a residual of the output's shape");
      }
    } else if (llvm::isa<ReluOp>(op)) {
      if (activated)
        return refuse("two activations");
      c.activation = LibraryConv::Activation::Relu;
      activated = true;
    } else if (!llvm::isa<CastOp>(op)) {
      return refuse("'" + op->getName().stripDialect().str() +
                    "' in the epilogue (cuDNN's fused convolutions add a bias and a residual, then ReLU)");
    }
    chain = op->getResult(0);
  }
  Operation *yield = body.getTerminator();
  if (yield->getOperand(0) != chain)
    return refuse("the kernel writes a value besides the epilogue's last");
  const Type yType = elementTypeOf(chain);
  if (!convElement(yType) || (xType.isF32() && !yType.isF32()))
    return refuse("an output type the library does not write from these operands");
  if (c.bias && !convElement(elementTypeOf(body.getArgument(*c.bias))))
    return refuse("the bias is not f32, f16 or bf16");
  if (c.residual && elementTypeOf(body.getArgument(*c.residual)) != yType)
    return refuse("the residual's type differs from the output's");
  c.output = kernel.getNumOperands();
  if (xType.isF32() && kernel.getConfigAttr() && kernel.getConfigAttr().getPrecision() == "tf32")
    c.compute = LibraryConv::Compute::Tf32;
  return LibraryConvMatch{c, ""};
}

} // namespace fusec::fuse
