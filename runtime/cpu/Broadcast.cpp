//===- Broadcast.cpp - numpy broadcasting and strided iteration -------------===//

#include "runtime/cpu/Broadcast.h"

#include <algorithm>

namespace fusec::runtime::cpu {

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align trailing dimensions; missing leading dimensions act as 1.
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[i] = da == 1 ? db : da;
  }
  return result;
}

Strides contiguousStrides(const Shape &shape) {
  Strides strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

Strides broadcastStrides(const Shape &shape, const Shape &target) {
  const Strides own = contiguousStrides(shape);
  const size_t lead = target.size() - shape.size();
  Strides strides(target.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i)
    strides[lead + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

std::vector<float> expandTo(const ConstView &source, const Shape &target) {
  std::vector<float> result(static_cast<size_t>(numElements(target)));
  const Strides strides = broadcastStrides(source.shape, target);
  const int64_t rowLength = target.empty() ? 1 : target.back();
  const int64_t step = target.empty() ? 0 : strides.back();
  forEachRow(target, strides, strides, [&](int64_t offset, int64_t offsetA, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j)
      result[offset + j] = source.data[offsetA + j * step];
  });
  return result;
}

} // namespace fusec::runtime::cpu
