//===- AttentionTest.cpp - the fused attention reference -------------------===//

#include "TestSupport.h"

#include <cmath>
#include <limits>

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

/// Deterministic values in [-1, 1) that differ from element to element.
Tensor pattern(const Shape &shape, int seed) {
  Tensor tensor = iota(shape);
  float *data = tensor.data();
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    data[i] = std::fmod(std::sin(0.7f * static_cast<float>(i) + static_cast<float>(seed)) * 13.0f, 1.0f);
  return tensor;
}

Shape withLast(Shape shape, int64_t last) {
  shape.back() = last;
  return shape;
}

/// The unfused chain the op replaces: MatMul(Q, Kt) * scale (+ mask),
/// Softmax on the last axis, MatMul with V, each op run by the reference.
Tensor unfused(const Tensor &q, const Tensor &k, const Tensor &v, float scale, const Tensor *mask) {
  const Shape &qs = q.shape(), &ks = k.shape();
  const size_t rank = qs.size();
  std::vector<int64_t> perm;
  for (size_t d = 0; d < rank; ++d)
    perm.push_back(static_cast<int64_t>(d));
  std::swap(perm[rank - 2], perm[rank - 1]);
  Shape kt = ks;
  std::swap(kt[rank - 2], kt[rank - 1]);
  const Shape scoresShape = withLast(qs, ks[rank - 2]);
  Tensor scores = runOp("MatMul", json::object(), {q, runOp("Transpose", {{"perm", perm}}, {k}, kt)}, scoresShape);
  scores = runOp("Mul", json::object(), {scores, Tensor({}, {scale})}, scoresShape);
  if (mask)
    scores = runOp("Add", json::object(), {scores, *mask}, scoresShape);
  scores = runOp("Softmax", {{"axis", static_cast<int64_t>(rank - 1)}}, {scores}, scoresShape);
  return runOp("MatMul", json::object(), {scores, v}, withLast(qs, v.shape().back()));
}

} // namespace

TEST_CASE("Attention equals the unfused MatMul, scale, mask, Softmax, MatMul chain") {
  const Tensor q = pattern({2, 3, 5, 4}, 1), k = pattern({2, 3, 7, 4}, 2), v = pattern({2, 3, 7, 6}, 3);
  const Shape out{2, 3, 5, 6};
  SECTION("no mask") {
    const Tensor y = runOp("Attention", {{"scale", 0.5}, {"causal", 0}}, {q, k, v}, out);
    requireTensor(y, out, unfused(q, k, v, 0.5f, nullptr).values(), 1e-5f);
  }
  SECTION("an additive mask broadcast over batch and heads") {
    const Tensor mask = pattern({5, 7}, 4);
    const Tensor y = runOp("Attention", {{"scale", 0.25}, {"causal", 0}}, {q, k, v, mask}, out);
    requireTensor(y, out, unfused(q, k, v, 0.25f, &mask).values(), 1e-5f);
  }
  SECTION("causal is the -inf mask above the diagonal shifted by Sk - S") {
    Tensor mask({5, 7});
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 7; ++j)
        mask.data()[i * 7 + j] = j <= i + 2 ? 0.0f : -std::numeric_limits<float>::infinity();
    const Tensor y = runOp("Attention", {{"scale", 0.5}, {"causal", 1}}, {q, k, v}, out);
    requireTensor(y, out, unfused(q, k, v, 0.5f, &mask).values(), 1e-5f);
  }
}

TEST_CASE("Attention by hand: equal scores average the values, causal row 0 sees key 0") {
  // Q = 0 gives equal scores: every row is the mean of V's rows.
  const Tensor v({3, 2}, {1, 2, 3, 4, 8, 0});
  requireTensor(runOp("Attention", {{"scale", 1.0}, {"causal", 0}}, {Tensor({2, 2}), Tensor({3, 2}), v}, {2, 2}),
                {2, 2}, {4, 2, 4, 2});
  // Causal with S = Sk = 3: row i averages V's rows 0..i.
  requireTensor(runOp("Attention", {{"scale", 1.0}, {"causal", 1}}, {Tensor({3, 2}), Tensor({3, 2}), v}, {3, 2}),
                {3, 2}, {1, 2, 2, 3, 4, 2});
}

TEST_CASE("Attention rejects mismatched shapes and causal S > Sk") {
  using Catch::Contains;
  const json attrs{{"scale", 1.0}, {"causal", 0}};
  CHECK_THROWS_WITH(runOp("Attention", attrs, {Tensor({2, 4}), Tensor({3, 5}), Tensor({3, 4})}, {2, 4}),
                    Contains("op Attention 'test_op': key head dimension 5 differs from the query's 4"));
  CHECK_THROWS_WITH(runOp("Attention", attrs, {Tensor({2, 4}), Tensor({3, 4}), Tensor({3, 4}), Tensor({3, 3})}, {2, 4}),
                    Contains("mask [3, 3] does not broadcast to the scores [2, 3]"));
  CHECK_THROWS_WITH(
      runOp("Attention", {{"scale", 1.0}, {"causal", 1}}, {Tensor({4, 4}), Tensor({3, 4}), Tensor({3, 4})}, {4, 4}),
      Contains("causal attention needs a query length (4) <= the key length (3)"));
  CHECK_THROWS_WITH(
      runOp("Attention", {{"scale", 1.0}, {"causal", 2}}, {Tensor({2, 4}), Tensor({2, 4}), Tensor({2, 4})}, {2, 4}),
      Contains("'causal' must be 0 or 1, got 2"));
}
