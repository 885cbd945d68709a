//===- HalfTemplateEmulationTest.cpp - fusec_gemm_half.h under emulation --===//
//
// The f16/bf16 tensor-core main loop (FusecGemmHalf: mma.m16n8k16, ldmatrix
// and ldmatrix.trans, 16-bit shared tiles) on a dense B in both layouts and
// on the im2col operand (pointwise with vector copies, 3x3 padded, 7x7
// stride 2 with single-element gathers), with ragged M, N, K and pixel
// counts, K not a multiple of BK, and every half config fusec chooses.
//
// The reference: float64 sums of the products of the 16-bit inputs (which
// are exact in f32, as on the tensor cores) plus the bias. Two checks per
// element: the f32 value the epilogue receives is within 1e-6 of sum |a b|
// (the f32 accumulation), and the 16-bit result the kernel stores is that
// value rounded like a generated kernel rounds it (fusec_convert), so it
// lies between the roundings of reference -/+ the bound. Every buffer sits
// between guard pages with NaN padding in the leading dimensions, so a read
// outside a tensor faults or poisons the result.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"
#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_conv.h"
#include "fusec_gemm_half.h"

// The epilogue of a generated kernel, reduced: value + bias in f32, rounded
// to the result type and stored; the f32 value kept for the accuracy check.
template <typename Element> struct Store {
  Element *out;
  float *raw;
  __device__ void operator()(long long at, float value) const {
    raw[at] = value;
    out[at] = fusec_convert<Element>::from(value);
  }
};

template <typename Gemm, typename Element, bool BT, int BV>
__device__ void gemm(const Element *a, const Element *b, const Element *bias, Element *c, float *raw, int lda,
                     int ldb, int ldc, int m, int n, int k) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4]; // float4: 16-byte aligned
  Store<Element> store{c, raw};
  auto epilogue = [&](int row, int col, float value) {
    store(static_cast<long long>(row) * ldc + col, value + fusec_ld(&bias[col]));
  };
  FusecDenseB<BT, BV, Element> bOperand(b, ldb);
  Gemm::run(a, lda, bOperand, m, n, k, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, smem, epilogue);
}

#define FUSEC_GEMM_ARGS(E)                                                                                          \
  const E *a, const E *b, const E *bias, E *c, float *raw, int lda, int ldb, int ldc, int m, int n, int k
#define FUSEC_GEMM_KERNEL(NAME, E, BM, BN, BK, WM, WN, S, AV, BT, BV)                                              \
  extern "C" __global__ void NAME(FUSEC_GEMM_ARGS(E)) {                                                             \
    gemm<FusecGemmHalf<FusecTileOf<BM, BN, BK, WM, WN, S, AV, BV, 1, E>, FusecDenseB<BT, BV, E>>, E, BT, BV>(a, b, bias, c, raw, lda, ldb, \
                                                                                      ldc, m, n, k);                \
  }                                                                                                                 \
  FUSEC_GEMM_THUNK(NAME, E)

template <typename Gemm, typename Element, int Co, int C, int H, int W, int K, int HO, int WO>
__device__ void conv(const Element *x, const Element *w, const Element *bias, Element *out, float *raw, int batch) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4];
  typename Gemm::Operand bOperand(
      x, FusecIm2colSizes{H, W, unsigned(C * H * W), fusec_divisor(HO * WO), fusec_divisor(WO)});
  Store<Element> store{out, raw};
  auto epilogue = [&](int row, int col, float value) {
    const int image = col / (HO * WO), pixel = col % (HO * WO);
    store((static_cast<long long>(image) * Co + row) * (HO * WO) + pixel, value + fusec_ld(&bias[row]));
  };
  Gemm::run(w, K, bOperand, Co, batch * HO * WO, K, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN, smem,
            epilogue);
}

#define FUSEC_CONV_KERNEL(NAME, E, BM, BN, BK, WM, WN, S, AV, CO, C, H, W, KH, KW, SH, SW, PH, PW, HO, WO, BV)       \
  extern "C" __global__ void NAME(const E *x, const E *w, const E *bias, E *out, float *raw, int batch) {           \
    using Operand = FusecIm2colB<KH, KW, SH, SW, PH, PW, 1, 1, BV, E>;                                              \
    conv<FusecGemmHalf<FusecTileOf<BM, BN, BK, WM, WN, S, AV, BV, 1, E>, Operand>, E, CO, C, H, W, C * KH * KW, HO, WO>(x, w, bias, out,   \
                                                                                                  raw, batch);      \
  }                                                                                                                 \
  FUSEC_CONV_THUNK(NAME, E)

