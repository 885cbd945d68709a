//===- QuantizeTest.cpp - QuantizeLinear and DequantizeLinear ---------------===//
//
// The CPU reference of fuse.quantize_linear and fuse.dequantize_linear
// against ONNX's definitions written out per element: rounding ties to
// even, saturation at each type's range, NaN, and per-axis parameters
// broadcast along their axis.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include <cmath>
#include <limits>

using namespace fusec;
using namespace fusec::runtime;

namespace {

using test::Typed;

Typed floats(Shape shape, std::vector<float> values) { return test::typedFloats(std::move(shape), std::move(values)); }
Typed quantized(Shape shape, std::vector<int64_t> values, ElementType type) {
  return test::typedInts(std::move(shape), std::move(values), type);
}

Typed run(const std::string &op, const std::vector<Typed> &operands, Shape shape, ElementType type) {
  return test::runTypedOp(op, nlohmann::json::object(), operands, shape, type);
}

/// ONNX's QuantizeLinear for one element, in double where that is exact.
int64_t quantizeScalar(float x, float scale, int64_t zeroPoint, int64_t low, int64_t high) {
  const float quotient = x / scale;
  if (std::isnan(quotient))
    return zeroPoint;
  const double rounded = std::nearbyint(static_cast<double>(quotient)) + static_cast<double>(zeroPoint);
  return static_cast<int64_t>(std::min(std::max(rounded, double(low)), double(high)));
}

} // namespace

TEST_CASE("QuantizeLinear rounds ties to even, adds the zero point and saturates, per tensor") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0.0f, 0.25f, 0.75f, 1.25f, -0.25f, -0.75f, 100.0f, -100.0f, inf, -inf, nan, 0.3f};
  const Typed input = floats({12}, x);
  for (ElementType type : {ElementType::I8, ElementType::U8}) {
    const int64_t zero = type == ElementType::I8 ? -3 : 128;
    const int64_t low = type == ElementType::I8 ? -128 : 0, high = type == ElementType::I8 ? 127 : 255;
    const Typed y = run("QuantizeLinear", {input, floats({}, {0.5f}), quantized({}, {zero}, type)}, {12}, type);
    std::vector<int64_t> expected;
    for (float value : x)
      expected.push_back(quantizeScalar(value, 0.5f, zero, low, high));
    INFO(elementTypeName(type));
    CHECK(y.integers == expected);
    // The rules spelled out: 0.25 / 0.5 = 0.5 rounds to 0, 0.75 / 0.5 = 1.5
    // to 2, 1.25 / 0.5 = 2.5 to 2; -0.5 to -0, -1.5 to -2; NaN is the zero
    // point; 200 and -200 saturate.
    CHECK(y.integers[1] == zero);
    CHECK(y.integers[2] == zero + 2);
    CHECK(y.integers[3] == zero + 2);
    CHECK(y.integers[4] == zero);
    CHECK(y.integers[5] == std::max(low, zero - 2));
    CHECK(y.integers[6] == high);
    CHECK(y.integers[7] == low);
    CHECK(y.integers[10] == zero);
  }
}

TEST_CASE("DequantizeLinear subtracts the zero point and scales, with per-axis parameters along their axis") {
  // [2, 3, 2] dequantized along axis 1: the scale and zero point [1, 3, 1].
  const std::vector<int64_t> q = {-128, 127, 0, 1, -1, 5, 10, -10, 64, -64, 127, -128};
  const std::vector<float> scales = {0.5f, 0.1f, 2.0f};
  const std::vector<int64_t> zeros = {0, -5, 7};
  const Typed y = run("DequantizeLinear",
                      {quantized({2, 3, 2}, q, ElementType::I8), floats({1, 3, 1}, scales),
                       quantized({1, 3, 1}, zeros, ElementType::I8)},
                      {2, 3, 2}, ElementType::F32);
  for (size_t i = 0; i < q.size(); ++i) {
    const size_t channel = (i / 2) % 3;
    INFO("element " << i);
    CHECK(y.floats[i] == static_cast<float>(q[i] - zeros[channel]) * scales[channel]);
  }
  // u8 through a per-tensor scale.
  const Typed u =
      run("DequantizeLinear",
          {quantized({3}, {0, 128, 255}, ElementType::U8), floats({}, {0.25f}), quantized({}, {128}, ElementType::U8)},
          {3}, ElementType::F32);
  CHECK(u.floats == std::vector<float>{-32.0f, 0.0f, 31.75f});
}

TEST_CASE("QuantizeLinear then DequantizeLinear snaps values to the scale's grid, per axis") {
  const Typed x = floats({2, 2}, {0.26f, -0.74f, 3.0f, 1000.0f});
  const Typed scale = floats({2, 1}, {0.5f, 0.1f});
  const Typed zero = quantized({2, 1}, {0, 0}, ElementType::I8);
  const Typed q = run("QuantizeLinear", {x, scale, zero}, {2, 2}, ElementType::I8);
  CHECK(q.integers == std::vector<int64_t>{1, -1, 30, 127});
  const Typed y = run("DequantizeLinear", {q, scale, zero}, {2, 2}, ElementType::F32);
  CHECK(y.floats == std::vector<float>{0.5f, -0.5f, 30 * 0.1f, 127 * 0.1f});
}

TEST_CASE("QuantizeLinear and DequantizeLinear refuse mismatched types and shapes") {
  const Typed x = floats({2}, {1, 2});
  CHECK_THROWS_WITH(
      run("QuantizeLinear", {x, floats({}, {1}), quantized({}, {0}, ElementType::U8)}, {2}, ElementType::I8),
      Catch::Contains("the zero point is u8, not i8"));
  CHECK_THROWS_WITH(
      run("QuantizeLinear", {x, floats({2}, {1, 1}), quantized({}, {0}, ElementType::I8)}, {2}, ElementType::I8),
      Catch::Contains("differ in shape"));
  CHECK_THROWS_WITH(run("DequantizeLinear",
                        {quantized({2}, {1, 2}, ElementType::I8), floats({}, {1}), quantized({}, {0}, ElementType::I8)},
                        {2}, ElementType::F16),
                    Catch::Contains("the result is f16, not f32"));
}
