//===- GemmEmulationTest.cpp - fusec_gemm.h's main loop under emulation ---===//
//
// The tensor-core GEMM template, instantiated for several tile, pipeline,
// vector-width, B-layout and precision configurations, runs on ragged shapes
// (M, N, K not multiples of the tiles, smaller than a tile) and is checked
// against a float64 product computed here: every element of C inside the
// shape written once with the epilogue's value, nothing outside it, and
// nothing read past the tensors (their padding holds NaN).
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
#include "fusec_gemm.h"

// The epilogue under test: C = value + bias[col], at (row, col).
struct BiasEpilogue {
  float *c;
  int ldc;
  const float *bias;
  __device__ void operator()(int row, int col, float value) const { c[row * ldc + col] = value + bias[col]; }
};

template <typename Gemm, typename BOperand, int BM, int BN>
__device__ void gemm(const float *a, int lda, const float *b, int ldb, float *c, int ldc, const float *bias, int m,
                     int n, int k) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4]; // float4: 16-byte aligned
  BiasEpilogue epilogue{c, ldc, bias};
  BOperand bOperand(b, ldb);
  Gemm::run(a, lda, bOperand, m, n, k, blockIdx.x * BM, blockIdx.y * BN, reinterpret_cast<float *>(smem), epilogue);
}

// NAME: a kernel for FusecGemmTf32 on the tile BM x BN x BK, warps WM x WN, STAGES, VEC-element copies and
// PASSES (FusecTileOf), B FusecDenseB<BT, VEC>.
#define FUSEC_GEMM_KERNEL(NAME, BM, BN, BK, WM, WN, STAGES, VEC, BT, PASSES)                                      \
  extern "C" __global__ void NAME(const float *a, int lda, const float *b, int ldb, float *c, int ldc,             \
                                  const float *bias, int m, int n, int k) {                                         \
    gemm<FusecGemmTf32<FusecTileOf<BM, BN, BK, WM, WN, STAGES, VEC, VEC, PASSES>, FusecDenseB<BT, VEC>>, FusecDenseB<BT, VEC>, BM, BN>( \
        a, lda, b, ldb, c, ldc, bias, m, n, k);                                                                     \
  }                                                                                                                 \
  FUSEC_GEMM_THUNK(NAME)

#ifdef FUSEC_EMULATION
#define FUSEC_GEMM_THUNK(NAME)                                                                                      \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const float *>(args[0]), *static_cast<int *>(args[1]), static_cast<const float *>(args[2]),    \
         *static_cast<int *>(args[3]), static_cast<float *>(args[4]), *static_cast<int *>(args[5]),                 \
         static_cast<const float *>(args[6]), *static_cast<int *>(args[7]), *static_cast<int *>(args[8]),           \
         *static_cast<int *>(args[9]));                                                                             \
  }
#else
#define FUSEC_GEMM_THUNK(NAME)
#endif

FUSEC_GEMM_KERNEL(gemm_32x32x16_w16x16_s3_v4_kn_tf32, 32, 32, 16, 16, 16, 3, 4, false, 1)
FUSEC_GEMM_KERNEL(gemm_32x32x16_w16x16_s3_v4_kn_3xtf32, 32, 32, 16, 16, 16, 3, 4, false, 3)
FUSEC_GEMM_KERNEL(gemm_64x32x16_w32x16_s4_v1_nk_3xtf32, 64, 32, 16, 32, 16, 4, 1, true, 3)
FUSEC_GEMM_KERNEL(gemm_32x64x32_w32x32_s3_v2_kn_3xtf32, 32, 64, 32, 32, 32, 3, 2, false, 3)
FUSEC_GEMM_KERNEL(gemm_64x64x32_w32x32_s3_v4_nk_3xtf32, 64, 64, 32, 32, 32, 3, 4, true, 3)
// fusec's large tile: its epilogue goes through shared memory in two chunks.
FUSEC_GEMM_KERNEL(gemm_128x128x16_w64x32_s3_v4_kn_3xtf32, 128, 128, 16, 64, 32, 3, 4, false, 3)
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

struct Config {
  std::string name;
  int bm, bn, threads, vec;
  bool bTransposed;
};

struct Shape {
  int m, n, k;
};

