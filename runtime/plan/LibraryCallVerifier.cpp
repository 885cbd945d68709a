//===- LibraryCallVerifier.cpp - The rules a library variant follows ------===//

#include "runtime/plan/LibraryCallVerifier.h"

#include "runtime/support/CheckedMath.h"

#include <limits>

namespace fusec::runtime {

namespace {

bool productType(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::BF16;
}

/// Elements of `shape` at `batch`, saturating.
int64_t elementsAt(const Shape &shape, int64_t batch) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    const std::optional<int64_t> next = checkedMul(count, dim == plan::kBatchDim ? batch : dim);
    if (!next)
      return std::numeric_limits<int64_t>::max();
    count = *next;
  }
  return count;
}

/// Elements a batch of `count` matrices of rows x cols, `stride` apart,
/// spans; nullopt on overflow.
std::optional<int64_t> spanOf(int64_t count, int64_t stride, int64_t rows, int64_t cols) {
  const std::optional<int64_t> matrix = checkedMul(rows, cols);
  const std::optional<int64_t> offset = checkedMul(count - 1, stride);
  if (!matrix || !offset)
    return std::nullopt;
  return checkedAdd(*offset, *matrix);
}

} // namespace

std::string checkLibraryCall(const PlanManifest &manifest, const KernelDesc &kernel, const LibraryCall &call,
                             int64_t largestBatch) {
  if (call.library != kCublasLtLibrary)
    return "names the library '" + call.library + "' (this runtime knows '" + kCublasLtLibrary + "')";
  const LibraryMatmul &m = call.matmul;
  const size_t inputs = kernel.inputs.size();
  const size_t operands = inputs + kernel.outputs.size();
  auto bufferOf = [&](size_t position) -> const BufferDesc & {
    return manifest.buffers[position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs]];
  };
  struct Operand {
    const char *name;
    std::optional<size_t> position;
    bool output;
  };
  const Operand named[] = {
      {"a", m.a, false}, {"b", m.b, false}, {"bias", m.bias, false}, {"c", m.c, false}, {"d", m.d, true}};
  for (const Operand &operand : named) {
    if (!operand.position)
      continue;
    if (*operand.position >= operands)
      return std::string("operand '") + operand.name + "' is " + std::to_string(*operand.position) +
             ", but the kernel has " + std::to_string(operands) + " buffers";
    if ((*operand.position >= inputs) != operand.output)
      return std::string("operand '") + operand.name + "' must be one of the kernel's " +
             (operand.output ? "outputs" : "inputs");
    const ElementType type = bufferOf(*operand.position).dtype;
    if (!productType(type))
      return std::string("operand '") + operand.name + "' has dtype " + elementTypeName(type) +
             " (a library product takes f32, f16 or bf16)";
  }
  const ElementType aType = bufferOf(m.a).dtype, dType = bufferOf(m.d).dtype;
  if (bufferOf(m.b).dtype != aType)
    return "operands 'a' and 'b' have different dtypes";
  if (m.c && bufferOf(*m.c).dtype != dType)
    return "operand 'c' must have the dtype of 'd'";
  if (aType == ElementType::F32 && dType != ElementType::F32)
    return "an f32 product writes f32";
  if (m.compute == LibraryMatmul::Compute::Tf32 && aType != ElementType::F32)
    return "compute 'tf32' is for f32 operands";
  if (m.n < 1 || m.k < 1 || m.n > std::numeric_limits<int32_t>::max() || m.k > std::numeric_limits<int32_t>::max())
    return "n and k must be from 1 to 2^31 - 1";
  for (int64_t stride : {m.strideA, m.strideB, m.strideC, m.strideD})
    if (stride < 0)
      return "strides must not be negative";
  if (!m.c && (m.beta != 0 || m.strideC != 0))
    return "a product without 'c' has beta 0 and no C stride";
  for (int64_t batch : {int64_t{1}, largestBatch}) {
    const int64_t rows = m.m.at(batch), count = m.batchCount.at(batch);
    const std::string at = " at batch " + std::to_string(batch);
    if (m.m.perBatch < 0 || rows < 1 || rows > std::numeric_limits<int32_t>::max())
      return "m is " + std::to_string(rows) + at + " (from 1 to 2^31 - 1)";
    if (m.batchCount.perBatch < 0 || count < 1 || count > std::numeric_limits<int32_t>::max())
      return "batch_count is " + std::to_string(count) + at + " (from 1 to 2^31 - 1)";
    struct Extent {
      const char *name;
      std::optional<size_t> position;
      int64_t matrices, stride, rows, cols;
    };
    // The bias is one row, shared by every matrix.
    const Extent extents[] = {{"a", m.a, count, m.strideA, rows, m.k},
                              {"b", m.b, count, m.strideB, m.k, m.n},
                              {"bias", m.bias, 1, 0, 1, m.n},
                              {"c", m.c, count, m.strideC, rows, m.n},
                              {"d", m.d, count, m.strideD, rows, m.n}};
    for (const Extent &extent : extents) {
      if (!extent.position)
        continue;
      const std::optional<int64_t> span = spanOf(extent.matrices, extent.stride, extent.rows, extent.cols);
      const int64_t held = elementsAt(bufferOf(*extent.position).shape, batch);
      if (!span || *span > held)
        return std::string("operand '") + extent.name + "' spans " + (span ? std::to_string(*span) : "too many") +
               " elements" + at + ", but its buffer holds " + std::to_string(held);
    }
  }
  return "";
}

} // namespace fusec::runtime
