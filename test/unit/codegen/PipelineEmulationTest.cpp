//===- PipelineEmulationTest.cpp - fusec_pipeline.h under emulation -------===//
//
// The one cp.async multistage pipeline of the sm_80 tensor-core loops
// (FusecPipeline<Stages>, fusec_pipeline.h), alone and with each MMA step it
// is instantiated with:
//
//  * the ring alone, Stages 2 to 5, from no tile to many, starting at tile 0
//    and past it: every round computes on the stage that holds its tile (a
//    thread reads its neighbour's copy, so the barrier is part of it), in
//    tile order, each tile once;
//  * the GEMM main loop (FusecMmaGemm) with FusecTf32Step<1>, FusecTf32Step<3>,
//    FusecHalfStep<fusec_f16> and FusecHalfStep<fusec_bf16>, Stages 2, 3 and
//    4, both B layouts, on ragged shapes of 1 to 13 k-tiles: every element of
//    C equal, bit for bit, to the f32 sum the emulated tensor cores compute
//    in k order (each mma's products added in k order to its accumulator;
//    3xTF32's three products in their order; the zero-filled tail of the
//    last k-tile included), written here from the PTX definitions;
//  * the attention loop (FusecAttentionMma: FusecAttentionHalf and
//    FusecAttentionTf32) over 1 to 5 key tiles of the double buffer, causal
//    and not, against a float64 softmax within each precision's accuracy.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"
#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_attention_half.h"
#include "fusec_attention_tf32.h"
#include "fusec_gemm_half.h"

// The ring alone: 32 threads, tiles of 32 float4s. A round records which
// tile it computed and copies its stage out, each thread its neighbour's
// vector (visible only after the round's barrier).
template <int Stages>
__device__ void ring(const float4 *in, float4 *out, int *order, int first, int count) {
  __shared__ float4 stages[Stages][32];
  const int thread = threadIdx.x;
  int round = 0;
  auto load = [&](int stage, int tile) { fusec_cp_async_cg(&stages[stage][thread], &in[tile * 32 + thread], 16u); };
  auto compute = [&](int stage, int tile) {
    const int neighbour = (thread + 1) % 32;
    out[(tile - first) * 32 + neighbour] = stages[stage][neighbour];
    if (thread == 0)
      order[round] = tile;
    ++round;
  };
  FusecPipeline<Stages>::run(first, count, load, compute);
}

