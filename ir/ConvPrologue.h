//===- ConvPrologue.h - Per-channel ops a conv applies as it loads -*- C++ -*-===//
//
// A pre-activation network (DenseNet, pre-activation ResNets) normalises and
// activates a tensor right before a convolution reads it: BatchNorm -> ReLU
// -> Conv, where the BatchNorm cannot fold into the conv's weights (the ReLU
// is between). As a kernel of its own the BatchNorm-ReLU writes the tensor
// and the conv reads it again; applied to each input element as the conv's
// template loads it, it costs a few instructions per load instead.
//
// An op qualifies when it maps the tensor element by element and everything
// else it reads is a per-channel constant: a scale, shift or bias of shape
// [C, 1, 1] (NCHW) or [C] on the last axis (NHWC), a BatchNormalization with
// constant parameters, a Relu, Clip, Cast and the like. Such an op's value at
// an element depends only on the element and its channel, which is all a
// template knows when it loads. Zero padding stays zero: the templates apply
// the prologue to the elements they load, and padding is not loaded.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_CONVPROLOGUE_H
#define FUSEC_IR_CONVPROLOGUE_H

#include "ir/FuseOps.h"

#include "llvm/ADT/SmallVector.h"

namespace fusec::fuse {

/// The channel axis of `conv`'s input: 1, or 3 for a channels_last conv.
int64_t inputChannelAxis(ConvOp conv);

/// Whether `op` computes, element by element, from `chain` (a tensor of
/// the conv input's shape with channels on `channelAxis`) and values
/// `isPerChannel` accepts; `isPerChannel(value)` is asked for each other
/// operand, which must broadcast to `chain` along the channel axis only.
bool isChannelwiseOp(mlir::Operation *op, mlir::Value chain, int64_t channelAxis,
                     llvm::function_ref<bool(mlir::Value)> isPerChannel);

/// True for a constant whose shape broadcasts to `shape` along `channelAxis`
/// only (every other dimension 1 or absent).
bool isPerChannelShape(llvm::ArrayRef<int64_t> constantShape, llvm::ArrayRef<int64_t> shape, int64_t channelAxis);

/// What `conv` reads: the element-wise ops before it in its block that
/// compute its input (first op first), each from exactly one operand of
/// the image's shape, and the value they start from (the input itself when
/// there are none). Inside a conv kernel, the prologue and the tensor the
/// template loads; whether the ops can be a prologue is isChannelwiseOp's.
struct ConvInputChain {
  mlir::Value source;
  llvm::SmallVector<mlir::Operation *> ops;
};
ConvInputChain convInputChain(ConvOp conv);
/// convInputChain(conv).source.
mlir::Value convInputSource(ConvOp conv);

/// The ops before `conv` that it can apply to its input as it loads it,
/// first op first: the longest chain of channel-wise ops with per-channel
/// constants ending at the conv's input, each result read by the next op
/// only, whose first op reads a tensor of the conv input's element type.
/// `canJoin` is asked of each op first (the caller's own conditions).
llvm::SmallVector<mlir::Operation *> convPrologue(ConvOp conv, llvm::function_ref<bool(mlir::Operation *)> canJoin);

} // namespace fusec::fuse

#endif // FUSEC_IR_CONVPROLOGUE_H
