//===- LogicalTest.cpp - Comparisons, boolean logic and Where ---------------===//

#include "TestSupport.h"

#include <cmath>

using namespace fusec;
using namespace fusec::runtime;

namespace {

using test::Typed;

Typed floats(Shape shape, std::vector<float> values) { return test::typedFloats(std::move(shape), std::move(values)); }
Typed ints(Shape shape, std::vector<int64_t> values) { return test::typedInts(std::move(shape), std::move(values)); }
Typed bools(Shape shape, std::vector<int64_t> values) { return test::typedBools(std::move(shape), std::move(values)); }

Typed run(const std::string &op, const std::vector<Typed> &operands, Shape shape, ElementType type) {
  return test::runTypedOp(op, nlohmann::json::object(), operands, shape, type);
}

} // namespace

TEST_CASE("comparisons give i1 for float and integer operands, with broadcasting") {
  const Typed x = floats({2, 2}, {1, 2, NAN, -1});
  const Typed one = floats({1}, {1});
  CHECK(run("Equal", {x, one}, {2, 2}, ElementType::I1).integers == std::vector<int64_t>{1, 0, 0, 0});
  CHECK(run("Less", {x, one}, {2, 2}, ElementType::I1).integers == std::vector<int64_t>{0, 0, 0, 1});
  CHECK(run("LessOrEqual", {x, one}, {2, 2}, ElementType::I1).integers == std::vector<int64_t>{1, 0, 0, 1});
  CHECK(run("Greater", {x, one}, {2, 2}, ElementType::I1).integers == std::vector<int64_t>{0, 1, 0, 0});
  CHECK(run("GreaterOrEqual", {x, one}, {2, 2}, ElementType::I1).integers == std::vector<int64_t>{1, 1, 0, 0});
  // Token ids compared exactly as int64 (2^53 + 1 is not a float).
  const int64_t big = (int64_t(1) << 53) + 1;
  const Typed ids = ints({1, 3}, {0, big, 5});
  const Typed column = ints({2, 1}, {0, big - 1});
  CHECK(run("Equal", {ids, column}, {2, 3}, ElementType::I1).integers == std::vector<int64_t>{1, 0, 0, 0, 0, 0});
  CHECK(run("Greater", {ids, column}, {2, 3}, ElementType::I1).integers == std::vector<int64_t>{0, 1, 1, 0, 1, 0});
}

TEST_CASE("Not, And, Or and Xor on i1") {
  const Typed a = bools({4}, {0, 0, 1, 1});
  const Typed b = bools({4}, {0, 1, 0, 1});
  CHECK(run("And", {a, b}, {4}, ElementType::I1).integers == std::vector<int64_t>{0, 0, 0, 1});
  CHECK(run("Or", {a, b}, {4}, ElementType::I1).integers == std::vector<int64_t>{0, 1, 1, 1});
  CHECK(run("Xor", {a, b}, {4}, ElementType::I1).integers == std::vector<int64_t>{0, 1, 1, 0});
  CHECK(run("Not", {a}, {4}, ElementType::I1).integers == std::vector<int64_t>{1, 1, 0, 0});
  CHECK_THROWS_WITH(run("And", {a, ints({4}, {0, 1, 0, 1})}, {4}, ElementType::I1),
                    Catch::Contains("op And 'test_op': operand 1 is i64, not i1"));
}

TEST_CASE("Where selects floats and integers, broadcasting all three operands") {
  // A causal mask: [2, 2] condition over a [2, 1] and a scalar-like [1].
  const Typed causal = bools({2, 2}, {1, 0, 1, 1});
  const Typed scores = floats({2, 1}, {3, 4});
  const Typed minusInf = floats({1}, {-INFINITY});
  Typed masked = run("Where", {causal, scores, minusInf}, {2, 2}, ElementType::F32);
  CHECK(masked.floats[0] == 3);
  CHECK(std::isinf(masked.floats[1]));
  CHECK(masked.floats[2] == 4);
  CHECK(masked.floats[3] == 4);
  CHECK(run("Where", {causal, ints({2}, {10, 20}), ints({1}, {-1})}, {2, 2}, ElementType::I64).integers ==
        std::vector<int64_t>{10, -1, 10, 20});
  CHECK_THROWS_WITH(run("Where", {floats({2}, {1, 0}), scores, scores}, {2, 1}, ElementType::F32),
                    Catch::Contains("the condition is f32, not i1"));
  CHECK_THROWS_WITH(run("Where", {causal, scores, ints({1}, {0})}, {2, 2}, ElementType::F32),
                    Catch::Contains("operand 2 is i64, not f32"));
  CHECK_THROWS_WITH(run("Where", {bools({3}, {1, 0, 1}), floats({2}, {3, 4}), minusInf}, {2, 3}, ElementType::F32),
                    Catch::Contains("operand shapes [3], [2] and [1] do not broadcast"));
}

TEST_CASE("ops that are not typed refuse integer operands") {
  CHECK_THROWS_WITH(run("Relu", {ints({2}, {1, 2})}, {2}, ElementType::F32),
                    Catch::Contains("operand 0 is i64; the op takes only float values"));
}
