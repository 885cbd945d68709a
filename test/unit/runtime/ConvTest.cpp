//===- ConvTest.cpp - The CPU Conv against hand-computed results ------------===//

#include "TestSupport.h"

#include <cmath>

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

json convAttrs(std::vector<int64_t> strides, std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t group) {
  return {{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"group", group}};
}

/// Irregular values in [-1, 1]: sin(frequency * index).
Tensor wave(const Shape &shape, float frequency) {
  Tensor tensor(shape);
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    tensor.data()[i] = std::sin(frequency * static_cast<float>(i));
  return tensor;
}

/// The textbook definition, one output element at a time.
Tensor naiveConv(const Tensor &x, const Tensor &w, const Tensor *bias, const json &attrs, const Shape &resultShape) {
  const int64_t group = attrs["group"];
  const auto stride = attrs["strides"].get<std::vector<int64_t>>();
  const auto pad = attrs["pads"].get<std::vector<int64_t>>();
  const auto dilation = attrs["dilations"].get<std::vector<int64_t>>();
  const int64_t C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t M = w.shape()[0], KH = w.shape()[2], KW = w.shape()[3];
  Tensor y(resultShape);
  const int64_t OH = resultShape[2], OW = resultShape[3];
  for (int64_t n = 0; n < resultShape[0]; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = bias ? bias->values()[m] : 0.0;
          const int64_t g = m / (M / group);
          for (int64_t c = 0; c < C / group; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t ih = oh * stride[0] - pad[0] + kh * dilation[0];
                const int64_t iw = ow * stride[1] - pad[1] + kw * dilation[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                sum += x.values()[((n * C + g * (C / group) + c) * H + ih) * W + iw] *
                       w.values()[((m * (C / group) + c) * KH + kh) * KW + kw];
              }
          y.data()[((n * M + m) * OH + oh) * OW + ow] = static_cast<float>(sum);
        }
  return y;
}

} // namespace

TEST_CASE("Conv with padding and stride, no bias") {
  // Padded 5x5 input, 2x2 ones kernel, stride 2: each output sums the real
  // elements its window covers.
  const Tensor y = runOp("Conv", convAttrs({2, 2}, {1, 1, 1, 1}, {1, 1}, 1),
                         {iota({1, 1, 3, 3}, 1), Tensor({1, 1, 2, 2}, {1, 1, 1, 1})}, {1, 1, 2, 2});
  requireTensor(y, {1, 1, 2, 2}, {1, 2 + 3, 4 + 7, 5 + 6 + 8 + 9});
}

TEST_CASE("Conv with asymmetric padding") {
  // pads = (top 0, left 1, bottom 1, right 0).
  const Tensor y = runOp("Conv", convAttrs({1, 1}, {0, 1, 1, 0}, {1, 1}, 1),
                         {iota({1, 1, 2, 2}, 1), Tensor({1, 1, 2, 2}, {1, 1, 1, 1})}, {1, 1, 2, 2});
  requireTensor(y, {1, 1, 2, 2}, {1 + 3, 1 + 2 + 3 + 4, 3, 3 + 4});
}

TEST_CASE("Conv with groups and bias") {
  // Depthwise: channel 0 * 2 + 0.5, channel 1 * -1 + 1.
  const Tensor y = runOp("Conv", convAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 2),
                         {iota({1, 2, 2, 2}, 1), Tensor({2, 1, 1, 1}, {2, -1}), Tensor({2}, {0.5f, 1})}, {1, 2, 2, 2});
  requireTensor(y, {1, 2, 2, 2}, {2.5f, 4.5f, 6.5f, 8.5f, -4, -5, -6, -7});
}

TEST_CASE("Conv with dilation") {
  // x[r][c] = 4r + c; taps at (0,0),(0,2),(2,0),(2,2) weighted 1,2,3,4 give
  // 40i + 10j + 68.
  const Tensor y = runOp("Conv", convAttrs({1, 1}, {0, 0, 0, 0}, {2, 2}, 1),
                         {iota({1, 1, 4, 4}), Tensor({1, 1, 2, 2}, {1, 2, 3, 4})}, {1, 1, 2, 2});
  requireTensor(y, {1, 1, 2, 2}, {68, 78, 108, 118});
}

TEST_CASE("Conv matches the textbook definition across configurations") {
  struct Case {
    int64_t batch, channels, filters, group, h, w, kh, kw;
    std::vector<int64_t> strides, pads, dilations;
    bool bias;
  };
  const Case cases[] = {
      {2, 3, 4, 1, 7, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {1, 4, 6, 2, 9, 8, 3, 2, {2, 3}, {2, 0, 1, 2}, {1, 2}, false},
      {1, 4, 4, 4, 5, 5, 3, 3, {1, 1}, {1, 1, 1, 1}, {2, 2}, true},
      {3, 2, 2, 1, 6, 7, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, false},
      {1, 1, 2, 1, 4, 4, 5, 5, {1, 1}, {2, 2, 2, 2}, {1, 1}, true},
  };
  for (const Case &c : cases) {
    const json attrs = convAttrs(c.strides, c.pads, c.dilations, c.group);
    const Tensor x = wave({c.batch, c.channels, c.h, c.w}, 1.0f);
    const Tensor w = wave({c.filters, c.channels / c.group, c.kh, c.kw}, 0.7f);
    const Tensor bias = iota({c.filters}, -1.0f);
    const int64_t oh = (c.h + c.pads[0] + c.pads[2] - (c.dilations[0] * (c.kh - 1) + 1)) / c.strides[0] + 1;
    const int64_t ow = (c.w + c.pads[1] + c.pads[3] - (c.dilations[1] * (c.kw - 1) + 1)) / c.strides[1] + 1;
    const Shape shape{c.batch, c.filters, oh, ow};
    std::vector<Tensor> operands{x, w};
    if (c.bias)
      operands.push_back(bias);
    const Tensor expected = naiveConv(x, w, c.bias ? &bias : nullptr, attrs, shape);
    requireTensor(runOp("Conv", attrs, operands, shape), shape, expected.values(), 1e-5f);
  }
}

TEST_CASE("Conv rejects inconsistent shapes and attributes") {
  const Tensor x = iota({1, 2, 4, 4});
  const Tensor w = iota({2, 2, 3, 3});
  using Catch::Contains;
  CHECK_THROWS_WITH(runOp("Conv", convAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 1), {x, w}, {1, 2, 4, 4}),
                    Contains("kernel 'test_kernel' op Conv 'test_op': the plan records "
                             "result shape [1, 2, 4, 4], but the operands give [1, 2, 2, 2]"));
  CHECK_THROWS_WITH(runOp("Conv", convAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 2), {x, w}, {1, 2, 2, 2}),
                    Contains("weight shape [2, 2, 3, 3] needs 4 input channels"));
  CHECK_THROWS_WITH(runOp("Conv", convAttrs({1, 1}, {0, 0}, {1, 1}, 1), {x, w}, {1, 2, 2, 2}),
                    Contains("attribute 'pads' must have 4 entries, not 2"));
  CHECK_THROWS_WITH(runOp("Conv", {{"strides", {1, 1}}}, {x, w}, {1, 2, 2, 2}), Contains("missing attribute 'group'"));
  CHECK_THROWS_WITH(runOp("Conv", convAttrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 1), {x, w, Tensor({3})}, {1, 2, 2, 2}),
                    Contains("bias shape [3] must be [2]"));
}