#define FUSEC_RING_KERNEL(STAGES)                                                                                   \
  extern "C" __global__ void ring##STAGES(const float4 *in, float4 *out, int *order, int first, int count) {        \
    ring<STAGES>(in, out, order, first, count);                                                                     \
  }                                                                                                                 \
  FUSEC_RING_THUNK(ring##STAGES)

// The GEMM main loop: C gets the f32 accumulator as it is.
template <typename Gemm, typename Element, bool BT, int BV>
__device__ void gemm(const Element *a, const Element *b, float *c, int lda, int ldb, int ldc, int m, int n, int k) {
  __shared__ float4 smem[Gemm::kSmemFloats / 4]; // float4: 16-byte aligned
  auto epilogue = [&](int row, int col, float value) { c[row * ldc + col] = value; };
  FusecDenseB<BT, BV, Element> bOperand(b, ldb);
  Gemm::run(a, lda, bOperand, m, n, k, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, smem, epilogue);
}

#define FUSEC_GEMM_ARGS(E) const E *a, const E *b, float *c, int lda, int ldb, int ldc, int m, int n, int k
#define FUSEC_TF32_KERNEL(NAME, BM, BN, BK, WM, WN, S, V, BT, PASSES)                                              \
  extern "C" __global__ void NAME(FUSEC_GEMM_ARGS(float)) {                                                         \
    gemm<FusecGemmTf32<FusecTileOf<BM, BN, BK, WM, WN, S, V, V, PASSES>, FusecDenseB<BT, V>>, float, BT, V>(a, b, c, lda, ldb, ldc,  \
                                                                                          m, n, k);                 \
  }                                                                                                                 \
  FUSEC_GEMM_THUNK(NAME, float)
#define FUSEC_HALF_KERNEL(NAME, E, BM, BN, BK, WM, WN, S, V, BT)                                                    \
  extern "C" __global__ void NAME(FUSEC_GEMM_ARGS(E)) {                                                             \
    gemm<FusecGemmHalf<FusecTileOf<BM, BN, BK, WM, WN, S, V, V, 1, E>, FusecDenseB<BT, V, E>>, E, BT, V>(a, b, c, lda, ldb, ldc, m, n, k); \
  }                                                                                                                 \
  FUSEC_GEMM_THUNK(NAME, E)

// The attention loop on one matrix: Q [s, D], K [sk, D], V [sk, DV], rows
// contiguous; O [s, DV].
template <typename Attention, typename Element, int D, int DV>
__device__ void attention(const Element *q, const Element *k, const Element *v, float *o, int s, int sk, int causal) {
  __shared__ float4 smem[Attention::kSmemFloats / 4];
  auto mask = [](long long, long long) { return 0.0f; };
  auto epilogue = [&](long long row, long long col, float value) { o[row * DV + col] = value; };
  Attention::run(q, D, k, D, v, DV, s, sk, 0.25f, causal != 0, (long long)blockIdx.x * Attention::kBlockM, smem, mask,
                 epilogue);
}

#define FUSEC_ATTENTION_ARGS(E) const E *q, const E *k, const E *v, float *o, int s, int sk, int causal
#define FUSEC_ATTENTION_KERNEL(NAME, ATTENTION, E, D, DV)                                                           \
  extern "C" __global__ void NAME(FUSEC_ATTENTION_ARGS(E)) {                                                        \
    attention<ATTENTION, E, D, DV>(q, k, v, o, s, sk, causal);                                                      \
  }                                                                                                                 \
  FUSEC_ATTENTION_THUNK(NAME, E)

#ifdef FUSEC_EMULATION
#define FUSEC_RING_THUNK(NAME)                                                                                      \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const float4 *>(args[0]), static_cast<float4 *>(args[1]), static_cast<int *>(args[2]),         \
         *static_cast<int *>(args[3]), *static_cast<int *>(args[4]));                                               \
  }
#define FUSEC_GEMM_THUNK(NAME, E)                                                                                   \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const E *>(args[0]), static_cast<const E *>(args[1]), static_cast<float *>(args[2]),           \
         *static_cast<int *>(args[3]), *static_cast<int *>(args[4]), *static_cast<int *>(args[5]),                  \
         *static_cast<int *>(args[6]), *static_cast<int *>(args[7]), *static_cast<int *>(args[8]));                 \
  }
#define FUSEC_ATTENTION_THUNK(NAME, E)                                                                              \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const E *>(args[0]), static_cast<const E *>(args[1]), static_cast<const E *>(args[2]),         \
         static_cast<float *>(args[3]), *static_cast<int *>(args[4]), *static_cast<int *>(args[5]),                 \
         *static_cast<int *>(args[6]));                                                                             \
  }
#else
#define FUSEC_RING_THUNK(NAME)
#define FUSEC_GEMM_THUNK(NAME, E)
#define FUSEC_ATTENTION_THUNK(NAME, E)
#endif

FUSEC_RING_KERNEL(2)
FUSEC_RING_KERNEL(3)
FUSEC_RING_KERNEL(4)
FUSEC_RING_KERNEL(5)

