//===- LibraryCallVerifier.cpp - The rules a library variant follows ------===//

#include "runtime/plan/LibraryCallVerifier.h"

#include "support/CheckedMath.h"

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

/// One operand of a library call: its name in the manifest, its position
/// in the kernel's buffer list (unset: absent), and whether it is written.
struct Operand {
  const char *name;
  std::optional<size_t> position;
  bool output;
};

/// That each operand names one of the kernel's inputs (or, written, its
/// outputs) of f32, f16 or bf16; "" if so, else why not. `call` names the
/// call in the message ("product", "convolution").
std::string checkOperands(const PlanManifest &manifest, const KernelDesc &kernel,
                          std::initializer_list<Operand> operands, const char *call) {
  const size_t inputs = kernel.inputs.size(), buffers = inputs + kernel.outputs.size();
  for (const Operand &operand : operands) {
    if (!operand.position)
      continue;
    const size_t position = *operand.position;
    if (position >= buffers)
      return std::string("operand '") + operand.name + "' is " + std::to_string(position) + ", but the kernel has " +
             std::to_string(buffers) + " buffers";
    if ((position >= inputs) != operand.output)
      return std::string("operand '") + operand.name + "' must be one of the kernel's " +
             (operand.output ? "outputs" : "inputs");
    const ElementType type =
        manifest.buffers[position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs]].dtype;
    if (!productType(type))
      return std::string("operand '") + operand.name + "' has dtype " + elementTypeName(type) + " (a library " + call +
             " takes f32, f16 or bf16)";
  }
  return "";
}

/// The rules of a cuBLASLt product.
std::string checkMatmul(const PlanManifest &manifest, const KernelDesc &kernel, const LibraryMatmul &m,
                        int64_t largestBatch) {
  const size_t inputs = kernel.inputs.size();
  auto bufferOf = [&](size_t position) -> const BufferDesc & {
    return manifest.buffers[position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs]];
  };
  if (std::string error = checkOperands(
          manifest, kernel,
          {{"a", m.a, false}, {"b", m.b, false}, {"bias", m.bias, false}, {"c", m.c, false}, {"d", m.d, true}},
          "product");
      !error.empty())
    return error;
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

bool fitsInt32(int64_t value) { return value >= 1 && value <= std::numeric_limits<int32_t>::max(); }

/// The rules of a cuDNN convolution.
std::string checkConv(const PlanManifest &manifest, const KernelDesc &kernel, const LibraryConv &c,
                      int64_t largestBatch) {
  const size_t inputs = kernel.inputs.size();
  auto bufferOf = [&](size_t position) -> const BufferDesc & {
    return manifest.buffers[position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs]];
  };
  if (std::string error = checkOperands(manifest, kernel,
                                        {{"input", c.input, false},
                                         {"filter", c.filter, false},
                                         {"bias", c.bias, false},
                                         {"residual", c.residual, false},
                                         {"output", c.output, true}},
                                        "convolution");
      !error.empty())
    return error;
  const ElementType xType = bufferOf(c.input).dtype, yType = bufferOf(c.output).dtype;
  if (bufferOf(c.filter).dtype != xType)
    return "operands 'input' and 'filter' have different dtypes";
  if (c.residual && bufferOf(*c.residual).dtype != yType)
    return "operand 'residual' must have the dtype of 'output'";
  if (xType == ElementType::F32 && yType != ElementType::F32)
    return "an f32 convolution writes f32";
  if (c.compute == LibraryConv::Compute::Tf32 && xType != ElementType::F32)
    return "compute 'tf32' is for f32 operands";
  if (c.activation == LibraryConv::Activation::GeluTanh)
    return "activation 'gelu_tanh' is not one a library convolution applies (none or relu)";
  if (!c.residual && c.beta != 0)
    return "a convolution without 'residual' has beta 0";
  for (int64_t size : {c.c, c.h, c.w, c.k, c.r, c.s, c.groups})
    if (!fitsInt32(size))
      return "c, h, w, k, r, s and groups must be from 1 to 2^31 - 1";
  if (c.c % c.groups != 0 || c.k % c.groups != 0)
    return "groups (" + std::to_string(c.groups) + ") must divide c (" + std::to_string(c.c) + ") and k (" +
           std::to_string(c.k) + ")";
  for (int i = 0; i < 2; ++i) {
    if (c.padBegin[i] < 0 || c.padEnd[i] < 0 || c.padBegin[i] > (1 << 20) || c.padEnd[i] > (1 << 20))
      return "paddings must be from 0 to 2^20";
    if (c.stride[i] < 1 || c.dilation[i] < 1 || c.stride[i] > (1 << 20) || c.dilation[i] > (1 << 20))
      return "strides and dilations must be from 1 to 2^20";
  }
  if (c.p() < 1 || c.q() < 1)
    return "the filter (" + std::to_string(c.r) + " x " + std::to_string(c.s) + ", dilated) does not fit the " +
           std::to_string(c.h) + " x " + std::to_string(c.w) + " input with its padding";
  for (int64_t batch : {int64_t{1}, largestBatch}) {
    const int64_t images = c.n.at(batch);
    const std::string at = " at batch " + std::to_string(batch);
    if (c.n.perBatch < 0 || !fitsInt32(images))
      return "n is " + std::to_string(images) + at + " (from 1 to 2^31 - 1)";
    struct Extent {
      const char *name;
      std::optional<size_t> position;
      std::optional<int64_t> elements;
    };
    auto product = [](std::initializer_list<int64_t> factors) -> std::optional<int64_t> {
      int64_t total = 1;
      for (int64_t factor : factors) {
        const std::optional<int64_t> next = checkedMul(total, factor);
        if (!next)
          return std::nullopt;
        total = *next;
      }
      return total;
    };
    const std::optional<int64_t> outputElements = product({images, c.k, c.p(), c.q()});
    const Extent extents[] = {{"input", c.input, product({images, c.c, c.h, c.w})},
                              {"filter", c.filter, product({c.k, c.c / c.groups, c.r, c.s})},
                              {"bias", c.bias, c.k},
                              {"residual", c.residual, outputElements},
                              {"output", c.output, outputElements}};
    for (const Extent &extent : extents) {
      if (!extent.position)
        continue;
      const int64_t held = elementsAt(bufferOf(*extent.position).shape, batch);
      if (!extent.elements || *extent.elements > held)
        return std::string("operand '") + extent.name + "' spans " +
               (extent.elements ? std::to_string(*extent.elements) : "too many") + " elements" + at +
               ", but its buffer holds " + std::to_string(held);
    }
  }
  return "";
}

} // namespace

std::string checkLibraryCall(const PlanManifest &manifest, const KernelDesc &kernel, const LibraryCall &call,
                             int64_t largestBatch) {
  if (call.library == kCublasLtLibrary) {
    if (!call.matmul)
      return std::string("library '") + kCublasLtLibrary + "' computes a \"matmul\"";
    return checkMatmul(manifest, kernel, *call.matmul, largestBatch);
  }
  if (call.library == kCudnnLibrary) {
    if (!call.conv)
      return std::string("library '") + kCudnnLibrary + "' computes a \"conv\"";
    return checkConv(manifest, kernel, *call.conv, largestBatch);
  }
  return "names the library '" + call.library + "' (this runtime knows '" + kCublasLtLibrary + "' and '" +
         kCudnnLibrary + "')";
}

} // namespace fusec::runtime
