//===- GemmSm90EmulationTest.cpp - fusec_gemm_sm90.h under emulation ------===//
//
// The Hopper GEMM (producer warpgroup, TMA into an mbarrier ring, wgmma
// consumers) on ragged shapes, f16 and bf16, against a scalar reference;
// its tile descriptions spelled with FusecSm90TileOf<BlockN, Stages,
// Element, ConsumerGroups, BNMajor>.
// Operands are multiples of 1/8, so every product and sum is exact in f32
// and the comparison is exact.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"
#include "fusec_tensor_map_emulation.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

using namespace fusec::test;
namespace tma = fusec_emulation::tma;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_gemm_sm90.h"

struct StoreEpilogue {
  float *c;
  int ldc;
  __device__ void operator()(int row, int col, float value) const { c[row * ldc + col] = value; }
};

template <class Gemm>
__device__ void gemmCase(float *c, const FusecTensorMap *a, const FusecTensorMap *b, int m, int n, int k) {
  StoreEpilogue epilogue{c, n};
  Gemm::run(a, b, m, n, k, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN, epilogue);
}

extern "C" __global__ void gemm(float *c, const FusecTensorMap *a, const FusecTensorMap *b, int m, int n, int k,
                                int variant) {
  switch (variant) {
  case 0: gemmCase<FusecGemmSm90<FusecSm90TileOf<128, 4, fusec_f16, 2>>>(c, a, b, m, n, k); break;
  case 1: gemmCase<FusecGemmSm90<FusecSm90TileOf<64, 3, fusec_bf16, 1>>>(c, a, b, m, n, k); break;
  case 2: gemmCase<FusecGemmSm90<FusecSm90TileOf<256, 3, fusec_f16, 2>>>(c, a, b, m, n, k); break;
  case 3: gemmCase<FusecGemmSm90<FusecSm90TileOf<128, 4, fusec_f16, 2, true>>>(c, a, b, m, n, k); break;
  default: gemmCase<FusecGemmSm90<FusecSm90TileOf<64, 3, fusec_bf16, 1, true>>>(c, a, b, m, n, k); break;
  }
}

#ifdef FUSEC_EMULATION
extern "C" void gemm__emulated(void **args) {
  gemm(static_cast<float *>(args[0]), static_cast<const FusecTensorMap *>(args[1]),
       static_cast<const FusecTensorMap *>(args[2]), *static_cast<int *>(args[3]), *static_cast<int *>(args[4]),
       *static_cast<int *>(args[5]), *static_cast<int *>(args[6]));
}
#endif
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// f16 or bf16 bits of a multiple of 1/8 in [-2, 2].
uint16_t toBits(float value, bool bf16) {
  if (bf16)
    return uint16_t(bitsOf(value) >> 16);
  if (value == 0.0f)
    return 0;
  const uint32_t bits = bitsOf(value), exponent = (bits >> 23) & 0xff;
  return uint16_t((bits >> 16 & 0x8000u) | (exponent - 112) << 10 | (bits >> 13 & 0x3ffu));
}

std::vector<float> eighths(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> numerator(-16, 16);
  std::vector<float> values(count);
  for (float &value : values)
    value = numerator(random) / 8.0f;
  return values;
}

struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

struct Variant {
  int index, blockM, blockN;
  bool bf16;
  /// B stored K x N.
  bool nMajor = false;
};

/// C = A B^T for A (m x k) and B (n x k), through the template's tensor
/// maps (boxes of 64 x blockM and 64 x blockN, 128-byte swizzle; an
/// N-major B is stored k x n, boxes of 64 x 64).
void checkGemm(const Variant &variant, int m, int n, int k) {
  const std::vector<float> a = eighths(size_t(m) * k, 1 + m), b = eighths(size_t(n) * k, 2 + n);
  std::vector<uint16_t> aBits(a.size()), bBits(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    aBits[i] = toBits(a[i], variant.bf16);
  for (size_t i = 0; i < b.size(); ++i)
    bBits[i] = toBits(b[i], variant.bf16);
  if (variant.nMajor) { // the same B stored k x n
    std::vector<uint16_t> stored(bBits.size());
    for (int col = 0; col < n; ++col)
      for (int kk = 0; kk < k; ++kk)
        stored[size_t(kk) * n + col] = bBits[size_t(col) * k + kk];
    bBits = stored;
  }
  TensorMap mapA, mapB;
  const uint64_t dimsA[2] = {uint64_t(k), uint64_t(m)};
  const uint64_t dimsB[2] = {uint64_t(variant.nMajor ? n : k), uint64_t(variant.nMajor ? k : n)};
  const uint64_t stridesA[1] = {uint64_t(k) * 2}, stridesB[1] = {uint64_t(variant.nMajor ? n : k) * 2};
  const uint32_t boxA[2] = {64, uint32_t(variant.blockM)};
  const uint32_t boxB[2] = {64, uint32_t(variant.nMajor ? 64 : variant.blockN)};
  tma::encodeTiled(mapA.bytes, 2, 2, aBits.data(), dimsA, stridesA, boxA, tma::Swizzle::Bytes128);
  tma::encodeTiled(mapB.bytes, 2, 2, bBits.data(), dimsB, stridesB, boxB, tma::Swizzle::Bytes128);
  std::vector<float> c(size_t(m) * n, NAN);
  int mArg = m, nArg = n, kArg = k, index = variant.index;
  const unsigned threads = 128 * (variant.blockM / 64 + 1);
  kernels().launch(
      "gemm",
      {unsigned((n + variant.blockN - 1) / variant.blockN), unsigned((m + variant.blockM - 1) / variant.blockM)},
      {threads}, {c.data(), mapA.bytes, mapB.bytes, &mArg, &nArg, &kArg, &index}, {c.size() * 4});
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < n; ++col) {
      double expected = 0.0;
      for (int kk = 0; kk < k; ++kk)
        expected += double(a[size_t(row) * k + kk]) * b[size_t(col) * k + kk];
      INFO("C(" << row << ", " << col << ") of " << m << " x " << n << " x " << k);
      REQUIRE(c[size_t(row) * n + col] == float(expected));
    }
}

} // namespace

TEST_CASE("the Hopper GEMM template matches the reference on ragged shapes in emulation", "[codegen][sm90]") {
  SECTION("f16, 128 x 128 tiles, 4 stages: ragged M, N and K, more k-tiles than stages") {
    checkGemm({0, 128, 128, false}, 200, 300, 5 * 64 + 8);
  }
  SECTION("bf16, 64 x 64 tiles, 3 stages, one consumer warpgroup") { checkGemm({1, 64, 64, true}, 70, 130, 456); }
  SECTION("f16, 128 x 256 tiles: K shorter than one k-tile") { checkGemm({2, 128, 256, false}, 129, 260, 24); }
  SECTION("f16, N-major B, 128 x 128 tiles: N not a multiple of 64") {
    checkGemm({3, 128, 128, false, true}, 150, 200, 3 * 64 + 16);
  }
  SECTION("bf16, N-major B, 64 x 64 tiles") { checkGemm({4, 64, 64, true, true}, 65, 72, 200); }
}
