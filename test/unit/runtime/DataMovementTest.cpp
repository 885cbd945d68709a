//===- DataMovementTest.cpp - Pad, Transpose, Concat, Reshape, Slice, ... ---===//

#include "TestSupport.h"

#include <cmath>
#include <limits>

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;
using test::runTypedOp;
using test::Typed;
using test::typedBools;
using test::typedFloats;
using test::typedInts;

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

TEST_CASE("Slice takes strided windows, backwards too") {
  // x = [[0 1 2 3], [4 5 6 7], [8 9 10 11]]: rows 1.., columns 3 down to 0 by -2.
  const json backwards = {{"starts", {1, 3}}, {"ends", {3, -1}}, {"steps", {1, -2}}};
  requireTensor(runOp("Slice", backwards, {iota({3, 4})}, {2, 2}), {2, 2}, {7, 5, 11, 9});
  const json window = {{"starts", {0, 1}}, {"ends", {3, 3}}, {"steps", {2, 1}}};
  requireTensor(runOp("Slice", window, {iota({3, 4})}, {2, 2}), {2, 2}, {1, 2, 9, 10});
  // The batch axis slices whole at any batch.
  const json wholeBatch = {{"starts", {0, 2}}, {"ends", {INT64_MAX, 4}}, {"steps", {1, 1}}};
  requireTensor(runOp("Slice", wholeBatch, {iota({3, 4})}, {3, 2}), {3, 2}, {2, 3, 6, 7, 10, 11});
  // Bounds outside the axis are a plan error, never a read outside it.
  CHECK_THROWS_WITH(runOp("Slice", {{"starts", {0, 2}}, {"ends", {3, 5}}, {"steps", {1, 1}}}, {iota({3, 4})}, {3, 3}),
                    Catch::Contains("start 2 and end 5 with step 1 are not normalised for an axis of 4"));
  CHECK_THROWS_WITH(runOp("Slice", {{"starts", {0}}, {"ends", {2}}, {"steps", {0}}}, {iota({2})}, {2}),
                    Catch::Contains("'steps' entries must not be 0"));
}