//                name           BM  BN  BK  WM  WN  S  V  BT     passes
FUSEC_TF32_KERNEL(tf32_s2_kn_p3, 32, 32, 16, 16, 16, 2, 4, false, 3)
FUSEC_TF32_KERNEL(tf32_s3_nk_p1, 32, 32, 8,  16, 16, 3, 2, true,  1)
FUSEC_TF32_KERNEL(tf32_s4_kn_p1, 64, 64, 16, 32, 32, 4, 4, false, 1)
FUSEC_TF32_KERNEL(tf32_s4_nk_p3, 64, 32, 16, 32, 16, 4, 1, true,  3)
//                name           E           BM  BN  BK  WM  WN  S  V  BT
FUSEC_HALF_KERNEL(half_s2_kn_f16,  fusec_f16,  32, 64, 32, 16, 32, 2, 8, false)
FUSEC_HALF_KERNEL(half_s3_nk_bf16, fusec_bf16, 64, 64, 32, 32, 32, 3, 8, true)
FUSEC_HALF_KERNEL(half_s4_kn_bf16, fusec_bf16, 64, 32, 32, 32, 16, 4, 4, false)
FUSEC_HALF_KERNEL(half_s4_nk_f16,  fusec_f16,  64, 64, 16, 32, 32, 4, 2, true)

// Attention descriptions by name (the members the loops read), as a
// generated kernel defines them: head dims, keys per tile, passes, element.
#define FUSEC_ATTENTION_TILE(NAME, D, DV, BLOCK_N, PASSES, E)                                                     \
  struct NAME {                                                                                                   \
    static constexpr int kHeadDim = D, kValueDim = DV, kBlockN = BLOCK_N, kPasses = PASSES;                       \
    using Element = E;                                                                                            \
  };
FUSEC_ATTENTION_TILE(F16Tile, 32, 16, 32, 1, fusec_f16)
FUSEC_ATTENTION_TILE(Bf16Tile, 16, 32, 64, 1, fusec_bf16)
FUSEC_ATTENTION_TILE(Tf32x3Tile, 16, 24, 32, 3, float)
FUSEC_ATTENTION_TILE(Tf32Tile, 24, 8, 16, 1, float)
using AttentionF16 = FusecAttentionHalf<F16Tile>;
using AttentionBf16 = FusecAttentionHalf<Bf16Tile>;
using Attention3xTf32 = FusecAttentionTf32<Tf32x3Tile>;
using AttentionTf32 = FusecAttentionTf32<Tf32Tile>;
FUSEC_ATTENTION_KERNEL(attention_f16, AttentionF16, fusec_f16, 32, 16)
FUSEC_ATTENTION_KERNEL(attention_bf16, AttentionBf16, fusec_bf16, 16, 32)
FUSEC_ATTENTION_KERNEL(attention_3xtf32, Attention3xTf32, float, 16, 24)
FUSEC_ATTENTION_KERNEL(attention_tf32, AttentionTf32, float, 24, 8)
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// cvt.rna.tf32.f32 with its low 13 bits cleared (fusec_to_tf32), for the
/// finite values of these tests: half a tf32 ulp added to the magnitude,
/// then truncated.
float toTf32(float x) { return floatOf((bitsOf(x) + 0x1000u) & 0xffffe000u); }

enum class Precision { Tf32, Tf32x3, F16, BF16 };

bool isHalf(Precision precision) { return precision == Precision::F16 || precision == Precision::BF16; }

/// A 16-bit element's bits and value.
uint16_t halfBits(Precision precision, float value) {
  return precision == Precision::F16 ? fusec::floatToHalfBits(value) : fusec::floatToBfloat16Bits(value);
}
float halfValue(Precision precision, uint16_t bits) {
  return precision == Precision::F16 ? fusec::halfBitsToFloat(bits) : fusec::bfloat16BitsToFloat(bits);
}

/// Operands as the kernel gets them: f32 values, or 16-bit bits and their
/// values.
struct Matrix {
  std::vector<float> values;
  std::vector<uint16_t> bits;
};

Matrix randomMatrix(Precision precision, size_t count, std::mt19937 &random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Matrix matrix;
  for (size_t i = 0; i < count; ++i) {
    float value = uniform(random);
    if (isHalf(precision)) {
      matrix.bits.push_back(halfBits(precision, value));
      value = halfValue(precision, matrix.bits.back());
    }
    matrix.values.push_back(value);
  }
  return matrix;
}