#ifdef FUSEC_EMULATION
#define FUSEC_GEMM_THUNK(NAME, E)                                                                                   \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const E *>(args[0]), static_cast<const E *>(args[1]), static_cast<const E *>(args[2]),         \
         static_cast<E *>(args[3]), static_cast<float *>(args[4]), *static_cast<int *>(args[5]),                    \
         *static_cast<int *>(args[6]), *static_cast<int *>(args[7]), *static_cast<int *>(args[8]),                  \
         *static_cast<int *>(args[9]), *static_cast<int *>(args[10]));                                              \
  }
#define FUSEC_CONV_THUNK(NAME, E)                                                                                   \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const E *>(args[0]), static_cast<const E *>(args[1]), static_cast<const E *>(args[2]),         \
         static_cast<E *>(args[3]), static_cast<float *>(args[4]), *static_cast<int *>(args[5]));                   \
  }
#else
#define FUSEC_GEMM_THUNK(NAME, E)
#define FUSEC_CONV_THUNK(NAME, E)
#endif

// The configs fusec chooses for half operands (ir/KernelConfig.cpp): 64x64
// (4 stages), 64x32 for narrow products, 128x64 and 128x128 (3 stages); BK 32;
// and others the template takes: BK 16 and 64, 2 stages, every vector width.
//                name                     E           BM   BN  BK  WM  WN  S AV  BT     BV
FUSEC_GEMM_KERNEL(g64x64_kn_v8_f16,        fusec_f16,  64,  64, 32, 32, 32, 4, 8, false, 8)
FUSEC_GEMM_KERNEL(g64x64_nk_v8_bf16,       fusec_bf16, 64,  64, 32, 32, 32, 4, 8, true,  8)
FUSEC_GEMM_KERNEL(g64x32_nk_v2_f16,        fusec_f16,  64,  32, 32, 32, 16, 4, 2, true,  2)
FUSEC_GEMM_KERNEL(g64x32_kn_v4_bf16,       fusec_bf16, 64,  32, 32, 32, 16, 4, 4, false, 4)
FUSEC_GEMM_KERNEL(g128x64_nk_v8_f16,       fusec_f16,  128, 64, 32, 32, 32, 3, 8, true,  8)
FUSEC_GEMM_KERNEL(g128x128_kn_v8_bf16,     fusec_bf16, 128, 128, 32, 64, 32, 3, 8, false, 8)
FUSEC_GEMM_KERNEL(g64x64_kn_v1_f16,        fusec_f16,  64,  64, 32, 32, 32, 4, 1, false, 1)
FUSEC_GEMM_KERNEL(g64x64_nk_v1_bf16,       fusec_bf16, 64,  64, 32, 32, 32, 4, 1, true,  1)
FUSEC_GEMM_KERNEL(g32x64_bk16_s2_kn_f16,   fusec_f16,  32,  64, 16, 16, 32, 2, 4, false, 2)
FUSEC_GEMM_KERNEL(g64x64_bk64_s3_nk_f16,   fusec_f16,  64,  64, 64, 32, 32, 3, 8, true,  8)

