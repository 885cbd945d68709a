//===- HostLibraryCalls.cpp - Library variants computed from their description ===//

#include "HostLibraryCalls.h"

#include "runtime/Error.h"
#include "support/HalfFloat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fusec::test {

using runtime::ElementType;

namespace {

/// One operand: its address and element type, read and written as f32.
struct Tensor {
  void *data = nullptr;
  ElementType type = ElementType::F32;

  float load(int64_t index) const {
    switch (type) {
    case ElementType::F16:
      return halfBitsToFloat(static_cast<const uint16_t *>(data)[index]);
    case ElementType::BF16:
      return bfloat16BitsToFloat(static_cast<const uint16_t *>(data)[index]);
    case ElementType::F32:
      return static_cast<const float *>(data)[index];
    default:
      throw runtime::Error("host library call: an operand is not f32, f16 or bf16");
    }
  }
  void store(int64_t index, float value) const {
    switch (type) {
    case ElementType::F16:
      static_cast<uint16_t *>(data)[index] = floatToHalfBits(value);
      return;
    case ElementType::BF16:
      static_cast<uint16_t *>(data)[index] = floatToBfloat16Bits(value);
      return;
    case ElementType::F32:
      static_cast<float *>(data)[index] = value;
      return;
    default:
      throw runtime::Error("host library call: the output is not f32, f16 or bf16");
    }
  }
};

float activate(LibraryMatmul::Activation activation, float value) {
  switch (activation) {
  case LibraryMatmul::Activation::Relu:
    return std::max(value, 0.0f);
  case LibraryMatmul::Activation::GeluTanh: {
    const float inner = 0.7978845608028654f * (value + 0.044715f * value * value * value);
    return 0.5f * value * (1.0f + std::tanh(inner));
  }
  case LibraryMatmul::Activation::None:
    break;
  }
  return value;
}

void runMatmul(const LibraryMatmul &m, int64_t batch, const std::vector<Tensor> &t) {
  const int64_t rows = m.m.at(batch), count = m.batchCount.at(batch);
  const Tensor &a = t[m.a], &b = t[m.b], &d = t[m.d];
  for (int64_t matrix = 0; matrix < count; ++matrix)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < m.n; ++j) {
        float sum = 0;
        for (int64_t k = 0; k < m.k; ++k) {
          const float x = a.load(matrix * m.strideA + (m.transA ? k * rows + i : i * m.k + k));
          const float y = b.load(matrix * m.strideB + (m.transB ? j * m.k + k : k * m.n + j));
          sum += x * y;
        }
        float value = static_cast<float>(m.alpha) * sum;
        if (m.bias)
          value += t[*m.bias].load(j);
        if (m.c)
          value += static_cast<float>(m.beta) * t[*m.c].load(matrix * m.strideC + i * m.n + j);
        d.store(matrix * m.strideD + i * m.n + j, activate(m.activation, value));
      }
}

void runConv(const LibraryConv &c, int64_t batch, const std::vector<Tensor> &t) {
  const int64_t n = c.n.at(batch), p = c.p(), q = c.q();
  const int64_t groupIn = c.c / c.groups, groupOut = c.k / c.groups;
  const bool nhwc = c.layout == LibraryConv::Layout::Nhwc;
  auto image = [&](int64_t img, int64_t ch, int64_t y, int64_t x, int64_t channels, int64_t height, int64_t width) {
    return nhwc ? ((img * height + y) * width + x) * channels + ch : ((img * channels + ch) * height + y) * width + x;
  };
  auto filter = [&](int64_t out, int64_t ch, int64_t y, int64_t x) {
    return nhwc ? ((out * c.r + y) * c.s + x) * groupIn + ch : ((out * groupIn + ch) * c.r + y) * c.s + x;
  };
  const Tensor &input = t[c.input], &weights = t[c.filter], &output = t[c.output];
  for (int64_t img = 0; img < n; ++img)
    for (int64_t out = 0; out < c.k; ++out) {
      const int64_t group = out / groupOut;
      for (int64_t y = 0; y < p; ++y)
        for (int64_t x = 0; x < q; ++x) {
          float sum = 0;
          for (int64_t ch = 0; ch < groupIn; ++ch)
            for (int64_t fy = 0; fy < c.r; ++fy)
              for (int64_t fx = 0; fx < c.s; ++fx) {
                const int64_t iy = y * c.stride[0] - c.padBegin[0] + fy * c.dilation[0];
                const int64_t ix = x * c.stride[1] - c.padBegin[1] + fx * c.dilation[1];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w)
                  continue;
                sum += input.load(image(img, group * groupIn + ch, iy, ix, c.c, c.h, c.w)) *
                       weights.load(filter(out, ch, fy, fx));
              }
          float value = static_cast<float>(c.alpha) * sum;
          if (c.bias)
            value += t[*c.bias].load(out);
          const int64_t at = image(img, out, y, x, c.k, p, q);
          if (c.residual)
            value += static_cast<float>(c.beta) * t[*c.residual].load(at);
          output.store(at, activate(c.activation, value));
        }
    }
}

} // namespace

void runLibraryCall(const runtime::LibraryCall &call, int64_t batch, const std::vector<void *> &args,
                    const std::vector<ElementType> &types) {
  std::vector<Tensor> tensors(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    tensors[i] = Tensor{args[i], types[i]};
  if (call.matmul)
    runMatmul(*call.matmul, batch, tensors);
  else if (call.conv)
    runConv(*call.conv, batch, tensors);
  else
    throw runtime::Error("host library call: neither a matmul nor a conv");
}

} // namespace fusec::test