struct GemmConfig {
  std::string name;
  Precision precision;
  int bm, bn, bk, threads, vec;
  bool bTransposed;
};

struct Shape {
  int m, n, k;
};

/// C(row, col) as the emulated tensor cores sum it: k-tile by k-tile over
/// the padded K (zeros past K), one mma k step (8 or 16) at a time, each
/// mma adding its products in k order to the accumulator in f32; 3xTF32's
/// products small_a big_b, big_a small_b, big_a big_b as three mmas.
float referenceElement(Precision precision, int paddedK, const float *aRow, const float *bColumn, int k) {
  const int step = isHalf(precision) ? 16 : 8;
  float accumulator = 0.0f;
  auto mma = [&](int k0, auto a, auto b) {
    float sum = accumulator;
    for (int kk = k0; kk < k0 + step; ++kk)
      sum += a(kk) * b(kk);
    accumulator = sum;
  };
  auto at = [&](const float *vector) { return [vector, k](int kk) { return kk < k ? vector[kk] : 0.0f; }; };
  for (int k0 = 0; k0 < paddedK; k0 += step) {
    if (isHalf(precision)) {
      mma(k0, at(aRow), at(bColumn));
      continue;
    }
    auto big = [](auto x) { return [x](int kk) { return toTf32(x(kk)); }; };
    auto small = [](auto x) { return [x](int kk) { return toTf32(x(kk) - toTf32(x(kk))); }; };
    if (precision == Precision::Tf32x3) {
      mma(k0, small(at(aRow)), big(at(bColumn)));
      mma(k0, big(at(aRow)), small(at(bColumn)));
    }
    mma(k0, big(at(aRow)), big(at(bColumn)));
  }
  return accumulator;
}

void runGemm(const GemmConfig &config, Shape shape, unsigned seed) {
  const int m = shape.m, n = shape.n, k = shape.k;
  const bool half = isHalf(config.precision);
  // Leading dimensions padded to whole vectors, and one more vector.
  auto padded = [&](int value) { return (value + config.vec - 1) / config.vec * config.vec + config.vec; };
  const int lda = padded(k), ldb = padded(config.bTransposed ? k : n), ldc = n + 3;
  std::mt19937 random(seed);
  const Matrix a = randomMatrix(config.precision, size_t(m) * k, random);
  const Matrix b = randomMatrix(config.precision, size_t(k) * n, random);
  // The kernel's buffers: the padding holds NaN (a read of it poisons C).
  const float nan = NAN;
  const uint16_t halfNan = half ? halfBits(config.precision, nan) : 0;
  std::vector<float> aFloats(size_t(m) * lda, nan), bFloats(size_t(config.bTransposed ? n : k) * ldb, nan);
  std::vector<uint16_t> aHalves(aFloats.size(), halfNan), bHalves(bFloats.size(), halfNan);
  for (int row = 0; row < m; ++row)
    for (int kk = 0; kk < k; ++kk) {
      const size_t at = size_t(row) * lda + kk, from = size_t(row) * k + kk;
      aFloats[at] = a.values[from];
      if (half)
        aHalves[at] = a.bits[from];
    }
  for (int kk = 0; kk < k; ++kk)
    for (int col = 0; col < n; ++col) {
      const size_t at = config.bTransposed ? size_t(col) * ldb + kk : size_t(kk) * ldb + col;
      const size_t from = size_t(kk) * n + col;
      bFloats[at] = b.values[from];
      if (half)
        bHalves[at] = b.bits[from];
    }
  const float untouched = 12345.0f;
  std::vector<float> c(size_t(m) * ldc, untouched);

  const size_t element = half ? 2 : 4;
  void *aData = half ? static_cast<void *>(aHalves.data()) : aFloats.data();
  void *bData = half ? static_cast<void *>(bHalves.data()) : bFloats.data();
  Dim3 grid{unsigned((m + config.bm - 1) / config.bm), unsigned((n + config.bn - 1) / config.bn)};
  int ldaArg = lda, ldbArg = ldb, ldcArg = ldc, mArg = m, nArg = n, kArg = k;
  kernels().launch(config.name, grid, {unsigned(config.threads)},
                   {aData, bData, c.data(), &ldaArg, &ldbArg, &ldcArg, &mArg, &nArg, &kArg},
                   {aFloats.size() * element, bFloats.size() * element, c.size() * 4});

  const int paddedK = (k + config.bk - 1) / config.bk * config.bk;
  std::vector<float> column(k);
  for (int col = 0; col < ldc; ++col) {
    if (col < n)
      for (int kk = 0; kk < k; ++kk)
        column[kk] = b.values[size_t(kk) * n + col];
    for (int row = 0; row < m; ++row) {
      const float got = c[size_t(row) * ldc + col];
      INFO(config.name << " M=" << m << " N=" << n << " K=" << k << " C(" << row << ", " << col << ") = " << got);
      if (col >= n) {
        REQUIRE(got == untouched);
        continue;
      }
      const float expected =
          referenceElement(config.precision, paddedK, a.values.data() + size_t(row) * k, column.data(), k);
      INFO("expected " << expected);
      REQUIRE(bitsOf(got) == bitsOf(expected));
    }
  }
}

