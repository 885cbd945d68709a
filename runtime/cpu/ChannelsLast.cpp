//===- ChannelsLast.cpp - NHWC forms of the CPU image ops -------------------===//

#include "runtime/cpu/ChannelsLast.h"

#include <vector>

namespace fusec::runtime::cpu {

namespace {

/// `nhwc` is [A, B, C, D] = [N, H, W, C]; writes [N, C, H, W].
void toChannelsFirst(const float *nhwc, const Shape &shape, float *nchw) {
  const int64_t n = shape[0], h = shape[1], w = shape[2], c = shape[3];
  for (int64_t image = 0; image < n; ++image)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const float *pixel = nhwc + ((image * h + y) * w + x) * c;
        for (int64_t channel = 0; channel < c; ++channel)
          nchw[((image * c + channel) * h + y) * w + x] = pixel[channel];
      }
}

/// `nchw` is [N, C, H, W]; writes [N, H, W, C].
void toChannelsLast(const float *nchw, const Shape &shape, float *nhwc) {
  const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  for (int64_t image = 0; image < n; ++image)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        float *pixel = nhwc + ((image * h + y) * w + x) * c;
        for (int64_t channel = 0; channel < c; ++channel)
          pixel[channel] = nchw[((image * c + channel) * h + y) * w + x];
      }
}

Shape channelsFirstShape(const Shape &nhwc) { return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]}; }

} // namespace

bool isChannelsLast(const OpContext &context) {
  return context.hasAttr("channels_last") && context.flagAttr("channels_last");
}

void runChannelsFirst(const OpContext &context, void (*channelsFirst)(const OpContext &)) {
  std::vector<std::vector<float>> copies;
  std::vector<ConstView> operands;
  for (size_t i = 0; i < context.numOperands(); ++i) {
    ConstView view = context.operand(i);
    if (view.shape.size() == 4) {
      copies.emplace_back(static_cast<size_t>(numElements(view.shape)));
      toChannelsFirst(view.data, view.shape, copies.back().data());
      view.data = copies.back().data();
      view.shape = channelsFirstShape(view.shape);
    }
    operands.push_back(view);
  }
  const MutableView &result = context.result();
  if (result.shape.size() != 4)
    context.fail("a channels_last op's result must have rank 4, but its shape is " + formatShape(result.shape));
  std::vector<float> output(static_cast<size_t>(numElements(result.shape)));
  MutableView firstView = result;
  firstView.data = output.data();
  firstView.shape = channelsFirstShape(result.shape);
  channelsFirst(context.withViews(std::move(operands), {firstView}));
  toChannelsLast(output.data(), firstView.shape, result.data);
}

} // namespace fusec::runtime::cpu
