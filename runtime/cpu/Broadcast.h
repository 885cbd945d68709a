//===- Broadcast.h - numpy broadcasting and strided iteration ---------------===//
//
// Shared by the ops that combine tensors of different shapes (binary
// elementwise ops, Gemm's C, LayerNormalization's scale and bias, MatMul's
// batch dimensions) and by the ops that walk a tensor through permuted or
// zeroed strides (Transpose, ReduceMean).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_BROADCAST_H
#define FUSEC_RUNTIME_CPU_BROADCAST_H

#include "runtime/Tensor.h"
#include "runtime/cpu/OpContext.h"

#include <optional>
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

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_BROADCAST_H
