//===- MatMul.cpp - Gemm and MatMul -----------------------------------------===//
//
// Both reduce to row-major products Y[M,N] = A[M,K] * B[K,N] computed in
// i-k-j order, so the innermost loop streams contiguous rows of B and Y.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"

#include <algorithm>

namespace fusec::runtime::cpu {

namespace {

/// y[M,N] = a[M,K] * b[K,N], all row-major and contiguous.
void multiply(const float *a, const float *b, float *y, int64_t m, int64_t n, int64_t k) {
  std::fill(y, y + m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    float *row = y + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const float scale = a[i * k + p];
      const float *bRow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += scale * bRow[j];
    }
  }
}

/// A rank-2 operand in row-major order, transposed first if `transpose`.
std::vector<float> rowMajor(const ConstView &matrix, bool transpose) {
  const int64_t rows = matrix.shape[0], cols = matrix.shape[1];
  if (!transpose)
    return std::vector<float>(matrix.data, matrix.data + rows * cols);
  std::vector<float> result(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      result[c * rows + r] = matrix.data[r * cols + c];
  return result;
}

void gemm(const OpContext &context) {
  context.expectRank(0, 2);
  context.expectRank(1, 2);
  const ConstView &a = context.operand(0);
  const ConstView &b = context.operand(1);
  const bool transA = context.flagAttr("transA");
  const bool transB = context.flagAttr("transB");
  const float alpha = context.floatAttr("alpha");
  const float beta = context.floatAttr("beta");
  const int64_t m = transA ? a.shape[1] : a.shape[0];
  const int64_t k = transA ? a.shape[0] : a.shape[1];
  const int64_t kB = transB ? b.shape[1] : b.shape[0];
  const int64_t n = transB ? b.shape[0] : b.shape[1];
  if (k != kB)
    context.fail("inner dimensions differ: A " + formatShape(a.shape) + (transA ? " (transposed)" : "") + ", B " +
                 formatShape(b.shape) + (transB ? " (transposed)" : ""));
  const Shape shape{m, n};
  context.expectResultShape(shape);

  float *y = context.result().data;
  multiply(rowMajor(a, transA).data(), rowMajor(b, transB).data(), y, m, n, k);
  std::vector<float> c;
  if (context.numOperands() == 3) {
    const ConstView &bias = context.operand(2);
    if (broadcastShapes(bias.shape, shape) != shape)
      context.fail("C shape " + formatShape(bias.shape) + " does not broadcast to " + formatShape(shape));
    c = expandTo(bias, shape);
  }
  for (int64_t i = 0; i < m * n; ++i)
    y[i] = alpha * y[i] + (c.empty() ? 0.0f : beta * c[i]);
}

void matMul(const OpContext &context) {
  ConstView a = context.operand(0);
  ConstView b = context.operand(1);
  if (a.shape.empty() || b.shape.empty())
    context.fail("operands must have rank >= 1");
  // numpy: a 1-D A is a row vector and a 1-D B a column vector; the added
  // dimension is dropped from the result.
  const bool vectorA = a.shape.size() == 1;
  const bool vectorB = b.shape.size() == 1;
  if (vectorA)
    a.shape.insert(a.shape.begin(), 1);
  if (vectorB)
    b.shape.push_back(1);
  const int64_t m = a.shape[a.shape.size() - 2];
  const int64_t k = a.shape.back();
  const int64_t n = b.shape.back();
  if (b.shape[b.shape.size() - 2] != k)
    context.fail("inner dimensions differ: " + formatShape(context.operand(0).shape) + " x " +
                 formatShape(context.operand(1).shape));

  const Shape batchA(a.shape.begin(), a.shape.end() - 2);
  const Shape batchB(b.shape.begin(), b.shape.end() - 2);
  std::optional<Shape> batch = broadcastShapes(batchA, batchB);
  if (!batch)
    context.fail("batch dimensions of " + formatShape(context.operand(0).shape) + " and " +
                 formatShape(context.operand(1).shape) + " do not broadcast");
  Shape shape = *batch;
  if (!vectorA)
    shape.push_back(m);
  if (!vectorB)
    shape.push_back(n);
  context.expectResultShape(shape);

  // Strides in whole matrices, 0 along broadcast batch dimensions.
  const Strides stridesA = broadcastStrides(batchA, *batch);
  const Strides stridesB = broadcastStrides(batchB, *batch);
  const Strides stridesY = contiguousStrides(*batch);
  const int64_t count = numElements(*batch);
  for (int64_t index = 0; index < count; ++index) {
    int64_t matrixA = 0, matrixB = 0;
    for (size_t d = 0; d < batch->size(); ++d) {
      const int64_t coordinate = index / stridesY[d] % (*batch)[d];
      matrixA += coordinate * stridesA[d];
      matrixB += coordinate * stridesB[d];
    }
    multiply(a.data + matrixA * m * k, b.data + matrixB * k * n, context.result().data + index * m * n, m, n, k);
  }
}

} // namespace

void registerMatMulOps(OpRegistry &registry) {
  registry.add("Gemm", OpInfo{gemm, 2, 3});
  registry.add("MatMul", OpInfo{matMul, 2, 2});
}

} // namespace fusec::runtime::cpu
