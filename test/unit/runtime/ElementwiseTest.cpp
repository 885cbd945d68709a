//===- ElementwiseTest.cpp - Activations and broadcasting binary ops --------===//

#include "TestSupport.h"

#include <cmath>

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

Tensor unary(const std::string &op, std::vector<float> values, json attrs = json::object()) {
  const Shape shape{static_cast<int64_t>(values.size())};
  return runOp(op, attrs, {Tensor(shape, std::move(values))}, shape);
}

} // namespace

TEST_CASE("unary activations") {
  requireTensor(unary("Relu", {-2, -0.0f, 0.5f, 3}), {4}, {0, 0, 0.5f, 3});
  CHECK(std::isnan(unary("Relu", {NAN}).values()[0]));
  requireTensor(unary("Sigmoid", {0, std::log(3.0f), -100}), {3}, {0.5f, 0.75f, 0});
  requireTensor(unary("Tanh", {0, 1, -20}), {3}, {0, 0.7615942f, -1});
  requireTensor(unary("Erf", {0, 0.5f, -3}), {3}, {0, 0.5204999f, -0.9999779f});
  requireTensor(unary("Sqrt", {4, 2, 0}), {3}, {2, 1.4142135f, 0});
  requireTensor(unary("Identity", {1, -2}), {2}, {1, -2});
}

TEST_CASE("Gelu, exact and tanh-approximated") {
  // Reference values from torch.nn.functional.gelu.
  requireTensor(unary("Gelu", {-1, 0, 1, 2}, {{"approximate", "none"}}), {4}, {-0.1586553f, 0, 0.8413447f, 1.9544997f});
  requireTensor(unary("Gelu", {-1, 0, 1, 2}, {{"approximate", "tanh"}}), {4}, {-0.1588080f, 0, 0.8411920f, 1.9545977f});
  CHECK_THROWS_WITH(unary("Gelu", {1}, {{"approximate", "fast"}}), Catch::Contains("'approximate' must be \"none\" or "
                                                                                   "\"tanh\", not \"fast\""));
}

TEST_CASE("Clip with both, one or no bounds") {
  const std::vector<float> x = {-2, -0.5f, 0.5f, 2};
  requireTensor(unary("Clip", x, {{"min", -1}, {"max", 1.0}}), {4}, {-1, -0.5f, 0.5f, 1});
  requireTensor(unary("Clip", x, {{"min", 0}}), {4}, {0, 0, 0.5f, 2});
  // JSON cannot hold infinities; null stands for "unbounded".
  requireTensor(unary("Clip", x, {{"min", nullptr}, {"max", 0.25}}), {4}, {-2, -0.5f, 0.25f, 0.25f});
  requireTensor(unary("Clip", x), {4}, x);
}

TEST_CASE("Add broadcasts a leading bias over a larger operand") {
  // [1, 2, 1, 1] + [1, 2, 2, 2]: the bias is the first operand.
  requireTensor(runOp("Add", json::object(), {Tensor({1, 2, 1, 1}, {10, 20}), iota({1, 2, 2, 2})}, {1, 2, 2, 2}),
                {1, 2, 2, 2}, {10, 11, 12, 13, 24, 25, 26, 27});
  // Both operands broadcast: [2, 1] + [3] -> [2, 3].
  requireTensor(runOp("Add", json::object(), {Tensor({2, 1}, {10, 20}), Tensor({3}, {1, 2, 3})}, {2, 3}), {2, 3},
                {11, 12, 13, 21, 22, 23});
}

TEST_CASE("Sub, Mul, Div and Pow with broadcasting") {
  const Tensor a({2, 2}, {1, 2, 3, 4});
  const Tensor scalar(Shape{}, {2});
  const Tensor row({2}, {1, -1});
  requireTensor(runOp("Sub", json::object(), {a, row}, {2, 2}), {2, 2}, {0, 3, 2, 5});
  requireTensor(runOp("Sub", json::object(), {scalar, a}, {2, 2}), {2, 2}, {1, 0, -1, -2});
  requireTensor(runOp("Mul", json::object(), {a, row}, {2, 2}), {2, 2}, {1, -2, 3, -4});
  requireTensor(runOp("Div", json::object(), {a, scalar}, {2, 2}), {2, 2}, {0.5f, 1, 1.5f, 2});
  requireTensor(runOp("Pow", json::object(), {a, scalar}, {2, 2}), {2, 2}, {1, 4, 9, 16});
  requireTensor(runOp("Pow", json::object(), {scalar, row}, {2}), {2}, {2, 0.5f});
  requireTensor(runOp("Mul", json::object(), {scalar, scalar}, {}), {}, {4});
}

