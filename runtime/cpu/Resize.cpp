//===- Resize.cpp - Resize (nearest, linear and cubic) ----------------------===//
//
// ONNX Resize as its reference computes it: every output coordinate maps to
// an input coordinate per axis (rules::resizeSourceCoordinate); nearest
// rounds it, linear weighs the two neighbours around it, cubic the four of
// rules::resizeCubicTaps, read clamped into the input (the reference pads
// with edge values), axis by axis.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/OpRules.h"

#include <algorithm>
#include <cmath>

namespace fusec::runtime::cpu {

namespace {

/// The input indices and weights one output index of an axis reads.
struct Taps {
  int64_t index[4] = {0, 0, 0, 0};
  double weight[4] = {1.0, 0.0, 0.0, 0.0};
  int count = 1;
};

void resize(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  const std::vector<int64_t> sizes = context.intsAttr("sizes", rank);
  const std::vector<double> scales = context.floatsAttr("scales", rank);
  const std::string mode = context.stringAttr("mode");
  const std::string coordinates = context.stringAttr("coordinate_transformation_mode");
  const std::string nearest = context.stringAttr("nearest_mode");
  context.check(rules::checkResizeModes(mode, coordinates, nearest));
  const double cubicCoefficient = context.hasAttr("cubic_coeff_a") ? context.floatAttr("cubic_coeff_a") : -0.75;
  const bool excludeOutside = context.hasAttr("exclude_outside") && context.flagAttr("exclude_outside");

  // The shapes here have the batch substituted: a kept axis (-1) is the
  // input's extent.
  Shape shape(rank);
  std::vector<std::vector<Taps>> taps(rank);
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = sizes[d] == -1 ? x.shape[d] : sizes[d];
    if (sizes[d] == -1 && scales[d] != 1.0)
      context.fail("axis " + std::to_string(d) + " keeps its extent (size -1) but has scale " +
                   std::to_string(scales[d]));
    context.check(rules::checkResizeAxis(x.shape[d], shape[d], scales[d]));
  }
  context.expectResultShape(shape);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t input = x.shape[d];
    for (int64_t o = 0; o < shape[d]; ++o) {
      Taps tap;
      if (sizes[d] == -1) {
        tap.index[0] = o;
      } else {
        const double source = rules::resizeSourceCoordinate(coordinates, o, scales[d], input);
        const auto clampIndex = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), input - 1); };
        if (mode == "nearest") {
          tap.index[0] = rules::resizeNearestIndex(nearest, source, input);
        } else if (mode == "cubic") {
          const rules::CubicTaps cubic = rules::resizeCubicTaps(source, cubicCoefficient);
          double sum = 0.0;
          for (int i = 0; i < 4; ++i) {
            const int64_t at = cubic.first - 1 + i;
            tap.index[i] = clampIndex(at);
            tap.weight[i] = excludeOutside && (at < 0 || at >= input) ? 0.0 : cubic.weight[i];
            sum += tap.weight[i];
          }
          if (excludeOutside)
            for (double &weight : tap.weight)
              weight /= sum;
          tap.count = 4;
        } else {
          const double low = std::floor(source);
          const auto clamp = [&](double i) {
            return static_cast<int64_t>(std::min(std::max(i, 0.0), double(input - 1)));
          };
          tap.index[0] = clamp(low);
          tap.index[1] = clamp(low + 1);
          tap.weight[1] = source - low;
          tap.weight[0] = 1.0 - tap.weight[1];
          tap.count = 2;
        }
      }
      taps[d].push_back(tap);
    }
  }

  const Strides strides = contiguousStrides(x.shape);
  float *y = context.result().data;
  const int64_t count = numElements(shape);
  std::vector<int64_t> out(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    // Sum over every combination of the axes' taps.
    double value = 0.0;
    std::vector<int> choice(rank, 0);
    while (true) {
      double weight = 1.0;
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) {
        const Taps &tap = taps[d][out[d]];
        weight *= tap.weight[choice[d]];
        offset += tap.index[choice[d]] * strides[d];
      }
      // Zero-weight taps are summed too, as in ONNX's reference and the
      // generated kernels: an infinite neighbour makes the result NaN.
      value += weight * x.data[offset];
      size_t d = rank;
      while (d > 0 && ++choice[d - 1] == taps[d - 1][out[d - 1]].count)
        choice[--d] = 0;
      if (d == 0)
        break;
    }
    y[linear] = static_cast<float>(value);
    for (size_t d = rank; d-- > 0;) {
      if (++out[d] < shape[d])
        break;
      out[d] = 0;
    }
  }
}

} // namespace

void registerResizeOps(OpRegistry &registry) { registry.add("Resize", OpInfo{resize, 1, 1}); }

} // namespace fusec::runtime::cpu
