//===- ReductionTest.cpp - ReduceMean ---------------------------------------===//

#include "TestSupport.h"

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
