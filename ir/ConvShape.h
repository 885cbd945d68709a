//===- ConvShape.h - A convolution's sizes, whatever its layout -*- C++ -*-===//
//
// fuse.conv is NCHW/OIHW, or NHWC/OHWI with `channels_last`. Code that
// sizes tiles, prices or emits a convolution reads its extents here rather
// than by axis position, so both layouts share it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_CONVSHAPE_H
#define FUSEC_IR_CONVSHAPE_H

#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

namespace fusec::fuse {

struct ConvShape {
  /// The batch (kDynamic when it is the run-time batch) and the input and
  /// output images' extents.
  int64_t batch, channels, height, width;
  int64_t filters, outHeight, outWidth;
  /// The window and the input channels each filter reads (channels /
  /// group).
  int64_t kernelH, kernelW, groupChannels;
  bool channelsLast;

  /// The reduction length of one output: KH * KW * C / group.
  int64_t taps() const { return kernelH * kernelW * groupChannels; }
  /// One image's output pixels, HO * WO.
  int64_t pixels() const { return outHeight * outWidth; }
  /// One input image's elements, C * H * W.
  int64_t imageElements() const { return channels * height * width; }
};

inline ConvShape convShapeOf(ConvOp conv) {
  const bool channelsLast = conv.getChannelsLast();
  const ImageAxes axes = imageAxes(channelsLast);
  auto in = llvm::cast<mlir::RankedTensorType>(conv.getInput().getType()).getShape();
  auto out = llvm::cast<mlir::RankedTensorType>(conv.getOutput().getType()).getShape();
  auto weight = llvm::cast<mlir::RankedTensorType>(conv.getWeight().getType()).getShape();
  return {in[axes.batch],     in[axes.channel],     in[axes.height], in[axes.width],
          out[axes.channel],  out[axes.height],     out[axes.width], weight[axes.height],
          weight[axes.width], weight[axes.channel], channelsLast};
}

} // namespace fusec::fuse

#endif // FUSEC_IR_CONVSHAPE_H
