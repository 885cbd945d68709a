//===- ConvEmulationTest.cpp - fusec_conv.h's implicit GEMM under emulation -===//
//
// The tensor-core implicit GEMM (FusecGemmTf32 with the im2col operand
// FusecIm2colB) instantiated for the convolution shapes networks use —
// pointwise (the 16-byte pixel copies), 3x3 with padding, 7x7 stride 2 over
// 3 channels (K = 147: a ragged reduction, 4-byte weight copies), strided
// 1x1 downsampling, dilation, asymmetric windows — with output channels and
// pixel counts that are not multiples of the tiles, checked against a
// float64 direct convolution. The channels-last operand (FusecIm2colNhwcB:
// NHWC input, OHWI weights, channel vectors) runs the same shapes, and
// narrow or odd channel counts in single copies. Every buffer sits between
// guard pages, so a copy outside the input (a padding tap, a pixel past the
// batch) faults.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_conv.h"

// out = conv(x, w) + bias, NCHW; the epilogue decomposes the pixel as the
// generated kernels do.
template <typename Gemm, typename BOperand, int Co, int C, int H, int W, int K, int HO, int WO>
__device__ void conv(const float *x, const float *w, const float *bias, float *out, int batch) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4]; // float4: 16-byte aligned
  BOperand bOperand(x, FusecIm2colSizes{H, W, unsigned(C * H * W), fusec_divisor(HO * WO), fusec_divisor(WO)});
  auto epilogue = [&](int row, int col, float value) {
    const int image = col / (HO * WO), pixel = col % (HO * WO);
    out[(static_cast<long long>(image) * Co + row) * (HO * WO) + pixel] = value + bias[row];
  };
  Gemm::run(w, K, bOperand, Co, batch * HO * WO, K, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN,
            reinterpret_cast<float *>(smem), epilogue);
}

#define FUSEC_CONV_KERNEL(NAME, BM, WM, AVEC, CO, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, HO, WO, BVEC)             \
  extern "C" __global__ void NAME(const float *x, const float *w, const float *bias, float *out, int batch) {        \
    using Operand = FusecIm2colB<KH, KW, SH, SW, PH, PW, DH, DW, BVEC>;                                               \
    conv<FusecGemmTf32<FusecTileOf<BM, 64, 16, WM, 32, 4, AVEC, BVEC, 3>, Operand>, Operand, CO, C, H, W, C * KH * KW, HO, WO>(          \
        x, w, bias, out, batch);                                                                                    \
  }                                                                                                                 \
  FUSEC_CONV_THUNK(NAME)

// The same NHWC: the output is stored channel-innermost.
template <typename Gemm, typename BOperand, int Co, int C, int H, int W, int K, int HO, int WO>
__device__ void convNhwc(const float *x, const float *w, const float *bias, float *out, int batch) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4];
  BOperand bOperand(x, FusecIm2colSizes{H, W, unsigned(C * H * W), fusec_divisor(HO * WO), fusec_divisor(WO)},
                    fusec_divisor(C));
  auto epilogue = [&](int row, int col, float value) { out[static_cast<long long>(col) * Co + row] = value + bias[row]; };
  Gemm::run(w, K, bOperand, Co, batch * HO * WO, K, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN,
            reinterpret_cast<float *>(smem), epilogue);
}

// BK = 16 and 128 threads: a thread copies 64 * 16 / BVEC / 128 pixels,
// 128 / (16 / BVEC) apart.
#define FUSEC_NHWC_KERNEL(NAME, BM, WM, AVEC, CO, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, HO, WO, BVEC)             \
  extern "C" __global__ void NAME(const float *x, const float *w, const float *bias, float *out, int batch) {        \
    using Operand = FusecIm2colNhwcB<KH, KW, SH, SW, PH, PW, DH, DW, BVEC, 64 * 16 / BVEC / 128, 128 / (16 / BVEC)>; \
    convNhwc<FusecGemmTf32<FusecTileOf<BM, 64, 16, WM, 32, 4, AVEC, BVEC, 3>, Operand>, Operand, CO, C, H, W, C * KH * KW, HO, WO>(      \
        x, w, bias, out, batch);                                                                                    \
  }                                                                                                                 \
  FUSEC_CONV_THUNK(NAME)

// A conv-prologue and a slice of a concatenation's channels: the operand
// reads channels OFF .. OFF + C of an input with CR channels and applies
// relu(v * scale(c) + shift(c)) to each element it loads (never to padding).
#define FUSEC_PROLOGUE_FUNCTOR                                                                                      \
  auto prologue = [](float v, long long c) {                                                                        \
    return fmaxf(v * (0.5f + 0.25f * float(c % 3)) + (0.1f * float(c) - 0.3f), 0.0f);                               \
  }
