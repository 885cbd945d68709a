//===- Conv.cpp - 2-D convolution (ONNX Conv) -------------------------------===//
//
// A direct convolution that, for each (output channel, input channel, kernel
// tap), adds weight * shifted input row into the output rows. The innermost
// loop runs over contiguous output width, so it vectorizes for stride 1, and
// the padded border is handled by clipping loop bounds rather than by tests
// in the inner loop.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/ChannelsLast.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/cpu/SlidingWindow.h"

#include <algorithm>

namespace fusec::runtime::cpu {

namespace {

void convChannelsFirst(const OpContext &context) {
  context.expectRank(0, 4);
  context.expectRank(1, 4);
  const ConstView &x = context.operand(0);
  const ConstView &w = context.operand(1);
  const int64_t batch = x.shape[0], channels = x.shape[1];
  const int64_t height = x.shape[2], width = x.shape[3];
  const int64_t filters = w.shape[0], kernelH = w.shape[2], kernelW = w.shape[3];
  const int64_t groups = context.intAttr("group");
  if (groups < 1 || channels % groups != 0 || filters % groups != 0)
    context.fail("group " + std::to_string(groups) + " must divide the input channels (" + std::to_string(channels) +
                 ") and the filters (" + std::to_string(filters) + ")");
  const int64_t groupChannels = channels / groups;
  const int64_t groupFilters = filters / groups;
  if (w.shape[1] != groupChannels)
    context.fail("weight shape " + formatShape(w.shape) + " needs " + std::to_string(w.shape[1] * groups) +
                 " input channels, the input has " + std::to_string(channels));
  const float *bias = nullptr;
  if (context.numOperands() == 3) {
    const ConstView &b = context.operand(2);
    if (b.shape != Shape{filters})
      context.fail("bias shape " + formatShape(b.shape) + " must be [" + std::to_string(filters) + "]");
    bias = b.data;
  }

  const SlidingWindow window = SlidingWindow::read(context, kernelH, kernelW, /*hasDilations=*/true);
  const int64_t outH = window.outputSize(context, 0, height, false);
  const int64_t outW = window.outputSize(context, 1, width, false);
  context.expectResultShape({batch, filters, outH, outW});

  const int64_t strideW = window.stride[1];
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t m = 0; m < filters; ++m) {
      float *out = context.result().data + (n * filters + m) * outH * outW;
      std::fill(out, out + outH * outW, bias ? bias[m] : 0.0f);
      const int64_t group = m / groupFilters;
      for (int64_t c = 0; c < groupChannels; ++c) {
        const float *in = x.data + (n * channels + group * groupChannels + c) * height * width;
        const float *taps = w.data + (m * groupChannels + c) * kernelH * kernelW;
        for (int64_t kh = 0; kh < kernelH; ++kh) {
          const auto [ohBegin, ohEnd] = window.validOutputs(0, kh, height, outH);
          for (int64_t kw = 0; kw < kernelW; ++kw) {
            const float weight = taps[kh * kernelW + kw];
            const auto [owBegin, owEnd] = window.validOutputs(1, kw, width, outW);
            const int64_t colShift = kw * window.dilation[1] - window.padBegin[1];
            for (int64_t oh = ohBegin; oh < ohEnd; ++oh) {
              // May be negative; rowBase + owBegin * strideW is not.
              const int64_t rowBase = (window.inputStart(0, oh) + kh * window.dilation[0]) * width + colShift;
              float *outRow = out + oh * outW;
              for (int64_t ow = owBegin; ow < owEnd; ++ow)
                outRow[ow] += weight * in[rowBase + ow * strideW];
            }
          }
        }
      }
    }
  }
}

void conv(const OpContext &context) {
  if (isChannelsLast(context))
    runChannelsFirst(context, convChannelsFirst);
  else
    convChannelsFirst(context);
}

} // namespace

void registerConvOps(OpRegistry &registry) { registry.add("Conv", OpInfo{conv, 2, 3}); }

} // namespace fusec::runtime::cpu
