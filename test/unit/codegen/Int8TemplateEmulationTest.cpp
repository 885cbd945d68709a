//===- Int8TemplateEmulationTest.cpp - The 8-bit GEMM main loop, emulated --===//
//
// FusecMmaGemm with FusecInt8Step (fusec_pipeline.h): u8 or s8 A (M x K,
// row-major) times s8 B (N x K, the weights' layout) on mma.m16n8k32 with
// s32 accumulators, through the same pipeline, copies and staged epilogue
// as the f32 and f16 steps. The sums are exact, so every element of C must
// equal the int64 sum of the products: ragged M, N and K (K past a
// k-tile, not a multiple of BK), 16- and 4-byte copies, two block shapes,
// extreme values (255 x -128 over a whole row). Every buffer sits between
// guard pages, so a read past a tensor faults.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_gemm.h"

template <typename Gemm, typename AElement>
__device__ void gemm(const AElement *a, const signed char *b, int *c, int m, int n, int k) {
  __shared__ float4 smem[(Gemm::kSmemBytes + 15) / 16];
  auto epilogue = [&](int row, int col, int value) { c[static_cast<long long>(row) * n + col] = value; };
  FusecDenseB<true, Gemm::Operand::kVec, signed char> bOperand(b, k);
  Gemm::run(a, k, bOperand, m, n, k, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, smem, epilogue);
}

#define FUSEC_INT8_KERNEL(NAME, A, BM, BN, BK, WM, WN, S, V)                                                       \
  extern "C" __global__ void NAME(const A *a, const signed char *b, int *c, int m, int n, int k) {                  \
    using Tile = FusecTileOf<BM, BN, BK, WM, WN, S, V, V, 1, A>;                                                     \
    gemm<FusecMmaGemm<Tile, FusecDenseB<true, V, signed char>, FusecInt8Step<A>>, A>(a, b, c, m, n, k);           \
  }                                                                                                                 \
  FUSEC_INT8_THUNK(NAME, A)

#ifdef FUSEC_EMULATION
#define FUSEC_INT8_THUNK(NAME, A)                                                                                   \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const A *>(args[0]), static_cast<const signed char *>(args[1]), static_cast<int *>(args[2]),   \
         *static_cast<int *>(args[3]), *static_cast<int *>(args[4]), *static_cast<int *>(args[5]));                 \
  }
#else
#define FUSEC_INT8_THUNK(NAME, A)
#endif

//                name           A              BM   BN  BK   WM  WN  S  V
FUSEC_INT8_KERNEL(u8_64x64_v16,  unsigned char, 64,  64, 64,  32, 32, 3, 16)
FUSEC_INT8_KERNEL(s8_64x64_v16,  signed char,   64,  64, 64,  32, 32, 3, 16)
FUSEC_INT8_KERNEL(u8_128x64_v4,  unsigned char, 128, 64, 128, 64, 32, 2, 4)
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

struct Case {
  const char *kernel;
  bool unsignedA;
  int blockM, blockN;
  int m, n, k;
};

void check(const Case &c) {
  std::mt19937 random(c.m * 131 + c.n * 17 + c.k);
  std::uniform_int_distribution<int> aValue(c.unsignedA ? 0 : -128, c.unsignedA ? 255 : 127), bValue(-128, 127);
  std::vector<int> a(size_t(c.m) * c.k), b(size_t(c.n) * c.k);
  for (int &v : a)
    v = aValue(random);
  for (int &v : b)
    v = bValue(random);
  // The largest magnitudes along row 0 of A and row 0 of B (column 0 of C).
  for (int kk = 0; kk < c.k; ++kk) {
    a[kk] = c.unsignedA ? 255 : -128;
    b[kk] = -128;
  }
  std::vector<uint8_t> aBytes(a.begin(), a.end()), bBytes(b.begin(), b.end());
  // A value no product of these sizes reaches: an element never written.
  std::vector<int> out(size_t(c.m) * c.n, 0x7fffffff);
  int m = c.m, n = c.n, k = c.k;
  kernels().launch(c.kernel, {unsigned((m + c.blockM - 1) / c.blockM), unsigned((n + c.blockN - 1) / c.blockN)}, {128},
                   {aBytes.data(), bBytes.data(), out.data(), &m, &n, &k},
                   {aBytes.size(), bBytes.size(), out.size() * sizeof(int)});
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < n; ++col) {
      int64_t expected = 0;
      for (int kk = 0; kk < k; ++kk)
        expected += int64_t(a[size_t(row) * k + kk]) * b[size_t(col) * k + kk];
      INFO(c.kernel << " " << m << "x" << n << "x" << k << ": C(" << row << ", " << col << ")");
      REQUIRE(out[size_t(row) * n + col] == expected);
    }
}

} // namespace

TEST_CASE("the 8-bit GEMM main loop sums u8/s8 x s8 products exactly on ragged shapes", "[codegen][emul][int8]") {
  for (const Case &c :
       {Case{"u8_64x64_v16", true, 64, 64, 100, 72, 208}, Case{"s8_64x64_v16", false, 64, 64, 64, 64, 64},
        Case{"s8_64x64_v16", false, 64, 64, 17, 9, 48}, Case{"u8_128x64_v4", true, 128, 64, 130, 70, 260},
        Case{"u8_128x64_v4", true, 128, 64, 5, 3, 4}})
    check(c);
}
