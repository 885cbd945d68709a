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
  if (map.box[0] != 64 || map.box[1] < 1 || map.box[1] > 256)
    return "tensor map box is " + std::to_string(map.box[0]) + " x " + std::to_string(map.box[1]) +
           "; fusec's boxes are 64 columns (the 128-byte swizzle) by 1 to 256 rows";
  for (int64_t batch : {int64_t{1}, largestBatch}) {
    const int64_t rows = map.rows.at(batch);
    if (rows < 1 || rows > (int64_t{1} << 32))
      return "tensor map has " + std::to_string(rows) + " rows at batch " + std::to_string(batch) +
             "; TMA takes 1 to 2^32";
    const std::optional<int64_t> elements = checkedMul(rows, map.columns);
    if (!elements || *elements > elementsAt(buffer.shape, batch))
      return "tensor map's " + std::to_string(rows) + " x " + std::to_string(map.columns) +
             " matrix reaches past its buffer at batch " + std::to_string(batch);
  }
  return "";
}

} // namespace fusec::runtime