struct AttentionConfig {
  std::string name;
  Precision precision;
  int d, dv;
  /// Largest error allowed, against outputs of magnitude up to 1.
  double tolerance;
};

/// Runs the attention kernel on one matrix and returns the largest error
/// against a float64 softmax of the same (rounded) inputs.
double runAttention(const AttentionConfig &config, int s, int sk, bool causal, unsigned seed) {
  std::mt19937 random(seed);
  const Matrix q = randomMatrix(config.precision, size_t(s) * config.d, random);
  const Matrix k = randomMatrix(config.precision, size_t(sk) * config.d, random);
  const Matrix v = randomMatrix(config.precision, size_t(sk) * config.dv, random);
  std::vector<float> o(size_t(s) * config.dv, NAN);
  const bool half = isHalf(config.precision);
  auto data = [&](const Matrix &matrix) -> void * {
    return half ? static_cast<void *>(const_cast<uint16_t *>(matrix.bits.data()))
                : static_cast<void *>(const_cast<float *>(matrix.values.data()));
  };
  const size_t element = half ? 2 : 4;
  int sArg = s, skArg = sk, causalArg = causal ? 1 : 0;
  kernels().launch(config.name, {unsigned((s + 63) / 64)}, {128},
                   {data(q), data(k), data(v), o.data(), &sArg, &skArg, &causalArg},
                   {q.values.size() * element, k.values.size() * element, v.values.size() * element, o.size() * 4});

  double worst = 0.0;
  std::vector<double> weights(sk);
  for (int row = 0; row < s; ++row) {
    const int keys = causal ? row + (sk - s) + 1 : sk;
    double maximum = -INFINITY, sum = 0.0;
    for (int key = 0; key < keys; ++key) {
      double score = 0.0;
      for (int i = 0; i < config.d; ++i)
        score += double(q.values[size_t(row) * config.d + i]) * k.values[size_t(key) * config.d + i];
      weights[key] = 0.25 * score;
      maximum = std::max(maximum, weights[key]);
    }
    for (int key = 0; key < keys; ++key)
      sum += weights[key] = std::exp(weights[key] - maximum);
    for (int col = 0; col < config.dv; ++col) {
      double expected = 0.0;
      for (int key = 0; key < keys; ++key)
        expected += weights[key] * v.values[size_t(key) * config.dv + col];
      expected /= sum;
      const float got = o[size_t(row) * config.dv + col];
      INFO(config.name << " S=" << s << " SK=" << sk << (causal ? " causal" : "") << " O(" << row << ", " << col
                       << ") = " << got << ", expected " << expected);
      REQUIRE(std::isfinite(got));
      worst = std::max(worst, std::fabs(got - expected));
    }
  }
  return worst;
}

} // namespace