TEST_CASE("Gather looks up rows by int64 and int32 indices, negative ones from the end") {
  // An embedding table [4, 2] and token ids [2, 2].
  const Typed table = typedFloats({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  const Typed ids = typedInts({2, 2}, {3, 0, -1, 1});
  CHECK(runTypedOp("Gather", {{"axis", 0}}, {table, ids}, {2, 2, 2}, ElementType::F32).floats ==
        std::vector<float>{30, 31, 0, 1, 30, 31, 10, 11});
  // x[:, 1] of a [2, 3] i64 tensor with an int32 scalar index.
  const Typed matrix = typedInts({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(runTypedOp("Gather", {{"axis", 1}}, {matrix, typedInts({}, {1}, ElementType::I32)}, {2}, ElementType::I64)
            .integers == std::vector<int64_t>{2, 5});
  CHECK_THROWS_WITH(runTypedOp("Gather", {{"axis", 0}}, {table, typedInts({1}, {4})}, {1, 2}, ElementType::F32),
                    Catch::Contains("index 4 (element 0 of the indices) is out of range for an axis of 4"));
  CHECK_THROWS_WITH(runTypedOp("Gather", {{"axis", 0}}, {table, typedFloats({1}, {0})}, {1, 2}, ElementType::F32),
                    Catch::Contains("indices are f32, not i64 or i32"));
}

TEST_CASE("GatherElements picks one entry of the axis per index, with shorter indices and negative ones") {
  // torch.gather(x, 1, index) of a [2, 3] tensor with [2, 2] indices.
  const Typed x = typedFloats({2, 3}, {0, 1, 2, 10, 11, 12});
  CHECK(runTypedOp("GatherElements", {{"axis", 1}}, {x, typedInts({2, 2}, {2, 0, -1, 1})}, {2, 2}, ElementType::F32)
            .floats == std::vector<float>{2, 0, 12, 11});
  // Along axis 0, with int32 indices on an i64 tensor.
  const Typed matrix = typedInts({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(runTypedOp("GatherElements", {{"axis", 0}}, {matrix, typedInts({1, 3}, {1, 0, 1}, ElementType::I32)}, {1, 3},
                   ElementType::I64)
            .integers == std::vector<int64_t>{4, 2, 6});
  CHECK_THROWS_WITH(runTypedOp("GatherElements", {{"axis", 1}}, {x, typedInts({1, 1}, {3})}, {1, 1}, ElementType::F32),
                    Catch::Contains("index 3 (element 0 of the indices) is out of range for an axis of 3"));
  CHECK_THROWS_WITH(
      runTypedOp("GatherElements", {{"axis", 1}}, {x, typedInts({3, 1}, {0, 0, 0})}, {3, 1}, ElementType::F32),
      Catch::Contains("indices [3, 1] are longer than the input [2, 3] along axis 0"));
}

TEST_CASE("Trilu keeps a triangle of every matrix, offset by k, on floats and integers") {
  const Typed x = typedFloats({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  CHECK(runTypedOp("Trilu", {{"upper", 1}, {"k", 0}}, {x}, {2, 2, 3}, ElementType::F32).floats ==
        std::vector<float>{1, 2, 3, 0, 5, 6, 7, 8, 9, 0, 11, 12});
  CHECK(runTypedOp("Trilu", {{"upper", 0}, {"k", -1}}, {x}, {2, 2, 3}, ElementType::F32).floats ==
        std::vector<float>{0, 0, 0, 4, 0, 0, 0, 0, 0, 10, 0, 0});
  const Typed ids = typedInts({2, 2}, {1, 2, 3, 4});
  CHECK(runTypedOp("Trilu", {{"upper", 1}, {"k", 1}}, {ids}, {2, 2}, ElementType::I64).integers ==
        std::vector<int64_t>{0, 2, 0, 0});
}

TEST_CASE("Expand broadcasts with numpy rules, keeping a dimension where the shape says 1") {
  requireTensor(runOp("Expand", {{"shape", {2, 1, 3}}}, {Tensor({2, 1}, {1, 2})}, {2, 2, 3}), {2, 2, 3},
                {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  CHECK_THROWS_WITH(runOp("Expand", {{"shape", {3}}}, {Tensor({2}, {1, 2})}, {3}),
                    Catch::Contains("cannot expand [2] to [3]"));
  // -1 is the batch size: the plan's result shape (here 3) says which.
  requireTensor(runOp("Expand", {{"shape", {-1, 2}}}, {Tensor({1, 2}, {5, 6})}, {3, 2}), {3, 2}, {5, 6, 5, 6, 5, 6});
}

TEST_CASE("data movement moves integers and bools as they are") {
  // A bool attention mask [1, 3] reshaped, unsqueezed, expanded and sliced.
  const Typed mask = typedBools({1, 3}, {1, 0, 1});
  CHECK(runTypedOp("Reshape", json::object(), {mask}, {1, 1, 3}, ElementType::I1).integers ==
        std::vector<int64_t>{1, 0, 1});
  CHECK(runTypedOp("Expand", {{"shape", {2, 3}}}, {mask}, {2, 3}, ElementType::I1).integers ==
        std::vector<int64_t>{1, 0, 1, 1, 0, 1});
  CHECK(runTypedOp("Transpose", {{"perm", {1, 0}}}, {mask}, {3, 1}, ElementType::I1).integers ==
        std::vector<int64_t>{1, 0, 1});
  CHECK(runTypedOp("Slice", {{"starts", {0, 1}}, {"ends", {1, 3}}, {"steps", {1, 1}}}, {mask}, {1, 2}, ElementType::I1)
            .integers == std::vector<int64_t>{0, 1});
  const Typed big = typedInts({1}, {(int64_t(1) << 53) + 1});
  CHECK(runTypedOp("Concat", {{"axis", 0}}, {big, big}, {2}, ElementType::I64).integers ==
        std::vector<int64_t>{(int64_t(1) << 53) + 1, (int64_t(1) << 53) + 1});
  CHECK(runTypedOp("Identity", json::object(), {big}, {1}, ElementType::I64).integers == big.integers);
  CHECK_THROWS_WITH(runTypedOp("Concat", {{"axis", 0}}, {big, typedFloats({1}, {1})}, {2}, ElementType::I64),
                    Catch::Contains("operand 1 is f32, the result i64: the op moves elements without converting them"));
  // Pad fills with a float value, so it stays float-only.
  CHECK_THROWS_WITH(runTypedOp("Pad", padAttrs("constant", {1, 1}), {big}, {3}, ElementType::I64),
                    Catch::Contains("the op takes only float values"));
}

TEST_CASE("linear Resize sums every tap, so an infinite neighbour with weight 0 gives NaN as in ONNX's reference") {
  // Asymmetric coordinates, x2: output o reads input o/2 and its right
  // neighbour (clamped), with weights 1 - frac and frac.
  const json linear = {{"sizes", {-1, 4}},
                       {"scales", {1.0, 2.0}},
                       {"mode", "linear"},
                       {"coordinate_transformation_mode", "asymmetric"},
                       {"nearest_mode", "round_prefer_floor"}};
  requireTensor(runOp("Resize", linear, {Tensor({1, 2}, {1, 3})}, {1, 4}), {1, 4}, {1, 2, 3, 3});
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y = runOp("Resize", linear, {Tensor({1, 2}, {1, inf})}, {1, 4}).values();
  REQUIRE(y.size() == 4);
  CHECK(std::isnan(y[0])); // 1 * 1 + 0 * inf
  CHECK(y[1] == inf);
  CHECK(y[3] == inf);
}
