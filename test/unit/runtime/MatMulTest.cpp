//===- MatMulTest.cpp - Gemm and MatMul -------------------------------------===//

#include "TestSupport.h"

using namespace fusec;
using namespace fusec::runtime;
using nlohmann::json;
using test::iota;
using test::requireTensor;
using test::runOp;

namespace {

json gemmAttrs(float alpha, float beta, int transA, int transB) {
  return {{"alpha", alpha}, {"beta", beta}, {"transA", transA}, {"transB", transB}};
}

} // namespace

TEST_CASE("Gemm with transB, alpha, beta and a broadcast row bias") {
  // A * B^T = [[4, 2], [10, 5]]; 2 * that + 0.5 * [10, 20].
  const Tensor a({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b({2, 3}, {1, 0, 1, 0, 1, 0});
  requireTensor(runOp("Gemm", gemmAttrs(2, 0.5f, 0, 1), {a, b, Tensor({2}, {10, 20})}, {2, 2}), {2, 2},
                {13, 14, 25, 20});
}

TEST_CASE("Gemm with transA, a column bias, and without bias") {
  // A is given transposed: A^T = [[1, 2, 3], [4, 5, 6]].
  const Tensor aT({3, 2}, {1, 4, 2, 5, 3, 6});
  const Tensor b({3, 2}, {1, 0, 0, 1, 1, 1});
  // A * B = [[4, 5], [10, 11]].
  requireTensor(runOp("Gemm", gemmAttrs(1, 1, 1, 0), {aT, b, Tensor({2, 1}, {100, 200})}, {2, 2}), {2, 2},
                {104, 105, 210, 211});
  requireTensor(runOp("Gemm", gemmAttrs(1, 1, 1, 0), {aT, b}, {2, 2}), {2, 2}, {4, 5, 10, 11});
  CHECK_THROWS_WITH(runOp("Gemm", gemmAttrs(1, 1, 0, 0), {aT, b}, {3, 2}), Catch::Contains("inner dimensions differ"));
}

TEST_CASE("MatMul of a rank-3 and a rank-2 operand") {
  // Each row r of A maps to [r0 + r2, r1 + r2].
  const Tensor b({3, 2}, {1, 0, 0, 1, 1, 1});
  requireTensor(runOp("MatMul", json::object(), {iota({2, 2, 3}), b}, {2, 2, 2}), {2, 2, 2},
                {2, 3, 8, 9, 14, 15, 20, 21});
}

TEST_CASE("MatMul with 1-D operands drops the added dimension") {
  const Tensor b({3, 2}, {1, 0, 0, 1, 1, 1});
  requireTensor(runOp("MatMul", json::object(), {Tensor({3}, {1, 2, 3}), b}, {2}), {2}, {4, 5});
  requireTensor(runOp("MatMul", json::object(), {iota({2, 3}, 1), Tensor({3}, {1, 1, 1})}, {2}), {2}, {6, 15});
  requireTensor(runOp("MatMul", json::object(), {Tensor({2}, {1, 2}), Tensor({2}, {3, 4})}, {}), {}, {11});
}

TEST_CASE("MatMul broadcasts batch dimensions") {
  // [1, 2, 2] x [2, 2, 2]: A is reused against the identity and a swap.
  const Tensor a({1, 2, 2}, {1, 2, 3, 4});
  const Tensor b({2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
  requireTensor(runOp("MatMul", json::object(), {a, b}, {2, 2, 2}), {2, 2, 2}, {1, 2, 3, 4, 2, 1, 4, 3});
  // [2, 1, 1, 2] x [3, 2, 1] -> [2, 3, 1, 1].
  const Tensor c({2, 1, 1, 2}, {1, 2, 3, 4});
  const Tensor d({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  requireTensor(runOp("MatMul", json::object(), {c, d}, {2, 3, 1, 1}), {2, 3, 1, 1}, {1, 2, 3, 3, 4, 7});
  CHECK_THROWS_WITH(runOp("MatMul", json::object(), {Tensor({2, 2, 2}), Tensor({3, 2, 2})}, {2, 2, 2}),
                    Catch::Contains("batch dimensions of [2, 2, 2] and "
                                    "[3, 2, 2] do not broadcast"));
}