#define FUSEC_PROLOGUE_KERNEL(NAME, BM, WM, AVEC, CO, C, CR, OFF, H, W, KH, KW, SH, SW, PH, PW, DH, DW, HO, WO, BVEC) \
  extern "C" __global__ void NAME(const float *x, const float *w, const float *bias, float *out, int batch) {        \
    FUSEC_PROLOGUE_FUNCTOR;                                                                                         \
    using Operand = FusecIm2colB<KH, KW, SH, SW, PH, PW, DH, DW, BVEC, float, decltype(prologue)>;                  \
    using Gemm = FusecGemmTf32<FusecTileOf<BM, 64, 16, WM, 32, 4, AVEC, BVEC, 3>, Operand>;                         \
    __shared__ float4 smem[Gemm::kSmemFloats / 4];                                                                  \
    Operand bOperand(x + OFF * H * W, FusecIm2colSizes{H, W, unsigned(CR * H * W), fusec_divisor(HO * WO),         \
                                                       fusec_divisor(WO)}, prologue);                               \
    auto epilogue = [&](int row, int col, float value) {                                                            \
      const int image = col / (HO * WO), pixel = col % (HO * WO);                                                   \
      out[(static_cast<long long>(image) * CO + row) * (HO * WO) + pixel] = value + bias[row];                      \
    };                                                                                                              \
    Gemm::run(w, C * KH * KW, bOperand, CO, batch * HO * WO, C * KH * KW, blockIdx.y * Gemm::kBlockM,               \
              blockIdx.x * Gemm::kBlockN, reinterpret_cast<float *>(smem), epilogue);                               \
  }                                                                                                                 \
  FUSEC_CONV_THUNK(NAME)
#define FUSEC_PROLOGUE_NHWC_KERNEL(NAME, BM, WM, AVEC, CO, C, CR, OFF, H, W, KH, KW, SH, SW, PH, PW, DH, DW, HO, WO,  \
                                   BVEC)                                                                            \
  extern "C" __global__ void NAME(const float *x, const float *w, const float *bias, float *out, int batch) {        \
    FUSEC_PROLOGUE_FUNCTOR;                                                                                         \
    using Operand = FusecIm2colNhwcB<KH, KW, SH, SW, PH, PW, DH, DW, BVEC, 64 * 16 / BVEC / 128, 128 / (16 / BVEC),  \
                                     float, decltype(prologue)>;                                                    \
    using Gemm = FusecGemmTf32<FusecTileOf<BM, 64, 16, WM, 32, 4, AVEC, BVEC, 3>, Operand>;                         \
    __shared__ float4 smem[Gemm::kSmemFloats / 4];                                                                  \
    Operand bOperand(x + OFF, FusecIm2colSizes{H, W, unsigned(CR * H * W), fusec_divisor(HO * WO), fusec_divisor(WO)}, \
                     fusec_divisor(C), CR, prologue);                                                               \
    auto epilogue = [&](int row, int col, float value) {                                                            \
      out[static_cast<long long>(col) * CO + row] = value + bias[row];                                              \
    };                                                                                                              \
    Gemm::run(w, C * KH * KW, bOperand, CO, batch * HO * WO, C * KH * KW, blockIdx.y * Gemm::kBlockM,               \
              blockIdx.x * Gemm::kBlockN, reinterpret_cast<float *>(smem), epilogue);                               \
  }                                                                                                                 \
  FUSEC_CONV_THUNK(NAME)

#ifdef FUSEC_EMULATION
#define FUSEC_CONV_THUNK(NAME)                                                                                      \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const float *>(args[0]), static_cast<const float *>(args[1]),                                  \
         static_cast<const float *>(args[2]), static_cast<float *>(args[3]), *static_cast<int *>(args[4]));         \
  }
#else
#define FUSEC_CONV_THUNK(NAME)
#endif

