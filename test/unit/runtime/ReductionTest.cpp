//===- ReductionTest.cpp - ReduceMean, ReduceSum, ReduceMax, ... ------------===//

#include "TestSupport.h"

#include <cmath>

using namespace fusec;
using namespace fusec::runtime;
using test::iota;
using test::requireTensor;
using test::runOp;

TEST_CASE("ReduceMean over chosen axes, with and without keepdims") {
  const Tensor x = iota({2, 3}, 1);
  requireTensor(runOp("ReduceMean", {{"axes", {1}}, {"keepdims", 1}}, {x}, {2, 1}), {2, 1}, {2, 5});
  requireTensor(runOp("ReduceMean", {{"axes", {0}}, {"keepdims", 0}}, {x}, {3}), {3}, {2.5f, 3.5f, 4.5f});
  // Empty axes reduce everything.
  requireTensor(runOp("ReduceMean", {{"axes", nlohmann::json::array()}, {"keepdims", 0}}, {x}, {}), {}, {3.5f});
  // Non-adjacent axes of [2, 2, 2].
  requireTensor(runOp("ReduceMean", {{"axes", {0, 2}}, {"keepdims", 1}}, {iota({2, 2, 2})}, {1, 2, 1}), {1, 2, 1},
                {2.5f, 4.5f});
  CHECK_THROWS_WITH(runOp("ReduceMean", {{"axes", {1, 0}}, {"keepdims", 1}}, {x}, {1, 1}),
                    Catch::Contains("axes must be sorted, unique and in [0, 2)"));
}

TEST_CASE("every Reduce op over one axis, and NaN through Max and Min") {
  // x = [[1, -2, 3], [4, 5, -6]] reduced along axis 1.
  const Tensor x({2, 3}, {1, -2, 3, 4, 5, -6});
  const nlohmann::json rows = {{"axes", {1}}, {"keepdims", 0}};
  requireTensor(runOp("ReduceSum", rows, {x}, {2}), {2}, {2, 3});
  requireTensor(runOp("ReduceMax", rows, {x}, {2}), {2}, {3, 5});
  requireTensor(runOp("ReduceMin", rows, {x}, {2}), {2}, {-2, -6});
  requireTensor(runOp("ReduceProd", rows, {x}, {2}), {2}, {-6, -120});
  requireTensor(runOp("ReduceSumSquare", rows, {x}, {2}), {2}, {14, 77});
  requireTensor(runOp("ReduceL1", rows, {x}, {2}), {2}, {6, 15});
  requireTensor(runOp("ReduceL2", rows, {x}, {2}), {2}, {std::sqrt(14.0f), std::sqrt(77.0f)});
  requireTensor(runOp("ReduceLogSum", rows, {Tensor({2, 2}, {1, 2, 3, 4})}, {2}), {2}, {std::log(3.0f), std::log(7.0f)},
                1e-6f);
  // numpy's max and min (ONNX's reference) propagate NaN; fmax would drop it.
  const Tensor withNan({1, 3}, {1, NAN, 3});
  CHECK(std::isnan(runOp("ReduceMax", rows, {withNan}, {1}).values()[0]));
  CHECK(std::isnan(runOp("ReduceMin", rows, {withNan}, {1}).values()[0]));
}

TEST_CASE("ArgMax and ArgMin: first or last index on ties, NaN chosen first, keepdims") {
  using test::runTypedOp;
  using test::typedFloats;
  const float nan = std::nanf("");
  // Rows of [2, 4]: ties at 3 and at 1, a NaN in the second row.
  const auto x = typedFloats({2, 4}, {1, 3, 3, 0, 1, nan, 1, nan});
  auto run = [&](const char *op, int64_t axis, int64_t keepdims, int64_t last, const Shape &shape) {
    return runTypedOp(op, {{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}}, {x}, shape,
                      ElementType::I64)
        .integers;
  };
  CHECK(run("ArgMax", 1, 0, 0, {2}) == std::vector<int64_t>{1, 1});
  CHECK(run("ArgMax", 1, 1, 1, {2, 1}) == std::vector<int64_t>{2, 3});
  CHECK(run("ArgMin", 1, 0, 0, {2}) == std::vector<int64_t>{3, 1});
  CHECK(run("ArgMin", 1, 0, 1, {2}) == std::vector<int64_t>{3, 3});
  // Down the columns: 1 vs 1 ties, NaN beats 3.
  CHECK(run("ArgMax", 0, 1, 0, {1, 4}) == std::vector<int64_t>{0, 1, 0, 1});
  CHECK(run("ArgMax", 0, 0, 1, {4}) == std::vector<int64_t>{1, 1, 0, 1});
  CHECK_THROWS_WITH(run("ArgMax", 2, 0, 0, {2}), Catch::Contains("axis 2 is out of range for rank 2"));
}
