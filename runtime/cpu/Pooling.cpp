//===- Pooling.cpp - MaxPool, AveragePool, GlobalAveragePool ----------------===//
//
// Windowed pooling over the spatial dimensions of NCHW tensors (NHWC ones
// with channels_last, see ChannelsLast.h). Padding never
// contributes a value: MaxPool ignores it (padding is -inf), AveragePool
// divides by the window size including padding only with count_include_pad.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/ChannelsLast.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/cpu/SlidingWindow.h"

#include <algorithm>
#include <cmath>

namespace fusec::runtime::cpu {

namespace {

/// Shape and window of a 2-D pooling op, with the result shape checked.
struct PoolGeometry {
  int64_t planes; // batch * channels
  int64_t height, width, outH, outW;
  SlidingWindow window;
};

PoolGeometry readPoolGeometry(const OpContext &context, bool hasDilations) {
  context.expectRank(0, 4);
  const Shape &shape = context.operand(0).shape;
  const std::vector<int64_t> kernel = context.intsAttr("kernel_shape", 2);
  const bool ceilMode = context.flagAttr("ceil_mode");
  PoolGeometry geometry;
  geometry.planes = shape[0] * shape[1];
  geometry.height = shape[2];
  geometry.width = shape[3];
  geometry.window = SlidingWindow::read(context, kernel[0], kernel[1], hasDilations);
  geometry.outH = geometry.window.outputSize(context, 0, geometry.height, ceilMode);
  geometry.outW = geometry.window.outputSize(context, 1, geometry.width, ceilMode);
  context.expectResultShape({shape[0], shape[1], geometry.outH, geometry.outW});
  return geometry;
}

void maxPoolChannelsFirst(const OpContext &context) {
  const PoolGeometry g = readPoolGeometry(context, /*hasDilations=*/true);
  const SlidingWindow &w = g.window;
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const float *in = context.operand(0).data + plane * g.height * g.width;
    float *out = context.result().data + plane * g.outH * g.outW;
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        float best = -INFINITY;
        for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
          const int64_t ih = w.inputStart(0, oh) + kh * w.dilation[0];
          if (ih < 0 || ih >= g.height)
            continue;
          for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
            const int64_t iw = w.inputStart(1, ow) + kw * w.dilation[1];
            if (iw < 0 || iw >= g.width)
              continue;
            const float value = in[ih * g.width + iw];
            // NaN wins, as in PyTorch.
            if (value > best || std::isnan(value))
              best = value;
          }
        }
        out[oh * g.outW + ow] = best;
      }
    }
  }
}

void averagePoolChannelsFirst(const OpContext &context) {
  const PoolGeometry g = readPoolGeometry(context, /*hasDilations=*/false);
  const SlidingWindow &w = g.window;
  const bool countIncludePad = context.flagAttr("count_include_pad");
  for (int64_t plane = 0; plane < g.planes; ++plane) {
    const float *in = context.operand(0).data + plane * g.height * g.width;
    float *out = context.result().data + plane * g.outH * g.outW;
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      // The window clipped to the padded input; with ceil_mode it may reach
      // past the end padding, and that part never counts.
      const int64_t padH0 = w.inputStart(0, oh);
      const int64_t padH1 = std::min(padH0 + w.kernel[0], g.height + w.padEnd[0]);
      const int64_t h0 = std::max<int64_t>(padH0, 0);
      const int64_t h1 = std::min(padH1, g.height);
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        const int64_t padW0 = w.inputStart(1, ow);
        const int64_t padW1 = std::min(padW0 + w.kernel[1], g.width + w.padEnd[1]);
        const int64_t w0 = std::max<int64_t>(padW0, 0);
        const int64_t w1 = std::min(padW1, g.width);
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += in[ih * g.width + iw];
        const int64_t count = countIncludePad ? (padH1 - padH0) * (padW1 - padW0) : (h1 - h0) * (w1 - w0);
        out[oh * g.outW + ow] = static_cast<float>(sum / count);
      }
    }
  }
}

void maxPool(const OpContext &context) {
  if (isChannelsLast(context))
    runChannelsFirst(context, maxPoolChannelsFirst);
  else
    maxPoolChannelsFirst(context);
}

void averagePool(const OpContext &context) {
  if (isChannelsLast(context))
    runChannelsFirst(context, averagePoolChannelsFirst);
  else
    averagePoolChannelsFirst(context);
}

void globalAveragePool(const OpContext &context) {
  const Shape &shape = context.operand(0).shape;
  if (shape.size() < 3)
    context.fail("operand 0 must have rank >= 3, but its shape is " + formatShape(shape));
  Shape resultShape(shape.size(), 1);
  resultShape[0] = shape[0];
  resultShape[1] = shape[1];
  context.expectResultShape(resultShape);
  const int64_t planes = shape[0] * shape[1];
  const int64_t planeSize = numElements(shape) / std::max<int64_t>(planes, 1);
  for (int64_t plane = 0; plane < planes; ++plane) {
    const float *in = context.operand(0).data + plane * planeSize;
    double sum = 0.0;
    for (int64_t i = 0; i < planeSize; ++i)
      sum += in[i];
    context.result().data[plane] = static_cast<float>(sum / planeSize);
  }
}

} // namespace

void registerPoolingOps(OpRegistry &registry) {
  registry.add("MaxPool", OpInfo{maxPool, 1, 1});
  registry.add("AveragePool", OpInfo{averagePool, 1, 1});
  registry.add("GlobalAveragePool", OpInfo{globalAveragePool, 1, 1});
}

} // namespace fusec::runtime::cpu