/// The largest error of the kernel's C against the float64 product, each
/// divided by sum_k |a b| + |bias| (the size of what was added up).
double runAndMeasure(const Config &config, Shape shape, unsigned seed) {
  const int m = shape.m, n = shape.n, k = shape.k;
  auto roundUp = [&](int value) { return (value + config.vec - 1) / config.vec * config.vec; };
  // Leading dimensions with padding (a multiple of the vector width), which
  // holds NaN: a read of it would poison C.
  const int lda = roundUp(k) + config.vec, ldb = roundUp(config.bTransposed ? k : n) + config.vec, ldc = n + 3;
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(size_t(m) * lda, NAN), b(size_t(config.bTransposed ? n : k) * ldb, NAN), bias(n);
  for (int row = 0; row < m; ++row)
    for (int kk = 0; kk < k; ++kk)
      a[size_t(row) * lda + kk] = uniform(random);
  auto bAt = [&](int kk, int col) -> float & {
    return config.bTransposed ? b[size_t(col) * ldb + kk] : b[size_t(kk) * ldb + col];
  };
  for (int kk = 0; kk < k; ++kk)
    for (int col = 0; col < n; ++col)
      bAt(kk, col) = uniform(random);
  for (float &value : bias)
    value = uniform(random);
  const float untouched = 12345.0f;
  std::vector<float> c(size_t(m) * ldc, untouched);

  Dim3 grid{unsigned((m + config.bm - 1) / config.bm), unsigned((n + config.bn - 1) / config.bn)};
  int mArg = m, nArg = n, kArg = k, ldaArg = lda, ldbArg = ldb, ldcArg = ldc;
  kernels().launch(config.name, grid, {unsigned(config.threads)},
                   {a.data(), &ldaArg, b.data(), &ldbArg, c.data(), &ldcArg, bias.data(), &mArg, &nArg, &kArg});

  double worst = 0.0;
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < ldc; ++col) {
      const float got = c[size_t(row) * ldc + col];
      INFO(config.name << " M=" << m << " N=" << n << " K=" << k << " C(" << row << ", " << col << ") = " << got);
      if (col >= n) {
        REQUIRE(got == untouched);
        continue;
      }
      double exact = bias[col], magnitude = std::fabs(bias[col]);
      for (int kk = 0; kk < k; ++kk) {
        exact += double(a[size_t(row) * lda + kk]) * bAt(kk, col);
        magnitude += std::fabs(double(a[size_t(row) * lda + kk]) * bAt(kk, col));
      }
      REQUIRE(std::isfinite(got));
      REQUIRE(got != untouched);
      worst = std::max(worst, std::fabs(got - exact) / magnitude);
    }
  return worst;
}

const std::vector<Shape> kRaggedShapes = {
    {37, 45, 53},             // every tail ragged
    {70, 29, 100}, {5, 7, 3}, // smaller than one tile and one k-step
    {64, 64, 64},             // whole tiles
    {1, 70, 19},              // one row (a batch-1 classifier's shape)
};

} // namespace

TEST_CASE("the 3xTF32 GEMM template matches a float64 product on ragged shapes", "[codegen][gemm]") {
  const std::vector<Config> configs = {
      {"gemm_32x32x16_w16x16_s3_v4_kn_3xtf32", 32, 32, 128, 4, false},
      {"gemm_64x32x16_w32x16_s4_v1_nk_3xtf32", 64, 32, 128, 1, true},
      {"gemm_32x64x32_w32x32_s3_v2_kn_3xtf32", 32, 64, 64, 2, false},
      {"gemm_64x64x32_w32x32_s3_v4_nk_3xtf32", 64, 64, 128, 4, true},
      {"gemm_128x128x16_w64x32_s3_v4_kn_3xtf32", 128, 128, 256, 4, false},
  };
  unsigned seed = 0;
  for (const Config &config : configs)
    for (const Shape &shape : kRaggedShapes) {
      const double error = runAndMeasure(config, shape, ++seed);
      INFO(config.name << " M=" << shape.m << " N=" << shape.n << " K=" << shape.k << " relative error " << error);
      // fp32 accuracy: well inside the rtol 1e-4 the models are held to.
      CHECK(error < 2e-6);
    }
}

TEST_CASE("plain TF32 is 1e-3 accurate, and the 3xTF32 split is what makes the template fp32-accurate",
          "[codegen][gemm]") {
  const Shape shape{37, 45, 53};
  const double tf32 = runAndMeasure({"gemm_32x32x16_w16x16_s3_v4_kn_tf32", 32, 32, 128, 4, false}, shape, 99);
  const double split = runAndMeasure({"gemm_32x32x16_w16x16_s3_v4_kn_3xtf32", 32, 32, 128, 4, false}, shape, 99);
  INFO("relative error: tf32 " << tf32 << ", 3xtf32 " << split);
  CHECK(tf32 < 2e-3);
  CHECK(tf32 > 1e-5);
  CHECK(split < tf32 / 100);
}
