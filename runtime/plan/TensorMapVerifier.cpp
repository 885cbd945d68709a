//===- TensorMapVerifier.cpp - The rules a launch's tensor maps follow ----===//

#include "runtime/plan/TensorMapVerifier.h"

#include "support/CheckedMath.h"

namespace fusec::runtime {

namespace {

/// Elements of `shape` at `batch`, saturating.
int64_t elementsAt(const Shape &shape, int64_t batch) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    const std::optional<int64_t> next = checkedMul(count, dim == plan::kBatchDim ? batch : dim);
    if (!next)
      return INT64_MAX;
    count = *next;
  }
  return count;
}

} // namespace

std::string checkTensorMap(const PlanManifest &manifest, const KernelDesc &kernel, const TensorMapDesc &map,
                           int64_t largestBatch) {
  const size_t inputs = kernel.inputs.size(), buffers = inputs + kernel.outputs.size();
  if (map.buffer >= buffers)
    return "tensor map names buffer " + std::to_string(map.buffer) + ", but the kernel has " + std::to_string(buffers);
  const BufferDesc &buffer =
      manifest.buffers[map.buffer < inputs ? kernel.inputs[map.buffer] : kernel.outputs[map.buffer - inputs]];
  const ElementType expected = map.bf16 ? ElementType::BF16 : ElementType::F16;
  if (buffer.dtype != expected)
    return std::string("tensor map reads ") + elementTypeName(expected) + " from a buffer of dtype " +
           elementTypeName(buffer.dtype);
  if (map.columns < 8 || map.columns % 8 != 0 || map.columns > int64_t{UINT32_MAX})
    return "tensor map has " + std::to_string(map.columns) +
           " columns; TMA needs a positive multiple of 8 (rows 16-byte aligned) below 2^32";
  if (map.rank() > TensorMapDesc::kMaxRank || map.box.size() != map.rank())
    return "tensor map has rank " + std::to_string(map.rank()) + " and " + std::to_string(map.box.size()) +
           " box sizes; fusec's maps have rank 2 to " + std::to_string(TensorMapDesc::kMaxRank) + ", one size each";
  if (map.swizzleBytes == TensorMapDesc::kSwizzleBytes ? map.box[0] != 64 : map.box[0] != 8)
    return "tensor map box is " + std::to_string(map.box[0]) + " columns wide; fusec's boxes are 64 columns (the " +
           "128-byte swizzle) or 8 without swizzle";
  if (map.swizzleBytes != 0 && map.swizzleBytes != TensorMapDesc::kSwizzleBytes)
    return "tensor map swizzles " + std::to_string(map.swizzleBytes) + " bytes; fusec's maps swizzle 128 or none";
  for (size_t d = 1; d < map.box.size(); ++d)
    if (map.box[d] < 1 || map.box[d] > 256)
      return "tensor map box has " + std::to_string(map.box[d]) + " elements along dimension " + std::to_string(d) +
             "; TMA boxes take 1 to 256";
  for (int64_t dim : map.middle)
    if (dim < 1 || dim > (int64_t{1} << 32))
      return "tensor map has a middle dimension of " + std::to_string(dim) + "; TMA takes 1 to 2^32";
  if (!map.elementStrides.empty()) {
    if (map.elementStrides.size() != map.rank() || map.elementStrides[0] != 1)
      return "tensor map has " + std::to_string(map.elementStrides.size()) + " element strides for rank " +
             std::to_string(map.rank()) + "; one per dimension, the innermost 1";
    for (uint32_t stride : map.elementStrides)
      if (stride < 1 || stride > 8)
        return "tensor map has an element stride of " + std::to_string(stride) + "; TMA takes 1 to 8";
  }
  for (int64_t batch : {int64_t{1}, largestBatch}) {
    const int64_t rows = map.rows.at(batch);
    if (rows < 1 || rows > (int64_t{1} << 32))
      return "tensor map has " + std::to_string(rows) + " rows at batch " + std::to_string(batch) +
             "; TMA takes 1 to 2^32";
    // A row: the columns times the middle dimensions (2^32 each at most,
    // so the product of two cannot overflow).
    std::optional<int64_t> row = map.columns;
    for (int64_t dim : map.middle)
      row = row ? checkedMul(*row, dim) : std::nullopt;
    // Every byte stride, the outermost (the row's) largest, below 2^40.
    if (!row || *row >= (int64_t{1} << 40) / TensorMapDesc::kElementBytes)
      return "tensor map's rows are 2^40 bytes or more apart, past what TMA takes";
    const std::optional<int64_t> elements = checkedMul(rows, *row);
    if (!elements || *elements > elementsAt(buffer.shape, batch))
      return "tensor map's " + std::to_string(rows) + " x " + std::to_string(*row) +
             " elements reach past its buffer at batch " + std::to_string(batch);
  }
  return "";
}

} // namespace fusec::runtime