//                name            E           BM  BN BK  WM  WN S AV  Co  C   H   W KH KW SH SW PH PW HO WO BV
FUSEC_CONV_KERNEL(pointwise_f16,  fusec_f16,  32, 64, 32, 16, 32, 4, 8, 24, 16,  6,  6, 1, 1, 1, 1, 0, 0, 6, 6, 4)
FUSEC_CONV_KERNEL(pointwise_bf16, fusec_bf16, 64, 64, 32, 32, 32, 4, 8, 70, 40,  8,  8, 1, 1, 1, 1, 0, 0, 8, 8, 8)
FUSEC_CONV_KERNEL(conv3x3_f16,    fusec_f16,  64, 64, 32, 32, 32, 4, 1, 40,  5,  9,  7, 3, 3, 1, 1, 1, 1, 9, 7, 1)
FUSEC_CONV_KERNEL(conv3x3_bf16,   fusec_bf16, 64, 64, 32, 32, 32, 4, 8, 36, 16,  7,  7, 3, 3, 1, 1, 1, 1, 7, 7, 1)
FUSEC_CONV_KERNEL(stem7x7s2_f16,  fusec_f16,  32, 64, 32, 16, 32, 4, 1,  8,  3, 15, 15, 7, 7, 2, 2, 3, 3, 8, 8, 1)
FUSEC_CONV_KERNEL(stem7x7s2_bf16, fusec_bf16, 128, 64, 32, 32, 32, 3, 1, 20, 3, 15, 15, 7, 7, 2, 2, 3, 3, 8, 8, 1)
FUSEC_CONV_KERNEL(downsample_f16, fusec_f16,  128, 128, 32, 64, 32, 3, 4, 20, 12, 10, 10, 1, 1, 2, 2, 0, 0, 5, 5, 1)
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

enum class Type { F16, BF16 };

uint16_t toBits(Type type, float value) {
  return type == Type::F16 ? fusec::floatToHalfBits(value) : fusec::floatToBfloat16Bits(value);
}
float fromBits(Type type, uint16_t bits) {
  return type == Type::F16 ? fusec::halfBitsToFloat(bits) : fusec::bfloat16BitsToFloat(bits);
}

/// The f32 accumulation's bound, relative to sum |a b| + |bias|: the sum of
/// K exact products in f32 (K < 2^10 here, each addition within 2^-24).
constexpr double kAccumulationBound = 1e-6;

/// Checks one output element: the f32 value the epilogue got against the
/// float64 reference, and the stored 16-bit value against its rounding.
/// Returns the relative error of the f32 value.
double checkElement(Type type, double exact, double magnitude, float raw, uint16_t stored) {
  REQUIRE(std::isfinite(raw));
  const double error = std::fabs(raw - exact) / magnitude;
  CHECK(error < kAccumulationBound);
  // The stored value is the f32 one rounded (what fusec_convert does)...
  CHECK(stored == toBits(type, raw));
  // ...and lies between the roundings of the reference -/+ the bound.
  const double slack = kAccumulationBound * magnitude;
  const float low = fromBits(type, toBits(type, float(exact - slack)));
  const float high = fromBits(type, toBits(type, float(exact + slack)));
  const float got = fromBits(type, stored);
  CHECK(got >= std::min(low, high));
  CHECK(got <= std::max(low, high));
  return error;
}

struct GemmConfig {
  std::string name;
  Type type;
  int bm, bn, threads, aVec, bVec;
  bool bTransposed;
};

struct Shape {
  int m, n, k;
};

/// Random 16-bit values in [-1, 1].
std::vector<uint16_t> randomValues(Type type, size_t count, std::mt19937 &random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<uint16_t> values(count);
  for (uint16_t &value : values)
    value = toBits(type, uniform(random));
  return values;
}

