//===- SlidingWindow.cpp - 2-D window geometry of Conv and pooling ops ------===//

#include "runtime/cpu/SlidingWindow.h"

#include <algorithm>

namespace fusec::runtime::cpu {

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

} // namespace

rules::WindowAxis SlidingWindow::axis(int dim, int64_t input) const {
  return rules::WindowAxis{input, kernel[dim], stride[dim], dilation[dim], padBegin[dim], padEnd[dim]};
}

SlidingWindow SlidingWindow::read(const OpContext &context, int64_t kernelH, int64_t kernelW, bool hasDilations) {
  SlidingWindow window;
  const std::vector<int64_t> strides = context.intsAttr("strides", 2);
  const std::vector<int64_t> pads = context.intsAttr("pads", 4);
  const std::vector<int64_t> dilations = hasDilations ? context.intsAttr("dilations", 2) : std::vector<int64_t>{1, 1};
  const int64_t kernel[2] = {kernelH, kernelW};
  for (int dim = 0; dim < 2; ++dim) {
    window.kernel[dim] = kernel[dim];
    window.stride[dim] = strides[dim];
    window.dilation[dim] = dilations[dim];
    window.padBegin[dim] = pads[dim];
    window.padEnd[dim] = pads[dim + 2];
    context.check(rules::checkWindowAttributes(window.axis(dim, 0)));
  }
  return window;
}

int64_t SlidingWindow::outputSize(const OpContext &context, int dim, int64_t input, bool ceilMode) const {
  int64_t outputs = 0;
  const std::string error = rules::windowOutputSize(axis(dim, input), ceilMode, outputs);
  if (!error.empty())
    context.fail("spatial dimension " + std::to_string(dim) + ": " + error);
  return outputs;
}

std::pair<int64_t, int64_t> SlidingWindow::validOutputs(int dim, int64_t tap, int64_t input, int64_t outputs) const {
  // inputStart(out) + tap * dilation = out * stride + shift.
  const int64_t shift = tap * dilation[dim] - padBegin[dim];
  const int64_t begin = std::max<int64_t>(0, ceilDiv(-shift, stride[dim]));
  const int64_t end = std::min(outputs, floorDiv(input - 1 - shift, stride[dim]) + 1);
  return {begin, std::max(begin, end)};
}

} // namespace fusec::runtime::cpu