TEST_CASE("binary ops reject shapes that do not broadcast") {
  CHECK_THROWS_WITH(runOp("Add", json::object(), {Tensor({2, 3}), Tensor({2})}, {2, 3}),
                    Catch::Contains("op Add 'test_op': operand shapes [2, 3] and [2] do not "
                                    "broadcast"));
}

TEST_CASE("Neg, Exp, Log, Abs and Reciprocal") {
  requireTensor(unary("Neg", {1, -2, 0}), {3}, {-1, 2, 0});
  requireTensor(unary("Exp", {0, 1, -100}), {3}, {1, 2.7182817f, 0});
  requireTensor(unary("Log", {1, 2.7182817f, 0.5f}), {3}, {0, 1, -0.6931472f});
  CHECK(std::isinf(unary("Log", {0}).values()[0]));
  requireTensor(unary("Abs", {-3, 2, -0.0f}), {3}, {3, 2, 0});
  requireTensor(unary("Reciprocal", {2, -4, 0.5f}), {3}, {0.5f, -0.25f, 2});
}

TEST_CASE("LeakyRelu, HardSigmoid and HardSwish") {
  requireTensor(unary("LeakyRelu", {-10, 0, 3}, {{"alpha", 0.1}}), {3}, {-1, 0, 3});
  // torch.nn.Hardsigmoid exports alpha 1/6, beta 0.5.
  requireTensor(unary("HardSigmoid", {-4, 0, 1.5f, 4}, {{"alpha", 1.0 / 6}, {"beta", 0.5}}), {4}, {0, 0.5f, 0.75f, 1});
  // torch.nn.functional.hardswish: x * relu6(x + 3) / 6.
  requireTensor(unary("HardSwish", {-4, -1, 0, 1, 4}), {5}, {0, -0.3333333f, 0, 0.6666667f, 4});
}

TEST_CASE("Min, Max and Mod with broadcasting") {
  const Tensor a({2, 2}, {1, -5, 7, NAN});
  const Tensor b({2}, {2, -3});
  Tensor min = runOp("Min", json::object(), {a, b}, {2, 2});
  Tensor max = runOp("Max", json::object(), {a, b}, {2, 2});
  CHECK(std::vector<float>(min.values().begin(), min.values().begin() + 3) == std::vector<float>{1, -5, 2});
  CHECK(std::vector<float>(max.values().begin(), max.values().begin() + 3) == std::vector<float>{2, -3, 7});
  // NaN propagates from either side, as in torch.minimum/maximum.
  CHECK(std::isnan(min.values()[3]));
  CHECK(std::isnan(max.values()[3]));
  CHECK(std::isnan(runOp("Min", json::object(), {b, Tensor({1}, {NAN})}, {2}).values()[0]));
  // fmod 1: the dividend's sign (C); fmod 0: the divisor's (Python).
  const Tensor x({4}, {7, -7, 7, -7});
  const Tensor y({4}, {3, 3, -3, -3});
  requireTensor(runOp("Mod", {{"fmod", 1}}, {x, y}, {4}), {4}, {1, -1, 1, -1});
  requireTensor(runOp("Mod", {{"fmod", 0}}, {x, y}, {4}), {4}, {1, 2, -2, -1});
  CHECK_THROWS_WITH(runOp("Mod", {{"fmod", 2}}, {x, y}, {4}), Catch::Contains("'fmod' must be 0 or 1"));
  // A zero remainder has the divisor's sign too without fmod (Mod-28), the
  // dividend's with it.
  const Tensor zeros = runOp("Mod", {{"fmod", 0}}, {Tensor({2}, {-6, 6}), Tensor({2}, {3, -3})}, {2});
  CHECK((zeros.values()[0] == 0 && !std::signbit(zeros.values()[0])));
  CHECK((zeros.values()[1] == 0 && std::signbit(zeros.values()[1])));
  const Tensor cZeros = runOp("Mod", {{"fmod", 1}}, {Tensor({2}, {-6, 6}), Tensor({2}, {3, -3})}, {2});
  CHECK(std::signbit(cZeros.values()[0]));
  CHECK_FALSE(std::signbit(cZeros.values()[1]));
}
