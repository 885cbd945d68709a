//===- Normalization.cpp - BatchNormalization, LayerNormalization, Softmax ---===//
//
// Statistics (means, variances, softmax sums) are accumulated in double; the
// results are rounded to float once.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"

#include <algorithm>
#include <cmath>

namespace fusec::runtime::cpu {

namespace {

/// Splits a shape at `axis` into outer = prod(dims before), extent = dims[axis]
/// and inner = prod(dims after).
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};

AxisSplit splitAt(const Shape &shape, size_t axis) {
  AxisSplit split;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < axis)
      split.outer *= shape[d];
    else if (d == axis)
      split.extent = shape[d];
    else
      split.inner *= shape[d];
  }
  return split;
}

/// Reads a non-negative `axis` attribute that must index `rank` dimensions.
size_t axisAttr(const OpContext &context, size_t rank) {
  const int64_t axis = context.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    context.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis);
}

void batchNormalization(const OpContext &context) {
  const ConstView &x = context.operand(0);
  if (x.shape.size() < 2)
    context.fail("operand 0 must have rank >= 2, but its shape is " + formatShape(x.shape));
  context.expectResultShape(x.shape);
  const int64_t channels = x.shape[1];
  for (size_t i = 1; i < 5; ++i)
    if (context.operand(i).shape != Shape{channels})
      context.fail("operand " + std::to_string(i) + " has shape " + formatShape(context.operand(i).shape) +
                   ", expected [" + std::to_string(channels) + "]");
  const float epsilon = context.epsilonAttr();
  const float *scale = context.operand(1).data;
  const float *shift = context.operand(2).data;
  const float *mean = context.operand(3).data;
  const float *variance = context.operand(4).data;

  const AxisSplit split = splitAt(x.shape, 1);
  for (int64_t c = 0; c < channels; ++c) {
    const float factor = static_cast<float>(scale[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon));
    for (int64_t n = 0; n < split.outer; ++n) {
      const int64_t offset = (n * channels + c) * split.inner;
      for (int64_t i = 0; i < split.inner; ++i)
        context.result().data[offset + i] = (x.data[offset + i] - mean[c]) * factor + shift[c];
    }
  }
}

void layerNormalization(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t axis = axisAttr(context, x.shape.size());
  const float epsilon = context.epsilonAttr();
  context.expectResultShape(x.shape);

  // Scale and bias broadcast over the normalized dimensions.
  const Shape normalized(x.shape.begin() + axis, x.shape.end());
  auto expandParameter = [&](size_t index) {
    const ConstView &parameter = context.operand(index);
    if (broadcastShapes(parameter.shape, normalized) != normalized)
      context.fail("operand " + std::to_string(index) + " shape " + formatShape(parameter.shape) +
                   " does not broadcast to " + formatShape(normalized));
    return expandTo(parameter, normalized);
  };
  const std::vector<float> scale = expandParameter(1);
  const std::vector<float> bias =
      context.numOperands() == 3 ? expandParameter(2) : std::vector<float>(scale.size(), 0.0f);

  const int64_t groups = splitAt(x.shape, axis).outer;
  const int64_t size = numElements(normalized);
  for (int64_t g = 0; g < groups; ++g) {
    const float *in = x.data + g * size;
    float *out = context.result().data + g * size;
    double sum = 0.0;
    for (int64_t i = 0; i < size; ++i)
      sum += in[i];
    const double mean = sum / size;
    double squares = 0.0;
    for (int64_t i = 0; i < size; ++i)
      squares += (in[i] - mean) * (in[i] - mean);
    const double invStdDev = 1.0 / std::sqrt(squares / size + epsilon);
    for (int64_t i = 0; i < size; ++i)
      out[i] = static_cast<float>((in[i] - mean) * invStdDev * scale[i] + bias[i]);
  }
}

void softmax(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t axis = axisAttr(context, x.shape.size());
  context.expectResultShape(x.shape);
  const AxisSplit split = splitAt(x.shape, axis);
  for (int64_t o = 0; o < split.outer; ++o) {
    for (int64_t i = 0; i < split.inner; ++i) {
      const int64_t base = o * split.extent * split.inner + i;
      auto at = [&](int64_t k) { return base + k * split.inner; };
      // Subtracting the maximum keeps exp() finite.
      float maximum = -INFINITY;
      for (int64_t k = 0; k < split.extent; ++k)
        maximum = std::max(maximum, x.data[at(k)]);
      double sum = 0.0;
      for (int64_t k = 0; k < split.extent; ++k) {
        const double e = std::exp(static_cast<double>(x.data[at(k)]) - maximum);
        context.result().data[at(k)] = static_cast<float>(e);
        sum += e;
      }
      for (int64_t k = 0; k < split.extent; ++k)
        context.result().data[at(k)] = static_cast<float>(context.result().data[at(k)] / sum);
    }
  }
}

} // namespace

void registerNormalizationOps(OpRegistry &registry) {
  registry.add("BatchNormalization", OpInfo{batchNormalization, 5, 5});
  registry.add("LayerNormalization", OpInfo{layerNormalization, 2, 3});
  registry.add("Softmax", OpInfo{softmax, 1, 1});
}

} // namespace fusec::runtime::cpu
