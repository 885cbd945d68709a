//===- DataMovementTest.cpp - Pad, Transpose, Concat, Reshape, Flatten ------===//

#include "TestSupport.h"

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

json padAttrs(const std::string &mode, std::vector<int64_t> pads) {
  return {{"mode", mode}, {"pads", pads}, {"value", 9.0}};
}

} // namespace

TEST_CASE("Pad in constant, edge and reflect modes") {
  // [[1, 2], [3, 4]] with 0 rows before, 1 after; 2 columns before, 1 after.
  const Tensor x({2, 2}, {1, 2, 3, 4});
  const std::vector<int64_t> pads = {0, 2, 1, 1};
  requireTensor(runOp("Pad", padAttrs("constant", pads), {x}, {3, 5}), {3, 5},
                {9, 9, 1, 2, 9, 9, 9, 3, 4, 9, 9, 9, 9, 9, 9});
  requireTensor(runOp("Pad", padAttrs("edge", pads), {x}, {3, 5}), {3, 5},
                {1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 3, 3, 3, 4, 4});
  // Reflect pads must be smaller than their dimension (the dialect's rule).
  requireTensor(runOp("Pad", padAttrs("reflect", {0, 1, 1, 1}), {x}, {3, 4}), {3, 4},
                {2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1});
  CHECK_THROWS_WITH(runOp("Pad", padAttrs("reflect", pads), {x}, {3, 5}),
                    Catch::Contains("axis 1: reflect pads must be smaller than the dimension (2), got 2 and 1"));
  // numpy.pad([1, 2, 3, 4], 2, 'reflect')
  requireTensor(runOp("Pad", padAttrs("reflect", {2, 2}), {Tensor({4}, {1, 2, 3, 4})}, {8}), {8},
                {3, 2, 1, 2, 3, 4, 3, 2});
  // fusec never crops with Pad, so neither does the runtime.
  CHECK_THROWS_WITH(runOp("Pad", padAttrs("constant", {-1, 1}), {Tensor({3}, {1, 2, 3})}, {3}),
                    Catch::Contains("negative pads (cropping) are not supported, got -1 and 1"));
  CHECK_THROWS_WITH(runOp("Pad", padAttrs("wrap", {1, 1}), {Tensor({2})}, {4}),
                    Catch::Contains("'mode' must be \"constant\", \"reflect\" "
                                    "or \"edge\", got \"wrap\""));
  // The result shape is checked before any index table is built from it.
  CHECK_THROWS_WITH(runOp("Pad", padAttrs("constant", {0, int64_t(1) << 31}), {Tensor({2})}, {4}),
                    Catch::Contains("the plan records result shape [4], but the operands give [2147483650]"));
  CHECK_THROWS_WITH(runOp("Pad", padAttrs("constant", {0, INT64_MAX}), {Tensor({2})}, {4}),
                    Catch::Contains("implausibly large"));
}

TEST_CASE("Transpose permutes dimensions") {
  requireTensor(runOp("Transpose", {{"perm", {1, 0}}}, {iota({2, 3}, 1)}, {3, 2}), {3, 2}, {1, 4, 2, 5, 3, 6});
  // x[i][j][k] = 12i + 4j + k; y[k][i][j] = x[i][j][k].
  const Tensor y = runOp("Transpose", {{"perm", {2, 0, 1}}}, {iota({2, 3, 4})}, {4, 2, 3});
  REQUIRE(y.shape() == Shape{4, 2, 3});
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        CHECK(y.values()[(k * 2 + i) * 3 + j] == 12 * i + 4 * j + k);
  CHECK_THROWS_WITH(runOp("Transpose", {{"perm", {0, 0}}}, {iota({2, 3})}, {2, 3}),
                    Catch::Contains("perm must be a permutation"));
}

TEST_CASE("Concat along an inner and the outer axis") {
  requireTensor(runOp("Concat", {{"axis", 1}}, {Tensor({2, 1}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6})}, {2, 3}), {2, 3},
                {1, 3, 4, 2, 5, 6});
  requireTensor(runOp("Concat", {{"axis", 0}},
                      {Tensor({1, 2}, {1, 2}), Tensor({2, 2}, {3, 4, 5, 6}), Tensor({1, 2}, {7, 8})}, {4, 2}),
                {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK_THROWS_WITH(runOp("Concat", {{"axis", 1}}, {Tensor({2, 1}), Tensor({3, 1})}, {2, 2}),
                    Catch::Contains("operand 1 shape [3, 1] does not match "
                                    "[2, 1] outside axis 1"));
}

TEST_CASE("Reshape and Flatten copy the data into the recorded shape") {
  requireTensor(runOp("Reshape", json::object(), {iota({2, 3})}, {3, 2}), {3, 2}, {0, 1, 2, 3, 4, 5});
  requireTensor(runOp("Flatten", json::object(), {iota({2, 1, 2})}, {2, 2}), {2, 2}, {0, 1, 2, 3});
  CHECK_THROWS_WITH(runOp("Reshape", json::object(), {iota({2, 3})}, {4, 2}),
                    Catch::Contains("result shape [4, 2] does not hold the 6 elements"));
}