TEST_CASE("emul: the pipeline's ring hands every round the stage its tile landed in", "[codegen][emul][pipeline]") {
  const int tiles = 16;
  std::vector<float> input(size_t(tiles) * 32 * 4);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = float(i);
  for (int stages = 2; stages <= 5; ++stages)
    for (int first : {0, 5})
      for (int count : {0, 1, 2, 3, 4, 5, 7, 11}) {
        INFO("Stages " << stages << ", tiles " << first << " .. " << first + count - 1);
        std::vector<float> output(size_t(count) * 32 * 4 + 4, NAN);
        std::vector<int> order(size_t(count) + 1, -1);
        int firstArg = first, countArg = count;
        kernels().launch("ring" + std::to_string(stages), {1}, {32},
                         {input.data(), output.data(), order.data(), &firstArg, &countArg},
                         {input.size() * 4, output.size() * 4, order.size() * 4});
        for (int round = 0; round < count; ++round) {
          INFO("round " << round);
          CHECK(order[round] == first + round);
          for (int i = 0; i < 32 * 4; ++i)
            REQUIRE(output[size_t(round) * 128 + i] == input[size_t(first + round) * 128 + i]);
        }
        CHECK(order[count] == -1);
      }
}

TEST_CASE("emul: the pipeline with each MMA step sums every GEMM element in k order, bit for bit",
          "[codegen][emul][pipeline][gemm]") {
  const std::vector<GemmConfig> configs = {
      {"tf32_s2_kn_p3", Precision::Tf32x3, 32, 32, 16, 128, 4, false},
      {"tf32_s3_nk_p1", Precision::Tf32, 32, 32, 8, 128, 2, true},
      {"tf32_s4_kn_p1", Precision::Tf32, 64, 64, 16, 128, 4, false},
      {"tf32_s4_nk_p3", Precision::Tf32x3, 64, 32, 16, 128, 1, true},
      {"half_s2_kn_f16", Precision::F16, 32, 64, 32, 128, 8, false},
      {"half_s3_nk_bf16", Precision::BF16, 64, 64, 32, 128, 8, true},
      {"half_s4_kn_bf16", Precision::BF16, 64, 32, 32, 128, 4, false},
      {"half_s4_nk_f16", Precision::F16, 64, 64, 16, 128, 2, true},
  };
  // K from one k-tile to more than the ring holds (BK 8 to 32: 1 to 13).
  const std::vector<Shape> shapes = {{5, 7, 3}, {37, 45, 53}, {64, 64, 64}, {70, 29, 100}, {1, 70, 19}};
  unsigned seed = 0;
  for (const GemmConfig &config : configs)
    for (const Shape &shape : shapes)
      runGemm(config, shape, ++seed);
}

TEST_CASE("emul: the attention loop runs its key tiles through the pipeline with each MMA step",
          "[codegen][emul][pipeline][attention]") {
  // 3xTF32 about 1e-6 relative, tf32 about 1e-3, P rounded to f16 (2^-11)
  // or bf16 (2^-8) on top of operands rounded to them.
  const std::vector<AttentionConfig> configs = {
      {"attention_f16", Precision::F16, 32, 16, 1e-3},
      {"attention_bf16", Precision::BF16, 16, 32, 5e-3},
      {"attention_3xtf32", Precision::Tf32x3, 16, 24, 1e-6},
      {"attention_tf32", Precision::Tf32, 24, 8, 1e-3},
  };
  unsigned seed = 100;
  for (const AttentionConfig &config : configs)
    // Key tiles of 16 to 64 keys: one tile, a ragged second, five.
    for (auto [s, sk, causal] :
         {std::tuple{7, 5, false}, {70, 33, false}, {70, 150, false}, {70, 150, true}, {100, 100, true}}) {
      const double error = runAttention(config, s, sk, causal, ++seed);
      INFO(config.name << " S=" << s << " SK=" << sk << (causal ? " causal" : "") << ": largest error " << error);
      CHECK(error < config.tolerance);
    }
}
