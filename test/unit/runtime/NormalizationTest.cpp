//===- NormalizationTest.cpp - BatchNormalization, LayerNorm, Softmax -------===//

#include "TestSupport.h"

#include <cmath>

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

TEST_CASE("BatchNormalization normalizes each channel with its statistics") {
  // Channel 0: (x - 1) / 2 * 1 + 0; channel 1: (x - 3) / 0.5 * 2 + 1.
  const Tensor y = runOp("BatchNormalization", {{"epsilon", 0.0}},
                         {Tensor({1, 2, 1, 2}, {1, 2, 3, 4}), Tensor({2}, {1, 2}), Tensor({2}, {0, 1}),
                          Tensor({2}, {1, 3}), Tensor({2}, {4, 0.25f})},
                         {1, 2, 1, 2});
  requireTensor(y, {1, 2, 1, 2}, {0, 0.5f, 1, 5});
  // epsilon is added to the variance.
  const Tensor z =
      runOp("BatchNormalization", {{"epsilon", 3.0}},
            {Tensor({1, 1}, {3}), Tensor({1}, {1}), Tensor({1}, {0}), Tensor({1}, {1}), Tensor({1}, {1})}, {1, 1});
  requireTensor(z, {1, 1}, {1});
}

TEST_CASE("LayerNormalization over the last axis with scale and bias") {
  // [1, 2, 3, 4]: mean 2.5, variance 1.25.
  const float s = 1.0f / std::sqrt(1.25f);
  const Tensor y =
      runOp("LayerNormalization", {{"axis", 1}, {"epsilon", 0.0}},
            {Tensor({2, 4}, {1, 2, 3, 4, 2, 2, 2, 6}), Tensor({4}, {1, 2, 1, 1}), Tensor({4}, {0, 0, 1, 0})}, {2, 4});
  // Row 2: mean 3, variance 3.
  const float t = 1.0f / std::sqrt(3.0f);
  requireTensor(y, {2, 4}, {-1.5f * s, -0.5f * s * 2, 0.5f * s + 1, 1.5f * s, -t, -2 * t, -t + 1, 3 * t});
}

TEST_CASE("LayerNormalization over several axes with a broadcast scale") {
  // Normalizes over the last two dims ([2, 2]); scale [2] broadcasts over
  // them, bias is absent.
  const float s = 1.0f / std::sqrt(1.25f + 0.75f);
  const Tensor y = runOp("LayerNormalization", {{"axis", 1}, {"epsilon", 0.75}},
                         {iota({1, 2, 2}, 1), Tensor({2}, {1, 2})}, {1, 2, 2});
  requireTensor(y, {1, 2, 2}, {-1.5f * s, -1.0f * s, 0.5f * s, 3.0f * s});
}

TEST_CASE("Softmax along one axis") {
  const Tensor y =
      runOp("Softmax", {{"axis", 1}}, {Tensor({2, 3}, {0, std::log(2.0f), std::log(3.0f), 1000, 1000, 1000})}, {2, 3});
  requireTensor(y, {2, 3}, {1.0f / 6, 1.0f / 3, 0.5f, 1.0f / 3, 1.0f / 3, 1.0f / 3});
  // axis 0 of a [2, 2]: each column is normalized.
  requireTensor(runOp("Softmax", {{"axis", 0}}, {Tensor({2, 2}, {0, 0, std::log(3.0f), 0})}, {2, 2}), {2, 2},
                {0.25f, 0.5f, 0.75f, 0.5f});
  CHECK_THROWS_WITH(runOp("Softmax", {{"axis", 2}}, {Tensor({2, 2})}, {2, 2}),
                    Catch::Contains("axis 2 is out of range for rank 2"));
}

TEST_CASE("a negative or non-finite epsilon is an error") {
  const std::vector<Tensor> operands = {Tensor({1, 1}, {3}), Tensor({1}, {1}), Tensor({1}, {0}), Tensor({1}, {1}),
                                        Tensor({1}, {1})};
  CHECK_THROWS_WITH(runOp("BatchNormalization", {{"epsilon", -1.0}}, operands, {1, 1}),
                    Catch::Contains("'epsilon' must be finite and >= 0, got -1"));
  // 1e39 does not fit a float: it becomes infinity.
  CHECK_THROWS_WITH(runOp("BatchNormalization", {{"epsilon", 1e39}}, operands, {1, 1}),
                    Catch::Contains("'epsilon' must be finite and >= 0, got inf"));
}
