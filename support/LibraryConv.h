//===- LibraryConv.h - A convolution a vendor library runs ------*- C++ -*-===//
//
// A fused convolution group that a vendor library can compute whole is
// written into the plan as a library variant (format 5.3,
// docs/plan-format.md): this description, in the plan's own terms and
// independent of any library's conventions. The compiler derives it from a
// fused kernel's ops (ir/LibraryConv.h), the plan reader reads it back, and
// each library backend (cuDNN, runtime/cuda/CudnnConv.h) maps it onto its
// API.
//
//   output = act(alpha * conv(input, filter) + bias + beta * residual)
//
// conv is ONNX's Conv (cross-correlation) of `input`, n images of c channels
// and h x w pixels, with `filter`, k filters of c / groups channels and
// r x s taps, zero-padded by padBegin / padEnd (height, width), strided and
// dilated; `output` and `residual` are n images of k channels and p x q
// pixels. `bias` holds k values, one per output channel. Layout Nchw stores
// the images as NCHW and the filter as KCRS (OIHW); Nhwc as NHWC and KRSC
// (OHWI). Every tensor is dense. The element types are those of the buffers
// the operands name; the residual, when present, has the output's.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_LIBRARYCONV_H
#define FUSEC_SUPPORT_LIBRARYCONV_H

#include "support/BatchLinear.h"
#include "support/LibraryMatmul.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace fusec {

struct LibraryConv {
  enum class Layout { Nchw, Nhwc };
  /// ReLU or nothing: what cuDNN's fused convolution engines apply last.
  using Activation = LibraryMatmul::Activation;
  /// f32 operands: f32 arithmetic, or TF32 tensor cores (fusec
  /// --precision=tf32); f16/bf16 operands: tensor cores with f32
  /// accumulation.
  using Compute = LibraryMatmul::Compute;

  /// Operands, as positions in the kernel's buffer list (its inputs, then
  /// its outputs).
  size_t input = 0;
  size_t filter = 1;
  size_t output = 2;
  std::optional<size_t> bias;
  std::optional<size_t> residual;

  /// Images per launch (grows with the batch).
  BatchLinear n{0, 1};
  /// Input channels, height and width; filters (output channels) and their
  /// height and width.
  int64_t c = 1, h = 1, w = 1;
  int64_t k = 1, r = 1, s = 1;
  int64_t groups = 1;
  /// (height, width) each.
  std::array<int64_t, 2> padBegin{0, 0};
  std::array<int64_t, 2> padEnd{0, 0};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  Layout layout = Layout::Nchw;
  double alpha = 1.0;
  double beta = 0.0;
  Activation activation = Activation::None;
  Compute compute = Compute::F32;

  /// Output height and width.
  int64_t p() const { return (h + padBegin[0] + padEnd[0] - dilation[0] * (r - 1) - 1) / stride[0] + 1; }
  int64_t q() const { return (w + padBegin[1] + padEnd[1] - dilation[1] * (s - 1) - 1) / stride[1] + 1; }

  friend bool operator==(const LibraryConv &a, const LibraryConv &b) {
    return a.input == b.input && a.filter == b.filter && a.output == b.output && a.bias == b.bias &&
           a.residual == b.residual && a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.k == b.k &&
           a.r == b.r && a.s == b.s && a.groups == b.groups && a.padBegin == b.padBegin && a.padEnd == b.padEnd &&
           a.stride == b.stride && a.dilation == b.dilation && a.layout == b.layout && a.alpha == b.alpha &&
           a.beta == b.beta && a.activation == b.activation && a.compute == b.compute;
  }
};

/// The library variant's `library` name cuDNN convolutions carry.
inline constexpr const char *kCudnnLibrary = "cudnn";

/// Manifest spelling of the layout: "nchw", "nhwc".
inline const char *layoutName(LibraryConv::Layout layout) {
  return layout == LibraryConv::Layout::Nhwc ? "nhwc" : "nchw";
}

} // namespace fusec

#endif // FUSEC_SUPPORT_LIBRARYCONV_H