//                name          BM  WM AV  Co   C   H   W KH KW SH SW PH PW DH DW HO WO BV
FUSEC_CONV_KERNEL(pointwise,    32, 16, 4, 24, 16,  6,  6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 4)
FUSEC_CONV_KERNEL(conv3x3,      64, 32, 1, 40,  5,  9,  7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 1)
FUSEC_CONV_KERNEL(stem7x7s2,    32, 16, 1,  8,  3, 15, 15, 7, 7, 2, 2, 3, 3, 1, 1, 8, 8, 1)
FUSEC_CONV_KERNEL(dilated,      64, 32, 4, 70,  8, 11, 11, 3, 3, 2, 2, 1, 1, 2, 2, 5, 5, 1)
FUSEC_CONV_KERNEL(downsample,   32, 16, 4, 20, 12, 10, 10, 1, 1, 2, 2, 0, 0, 1, 1, 5, 5, 1)
FUSEC_CONV_KERNEL(asymmetric,   32, 16, 4, 16,  4,  6,  9, 3, 1, 1, 2, 1, 0, 1, 1, 6, 5, 1)
FUSEC_NHWC_KERNEL(nhwcPointwise, 32, 16, 4, 24, 16,  6,  6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 4)
FUSEC_NHWC_KERNEL(nhwc3x3,      64, 32, 4, 40, 12,  9,  7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 4)
FUSEC_NHWC_KERNEL(nhwcOdd3x3,   64, 32, 1, 40,  5,  9,  7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 1)
FUSEC_NHWC_KERNEL(nhwcStem,     32, 16, 1,  8,  3, 15, 15, 7, 7, 2, 2, 3, 3, 1, 1, 8, 8, 1)
FUSEC_NHWC_KERNEL(nhwcDilated,  64, 32, 4, 70,  8, 11, 11, 3, 3, 2, 2, 1, 1, 2, 2, 5, 5, 4)
FUSEC_NHWC_KERNEL(nhwcNarrow,   32, 16, 2, 20,  2, 10, 10, 1, 1, 2, 2, 0, 0, 1, 1, 5, 5, 2)
FUSEC_NHWC_KERNEL(nhwcAsymmetric, 32, 16, 4, 16, 4, 6,  9, 3, 1, 1, 2, 1, 0, 1, 1, 6, 5, 4)
//                    name               BM  WM AV  Co   C  CR OFF  H   W KH KW SH SW PH PW DH DW HO WO BV
FUSEC_PROLOGUE_KERNEL(prologuePointwise, 32, 16, 4, 24, 16, 40,  8, 6,  6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 4)
FUSEC_PROLOGUE_KERNEL(prologue3x3,       64, 32, 1, 40,  5, 12,  7, 9,  7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 1)
FUSEC_PROLOGUE_NHWC_KERNEL(prologueNhwcPointwise, 32, 16, 4, 24, 16, 40, 8, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 4)
FUSEC_PROLOGUE_NHWC_KERNEL(prologueNhwc3x3, 64, 32, 4, 40, 12, 20, 4, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 4)
FUSEC_PROLOGUE_NHWC_KERNEL(prologueNhwcOdd3x3, 64, 32, 1, 40, 5, 12, 7, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 1)
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

struct ConvCase {
  std::string name;
  int blockM;
  int co, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, ho, wo;
  int batch;
  /// NHWC input and output, OHWI weights.
  bool channelsLast = false;
  /// The kernel applies FUSEC_PROLOGUE_FUNCTOR to channels `offset` ..
  /// `offset + c` of an input with `rootChannels` channels.
  bool prologue = false;
  int rootChannels = 0, offset = 0;
};

/// FUSEC_PROLOGUE_FUNCTOR in double precision.
double prologueOf(double v, int c) { return std::max(v * (0.5 + 0.25 * (c % 3)) + (0.1 * c - 0.3), 0.0); }

/// The largest error of the kernel's output against a float64 direct
/// convolution, each divided by the sum of |x w| + |bias| it added up.
double runAndMeasure(const ConvCase &t, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const size_t taps = size_t(t.c) * t.kh * t.kw, pixels = size_t(t.ho) * t.wo;
  const int inputChannels = t.prologue ? t.rootChannels : t.c;
  std::vector<float> x(size_t(t.batch) * inputChannels * t.h * t.w), w(t.co * taps), bias(t.co);
  for (std::vector<float> *values : {&x, &w, &bias})
    for (float &value : *values)
      value = uniform(random);
  const float untouched = 12345.0f;
  std::vector<float> out(size_t(t.batch) * t.co * pixels, untouched);

  Dim3 grid{unsigned((t.batch * pixels + 63) / 64), unsigned((t.co + t.blockM - 1) / t.blockM)};
  int batch = t.batch;
  kernels().launch(t.name, grid, {128}, {x.data(), w.data(), bias.data(), out.data(), &batch},
                   {x.size() * 4, w.size() * 4, bias.size() * 4, out.size() * 4});

  double worst = 0.0;
  for (int n = 0; n < t.batch; ++n)
    for (int co = 0; co < t.co; ++co)
      for (int oh = 0; oh < t.ho; ++oh)
        for (int ow = 0; ow < t.wo; ++ow) {
          double exact = bias[co], magnitude = std::fabs(bias[co]);
          for (int c = 0; c < t.c; ++c)
            for (int i = 0; i < t.kh; ++i)
              for (int j = 0; j < t.kw; ++j) {
                const int ih = oh * t.sh - t.ph + i * t.dh, iw = ow * t.sw - t.pw + j * t.dw;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                  continue;
                const int channel = t.prologue ? t.offset + c : c;
                const size_t input = t.channelsLast ? ((size_t(n) * t.h + ih) * t.w + iw) * inputChannels + channel
                                                    : ((size_t(n) * inputChannels + channel) * t.h + ih) * t.w + iw;
                const size_t weight = t.channelsLast ? ((size_t(co) * t.kh + i) * t.kw + j) * t.c + c
                                                     : ((size_t(co) * t.c + c) * t.kh + i) * t.kw + j;
                const double value = t.prologue ? prologueOf(x[input], c) : double(x[input]);
                const double product = value * w[weight];
                exact += product;
                magnitude += std::fabs(product);
              }
          const float got = out[t.channelsLast ? ((size_t(n) * t.ho + oh) * t.wo + ow) * t.co + co
                                               : ((size_t(n) * t.co + co) * t.ho + oh) * t.wo + ow];
          INFO(t.name << " out(" << n << ", " << co << ", " << oh << ", " << ow << ") = " << got << ", expected "
                      << exact);
          REQUIRE(got != untouched);
          REQUIRE(std::isfinite(got));
          worst = std::max(worst, std::fabs(got - exact) / magnitude);
        }
  return worst;
}

} // namespace

