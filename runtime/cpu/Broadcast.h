//===- Broadcast.h - numpy broadcasting and strided iteration ---------------===//
//
// Shared by the ops that combine tensors of different shapes (binary
// elementwise ops, Gemm's C, LayerNormalization's scale and bias, MatMul's
// batch dimensions) and by the ops that walk a tensor through permuted or
// zeroed strides (Transpose, ReduceMean), and the typed ops that broadcast
// several operands element by element (comparisons, Where, quantization).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_BROADCAST_H
#define FUSEC_RUNTIME_CPU_BROADCAST_H

#include "runtime/Tensor.h"
#include "runtime/cpu/OpContext.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime::cpu {

using Strides = std::vector<int64_t>;

/// The numpy broadcast of two shapes, or nullopt if they are incompatible.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

/// Element strides of a C-order tensor of `shape`.
Strides contiguousStrides(const Shape &shape);

/// Strides for reading a C-order tensor of `shape` as if it had the shape
/// `target` it broadcasts to: one entry per target dimension, 0 where the
/// tensor is broadcast.
Strides broadcastStrides(const Shape &shape, const Shape &target);

/// `source` broadcast to `target`, materialized in C order.
std::vector<float> expandTo(const ConstView &source, const Shape &target);

/// Walks a C-order tensor of `shape` one row (its last dimension) at a time
/// and calls row(offset, offsetA, offsetB): the element offset of the row in
/// that tensor and in two tensors read through `stridesA` and `stridesB` (one
/// stride per dimension of `shape`). A rank-0 shape is a single row of one
/// element.
template <typename RowFn>
void forEachRow(const Shape &shape, const Strides &stridesA, const Strides &stridesB, RowFn &&row) {
  for (int64_t dim : shape)
    if (dim == 0)
      return;
  const int64_t rowLength = shape.empty() ? 1 : shape.back();
  const int outerRank = static_cast<int>(shape.size()) - 1;
  std::vector<int64_t> index(outerRank > 0 ? outerRank : 0, 0);
  int64_t offset = 0, offsetA = 0, offsetB = 0;
  while (true) {
    row(offset, offsetA, offsetB);
    offset += rowLength;
    int dim = outerRank - 1;
    for (; dim >= 0; --dim) {
      offsetA += stridesA[dim];
      offsetB += stridesB[dim];
      if (++index[dim] < shape[dim])
        break;
      offsetA -= stridesA[dim] * shape[dim];
      offsetB -= stridesB[dim] * shape[dim];
      index[dim] = 0;
    }
    if (dim < 0)
      return;
  }
}

/// Calls element(offset, offsets of each operand) for every element of the
/// broadcast of `shapes`, after checking that it is the plan's result shape.
template <size_t N, typename ElementFn>
void forEachBroadcast(const OpContext &context, const std::array<const Shape *, N> &shapes, ElementFn &&element) {
  std::optional<Shape> shape = *shapes[0];
  for (size_t i = 1; i < N && shape; ++i)
    shape = broadcastShapes(*shape, *shapes[i]);
  if (!shape) {
    std::string described;
    for (size_t i = 0; i < N; ++i)
      described += (i ? (i + 1 == N ? " and " : ", ") : "") + formatShape(*shapes[i]);
    context.fail("operand shapes " + described + " do not broadcast");
  }
  context.expectResultShape(*shape);
  std::array<Strides, N> strides;
  for (size_t i = 0; i < N; ++i)
    strides[i] = broadcastStrides(*shapes[i], *shape);
  const int64_t count = numElements(*shape);
  const size_t rank = shape->size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t linear = 0; linear < count; ++linear) {
    element(linear, offsets);
    for (size_t d = rank; d-- > 0;) {
      for (size_t i = 0; i < N; ++i)
        offsets[i] += strides[i][d];
      if (++index[d] < (*shape)[d])
        break;
      for (size_t i = 0; i < N; ++i)
        offsets[i] -= strides[i][d] * (*shape)[d];
      index[d] = 0;
    }
  }
}

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_BROADCAST_H