double runGemm(const GemmConfig &config, Shape shape, unsigned seed) {
  const int m = shape.m, n = shape.n, k = shape.k;
  const uint16_t nan = toBits(config.type, NAN);
  auto padded = [](int value, int vec) { return (value + vec - 1) / vec * vec + vec; };
  const int lda = padded(k, config.aVec), ldb = padded(config.bTransposed ? k : n, config.bVec), ldc = n + 3;
  std::mt19937 random(seed);
  std::vector<uint16_t> a(size_t(m) * lda, nan), b(size_t(config.bTransposed ? n : k) * ldb, nan);
  const std::vector<uint16_t> aValues = randomValues(config.type, size_t(m) * k, random);
  const std::vector<uint16_t> bValues = randomValues(config.type, size_t(k) * n, random);
  const std::vector<uint16_t> bias = randomValues(config.type, n, random);
  for (int row = 0; row < m; ++row)
    for (int kk = 0; kk < k; ++kk)
      a[size_t(row) * lda + kk] = aValues[size_t(row) * k + kk];
  auto bAt = [&](int kk, int col) -> uint16_t & {
    return config.bTransposed ? b[size_t(col) * ldb + kk] : b[size_t(kk) * ldb + col];
  };
  for (int kk = 0; kk < k; ++kk)
    for (int col = 0; col < n; ++col)
      bAt(kk, col) = bValues[size_t(kk) * n + col];
  const uint16_t untouched = 0x7bffu; // a finite value no product of these sizes reaches
  std::vector<uint16_t> c(size_t(m) * ldc, untouched);
  std::vector<float> raw(size_t(m) * ldc, NAN);

  Dim3 grid{unsigned((m + config.bm - 1) / config.bm), unsigned((n + config.bn - 1) / config.bn)};
  int ldaArg = lda, ldbArg = ldb, ldcArg = ldc, mArg = m, nArg = n, kArg = k;
  kernels().launch(config.name, grid, {unsigned(config.threads)},
                   {a.data(), b.data(), const_cast<uint16_t *>(bias.data()), c.data(), raw.data(), &ldaArg, &ldbArg,
                    &ldcArg, &mArg, &nArg, &kArg},
                   {a.size() * 2, b.size() * 2, bias.size() * 2, c.size() * 2, raw.size() * 4});

  double worst = 0;
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < ldc; ++col) {
      const size_t at = size_t(row) * ldc + col;
      INFO(config.name << " M=" << m << " N=" << n << " K=" << k << " C(" << row << ", " << col << ")");
      if (col >= n) {
        REQUIRE(c[at] == untouched);
        continue;
      }
      double exact = fromBits(config.type, bias[col]), magnitude = std::fabs(exact);
      for (int kk = 0; kk < k; ++kk) {
        const double product =
            double(fromBits(config.type, a[size_t(row) * lda + kk])) * double(fromBits(config.type, bAt(kk, col)));
        exact += product;
        magnitude += std::fabs(product);
      }
      worst = std::max(worst, checkElement(config.type, exact, magnitude, raw[at], c[at]));
    }
  return worst;
}

struct ConvCase {
  std::string name;
  Type type;
  int blockM, blockN, threads;
  int co, c, h, w, kh, kw, sh, sw, ph, pw, ho, wo;
  int batch;
};

double runConv(const ConvCase &t, unsigned seed) {
  std::mt19937 random(seed);
  const size_t taps = size_t(t.c) * t.kh * t.kw, pixels = size_t(t.ho) * t.wo;
  const std::vector<uint16_t> x = randomValues(t.type, size_t(t.batch) * t.c * t.h * t.w, random);
  const std::vector<uint16_t> w = randomValues(t.type, t.co * taps, random);
  const std::vector<uint16_t> bias = randomValues(t.type, t.co, random);
  const uint16_t untouched = 0x7bffu;
  std::vector<uint16_t> out(size_t(t.batch) * t.co * pixels, untouched);
  std::vector<float> raw(out.size(), NAN);

  Dim3 grid{unsigned((t.batch * pixels + t.blockN - 1) / t.blockN), unsigned((t.co + t.blockM - 1) / t.blockM)};
  int batch = t.batch;
  kernels().launch(t.name, grid, {unsigned(t.threads)},
                   {const_cast<uint16_t *>(x.data()), const_cast<uint16_t *>(w.data()),
                    const_cast<uint16_t *>(bias.data()), out.data(), raw.data(), &batch},
                   {x.size() * 2, w.size() * 2, bias.size() * 2, out.size() * 2, raw.size() * 4});

  double worst = 0;
  for (int n = 0; n < t.batch; ++n)
    for (int co = 0; co < t.co; ++co)
      for (int oh = 0; oh < t.ho; ++oh)
        for (int ow = 0; ow < t.wo; ++ow) {
          double exact = fromBits(t.type, bias[co]), magnitude = std::fabs(exact);
          for (int c = 0; c < t.c; ++c)
            for (int i = 0; i < t.kh; ++i)
              for (int j = 0; j < t.kw; ++j) {
                const int ih = oh * t.sh - t.ph + i, iw = ow * t.sw - t.pw + j;
                if (ih < 0 || ih >= t.h || iw < 0 || iw >= t.w)
                  continue;
                const double product = double(fromBits(t.type, x[((size_t(n) * t.c + c) * t.h + ih) * t.w + iw])) *
                                       double(fromBits(t.type, w[((size_t(co) * t.c + c) * t.kh + i) * t.kw + j]));
                exact += product;
                magnitude += std::fabs(product);
              }
          const size_t at = ((size_t(n) * t.co + co) * t.ho + oh) * t.wo + ow;
          INFO(t.name << " out(" << n << ", " << co << ", " << oh << ", " << ow << ") = " << raw[at] << ", expected "
                      << exact);
          REQUIRE(out[at] != untouched);
          worst = std::max(worst, checkElement(t.type, exact, magnitude, raw[at], out[at]));
        }
  return worst;
}