TEST_CASE("the tensor-core implicit GEMM matches a float64 convolution on ragged shapes", "[codegen][conv]") {
  //                                   BM  Co   C   H   W KH KW SH SW PH PW DH DW HO WO batch
  const std::vector<ConvCase> cases = {{"pointwise", 32, 24, 16, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 3},
                                       {"conv3x3", 64, 40, 5, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2},
                                       {"stem7x7s2", 32, 8, 3, 15, 15, 7, 7, 2, 2, 3, 3, 1, 1, 8, 8, 2},
                                       {"dilated", 64, 70, 8, 11, 11, 3, 3, 2, 2, 1, 1, 2, 2, 5, 5, 1},
                                       {"downsample", 32, 20, 12, 10, 10, 1, 1, 2, 2, 0, 0, 1, 1, 5, 5, 3},
                                       {"asymmetric", 32, 16, 4, 6, 9, 3, 1, 1, 2, 1, 0, 1, 1, 6, 5, 2},
                                       {"nhwcPointwise", 32, 24, 16, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 3, true},
                                       {"nhwc3x3", 64, 40, 12, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2, true},
                                       {"nhwcOdd3x3", 64, 40, 5, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2, true},
                                       {"nhwcStem", 32, 8, 3, 15, 15, 7, 7, 2, 2, 3, 3, 1, 1, 8, 8, 2, true},
                                       {"nhwcDilated", 64, 70, 8, 11, 11, 3, 3, 2, 2, 1, 1, 2, 2, 5, 5, 1, true},
                                       {"nhwcNarrow", 32, 20, 2, 10, 10, 1, 1, 2, 2, 0, 0, 1, 1, 5, 5, 3, true},
                                       {"nhwcAsymmetric", 32, 16, 4, 6, 9, 3, 1, 1, 2, 1, 0, 1, 1, 6, 5, 2, true}};
  unsigned seed = 0;
  for (const ConvCase &t : cases) {
    const double error = runAndMeasure(t, ++seed);
    INFO(t.name << " relative error " << error);
    // fp32 accuracy (3xTF32): well inside the rtol 1e-4 the models are held to.
    CHECK(error < 2e-6);
  }
}

// fusec_copy_through: a conv-prologue applied to the elements loaded, in
// vectors of pixels (NCHW pointwise), single gathers (3x3 with padding,
// whose zeros it must leave alone), and vectors of channels (NHWC); each
// reading a slice of the channels of a larger input, as a DenseNet layer
// reads its block's concatenation.
TEST_CASE("conv operands apply a prologue to what they load and read a slice of the input's channels",
          "[codegen][conv]") {
  //                                   BM  Co   C   H   W KH KW SH SW PH PW DH DW HO WO batch NHWC
  const std::vector<ConvCase> cases = {
      {"prologuePointwise", 32, 24, 16, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 3, false, true, 40, 8},
      {"prologue3x3", 64, 40, 5, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2, false, true, 12, 7},
      {"prologueNhwcPointwise", 32, 24, 16, 6, 6, 1, 1, 1, 1, 0, 0, 1, 1, 6, 6, 3, true, true, 40, 8},
      {"prologueNhwc3x3", 64, 40, 12, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2, true, true, 20, 4},
      {"prologueNhwcOdd3x3", 64, 40, 5, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7, 2, true, true, 12, 7}};
  unsigned seed = 100;
  for (const ConvCase &t : cases) {
    const double error = runAndMeasure(t, ++seed);
    INFO(t.name << " relative error " << error);
    CHECK(error < 2e-6);
  }
}
