//===- PoolingTest.cpp - MaxPool, AveragePool, GlobalAveragePool ------------===//

#include "TestSupport.h"

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

json poolAttrs(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads, int64_t ceilMode) {
  return {{"kernel_shape", kernel}, {"strides", strides}, {"pads", pads}, {"ceil_mode", ceilMode}};
}

} // namespace

TEST_CASE("MaxPool pads with -inf, not zero") {
  // All inputs are negative; zero padding would put 0 on every border.
  json attrs = poolAttrs({2, 2}, {1, 1}, {1, 1, 1, 1}, 0);
  attrs["dilations"] = {1, 1};
  const Tensor y = runOp("MaxPool", attrs, {Tensor({1, 1, 2, 2}, {-1, -2, -3, -4})}, {1, 1, 3, 3});
  requireTensor(y, {1, 1, 3, 3}, {-1, -1, -2, -1, -1, -2, -3, -3, -4});
}

TEST_CASE("MaxPool with ceil_mode adds partial windows") {
  json attrs = poolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, 1);
  attrs["dilations"] = {1, 1};
  const Tensor x = iota({1, 1, 5, 5});
  requireTensor(runOp("MaxPool", attrs, {x}, {1, 1, 3, 3}), {1, 1, 3, 3}, {6, 8, 9, 16, 18, 19, 21, 23, 24});
  attrs["ceil_mode"] = 0;
  requireTensor(runOp("MaxPool", attrs, {x}, {1, 1, 2, 2}), {1, 1, 2, 2}, {6, 8, 16, 18});
}

TEST_CASE("ceil_mode drops a last window that would start in the end padding") {
  // Width 5, pads 1/1, kernel 2, stride 3: windows start at -1, 2 and 5; the
  // one at 5 lies entirely in the padding, so there are 2 outputs, not 3.
  json attrs = poolAttrs({1, 2}, {1, 3}, {0, 1, 0, 1}, 1);
  attrs["dilations"] = {1, 1};
  requireTensor(runOp("MaxPool", attrs, {iota({1, 1, 1, 5}, 1)}, {1, 1, 1, 2}), {1, 1, 1, 2}, {1, 4});
}

TEST_CASE("MaxPool with dilation skips the taps in between") {
  json attrs = poolAttrs({2, 2}, {1, 1}, {0, 0, 0, 0}, 0);
  attrs["dilations"] = {2, 2};
  // Taps (0,0),(0,2),(2,0),(2,2); the 9 in the middle is not among them.
  const Tensor y = runOp("MaxPool", attrs, {Tensor({1, 1, 3, 3}, {5, 1, -3, 1, 9, 1, -7, 1, 2})}, {1, 1, 1, 1});
  requireTensor(y, {1, 1, 1, 1}, {5});
}

TEST_CASE("AveragePool with and without count_include_pad") {
  const Tensor x({1, 1, 2, 2}, {1, 2, 3, 4});
  json attrs = poolAttrs({2, 2}, {1, 1}, {1, 1, 1, 1}, 0);
  attrs["count_include_pad"] = 0;
  requireTensor(runOp("AveragePool", attrs, {x}, {1, 1, 3, 3}), {1, 1, 3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
  attrs["count_include_pad"] = 1;
  requireTensor(runOp("AveragePool", attrs, {x}, {1, 1, 3, 3}), {1, 1, 3, 3},
                {0.25f, 0.75f, 0.5f, 1, 2.5f, 1.5f, 0.75f, 1.75f, 1});
}

TEST_CASE("AveragePool with ceil_mode never counts beyond the padding") {
  // As in PyTorch: the partial windows of ceil_mode divide by their clipped
  // size even with count_include_pad.
  json attrs = poolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, 1);
  attrs["count_include_pad"] = 1;
  requireTensor(runOp("AveragePool", attrs, {iota({1, 1, 3, 3}, 1)}, {1, 1, 2, 2}), {1, 1, 2, 2}, {3, 4.5f, 7.5f, 9});
}

TEST_CASE("GlobalAveragePool averages each channel") {
  requireTensor(runOp("GlobalAveragePool", json::object(), {iota({2, 2, 2, 2}, 1)}, {2, 2, 1, 1}), {2, 2, 1, 1},
                {2.5f, 6.5f, 10.5f, 14.5f});
}

TEST_CASE("hostile window attributes are errors, not overflows") {
  const Tensor x = iota({1, 1, 4, 4});
  json attrs = poolAttrs({3, 3}, {1, 1}, {0, 0, 0, 0}, 0);
  attrs["dilations"] = {int64_t(1) << 62, 1};
  CHECK_THROWS_WITH(runOp("MaxPool", attrs, {x}, {1, 1, 1, 2}),
                    Catch::Contains("op MaxPool 'test_op': spatial dimension 0: window of size 3 (dilation "
                                    "4611686018427387904, pads 0+0) overflows the size arithmetic"));
  attrs = poolAttrs({2, 2}, {1, 1}, {INT64_MAX, 0, INT64_MAX, 0}, 0);
  attrs["dilations"] = {1, 1};
  CHECK_THROWS_WITH(runOp("MaxPool", attrs, {x}, {1, 1, 3, 3}), Catch::Contains("overflows the size arithmetic"));
  attrs = poolAttrs({2, 2}, {1, 1}, {0, 0, 0, 0}, -1);
  attrs["dilations"] = {1, 1};
  CHECK_THROWS_WITH(runOp("MaxPool", attrs, {x}, {1, 1, 3, 3}), Catch::Contains("'ceil_mode' must be 0 or 1, got -1"));
  attrs = poolAttrs({2, 2}, {1, 1}, {0, 0, 0, 0}, 0);
  attrs["count_include_pad"] = 3;
  CHECK_THROWS_WITH(runOp("AveragePool", attrs, {x}, {1, 1, 3, 3}),
                    Catch::Contains("'count_include_pad' must be 0 or 1, got 3"));
}