const std::vector<Shape> kRaggedShapes = {
    {37, 45, 53},  // every tail ragged, K not a multiple of BK
    {70, 29, 100}, // more than one M tile
    {5, 7, 3},     // smaller than one tile and one k-step
    {64, 64, 64},  // whole tiles
    {1, 70, 19},   // one row
    {130, 136, 72} // more than one 128 tile on both sides
};

} // namespace

TEST_CASE("the f16/bf16 GEMM template matches a float64 product on ragged shapes", "[codegen][gemm][half]") {
  const std::vector<GemmConfig> configs = {
      {"g64x64_kn_v8_f16", Type::F16, 64, 64, 128, 8, 8, false},
      {"g64x64_nk_v8_bf16", Type::BF16, 64, 64, 128, 8, 8, true},
      {"g64x32_nk_v2_f16", Type::F16, 64, 32, 128, 2, 2, true},
      {"g64x32_kn_v4_bf16", Type::BF16, 64, 32, 128, 4, 4, false},
      {"g128x64_nk_v8_f16", Type::F16, 128, 64, 256, 8, 8, true},
      {"g128x128_kn_v8_bf16", Type::BF16, 128, 128, 256, 8, 8, false},
      {"g64x64_kn_v1_f16", Type::F16, 64, 64, 128, 1, 1, false},
      {"g64x64_nk_v1_bf16", Type::BF16, 64, 64, 128, 1, 1, true},
      {"g32x64_bk16_s2_kn_f16", Type::F16, 32, 64, 128, 4, 2, false},
      {"g64x64_bk64_s3_nk_f16", Type::F16, 64, 64, 128, 8, 8, true},
  };
  unsigned seed = 0;
  for (const GemmConfig &config : configs)
    for (const Shape &shape : kRaggedShapes) {
      const double error = runGemm(config, shape, ++seed);
      INFO(config.name << " M=" << shape.m << " N=" << shape.n << " K=" << shape.k << " relative error " << error);
      CHECK(error < kAccumulationBound);
    }
}

TEST_CASE("the f16/bf16 implicit GEMM matches a float64 convolution on ragged shapes", "[codegen][conv][half]") {
  //                                   type       BM   BN  thr  Co   C   H   W KH KW SH SW PH PW HO WO batch
  const std::vector<ConvCase> cases = {
      {"pointwise_f16", Type::F16, 32, 64, 128, 24, 16, 6, 6, 1, 1, 1, 1, 0, 0, 6, 6, 3},
      {"pointwise_bf16", Type::BF16, 64, 64, 128, 70, 40, 8, 8, 1, 1, 1, 1, 0, 0, 8, 8, 2},
      {"conv3x3_f16", Type::F16, 64, 64, 128, 40, 5, 9, 7, 3, 3, 1, 1, 1, 1, 9, 7, 2},
      {"conv3x3_bf16", Type::BF16, 64, 64, 128, 36, 16, 7, 7, 3, 3, 1, 1, 1, 1, 7, 7, 3},
      {"stem7x7s2_f16", Type::F16, 32, 64, 128, 8, 3, 15, 15, 7, 7, 2, 2, 3, 3, 8, 8, 2},
      {"stem7x7s2_bf16", Type::BF16, 128, 64, 256, 20, 3, 15, 15, 7, 7, 2, 2, 3, 3, 8, 8, 2},
      {"downsample_f16", Type::F16, 128, 128, 256, 20, 12, 10, 10, 1, 1, 2, 2, 0, 0, 5, 5, 3},
  };
  unsigned seed = 100;
  for (const ConvCase &t : cases) {
    const double error = runConv(t, ++seed);
    INFO(t.name << " relative error " << error);
    CHECK(error < kAccumulationBound);
  }
}
