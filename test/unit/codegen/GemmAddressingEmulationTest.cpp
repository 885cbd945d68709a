//===- GemmAddressingEmulationTest.cpp - GEMM blocks past 2^31 elements ---===//
//
// The tensor-core GEMM templates (fusec_gemm.h, fusec_gemm_half.h) start a
// block's rows of A at a 64-bit offset and keep 32-bit offsets inside the
// block. A product whose rows grow with the batch (a transformer layer's
// [batch * seq, K] activations) passes 2^31 elements of A at large batches:
// here one block runs at rows whose offset row * K is past 2^31, on an A
// that is a reservation of address space (PROT_NONE, nothing committed)
// with only that block's rows readable. A 32-bit row offset wraps and reads
// outside the reservation's open rows, which faults.
//
// Values are multiples of 1/8 in [-2, 2], so every product and every sum is
// exact in f32, tf32 and f16: the result must equal the reference exactly.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"
#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

using namespace fusec::test;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"
#include "fusec_gemm_half.h"

// One block of Gemm at rows [blockRow, blockRow + BM) of an M x K by K x N
// product; the epilogue stores the block's rows of C from row 0 of `c`.
template <typename Gemm, typename Element>
__device__ void farBlock(const Element *a, const Element *b, float *c, int m, int n, int k, int blockRow) {
  __shared__ float4 smem[Gemm::kSmemBytes / 16];
  auto epilogue = [&](int row, int col, float value) { c[(row - blockRow) * n + col] = value; };
  typename Gemm::Operand bOperand(b, n);
  Gemm::run(a, k, bOperand, m, n, k, blockRow, 0, reinterpret_cast<float *>(smem), epilogue);
}

using Tf32Gemm = FusecGemmTf32<FusecTileOf<64, 64, 16, 32, 32, 3, 4, 4, 3>, FusecDenseB<false, 4>>;
using HalfGemm = FusecGemmHalf<FusecTileOf<128, 64, 32, 32, 32, 3, 8, 8, 1, fusec_f16>, FusecDenseB<false, 8, fusec_f16>>;

extern "C" __global__ void far_block_tf32(const float *a, const float *b, float *c, int m, int n, int k,
                                          int blockRow) {
  farBlock<Tf32Gemm, float>(a, b, c, m, n, k, blockRow);
}
extern "C" __global__ void far_block_f16(const fusec_f16 *a, const fusec_f16 *b, float *c, int m, int n, int k,
                                         int blockRow) {
  farBlock<HalfGemm, fusec_f16>(a, b, c, m, n, k, blockRow);
}

#ifdef FUSEC_EMULATION
#define FUSEC_FAR_THUNK(NAME, E)                                                                                    \
  extern "C" void NAME##__emulated(void **args) {                                                                   \
    NAME(static_cast<const E *>(args[0]), static_cast<const E *>(args[1]), static_cast<float *>(args[2]),           \
         *static_cast<int *>(args[3]), *static_cast<int *>(args[4]), *static_cast<int *>(args[5]),                  \
         *static_cast<int *>(args[6]));                                                                             \
  }
FUSEC_FAR_THUNK(far_block_tf32, float)
FUSEC_FAR_THUNK(far_block_f16, fusec_f16)
#endif
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// Address space of `bytes` with nothing readable, unmapped when destroyed.
class Reservation {
public:
  explicit Reservation(size_t bytes) : bytes_(bytes) {
    base_ = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  ~Reservation() {
    if (base_ != MAP_FAILED)
      ::munmap(base_, bytes_);
  }
  Reservation(const Reservation &) = delete;
  Reservation &operator=(const Reservation &) = delete;
  bool valid() const { return base_ != MAP_FAILED; }
  char *base() const { return static_cast<char *>(base_); }
  /// Makes [offset, offset + bytes) readable and writable (page-aligned).
  bool open(size_t offset, size_t bytes) const {
    return ::mprotect(base() + offset, bytes, PROT_READ | PROT_WRITE) == 0;
  }

private:
  void *base_;
  size_t bytes_;
};

/// Runs `kernel` for the block at rows [blockRow, blockRow + blockM) of an
/// M x K (M = blockRow + blockM) by K x N product whose A is a reservation,
/// and checks C's block rows against the exact product.
template <typename Element, typename FromFloat>
void checkFarBlock(const std::string &kernel, int blockM, int threads, FromFloat fromFloat) {
  constexpr int k = 256, n = 64;
  // The block's first row offset, blockRow * K, is past 2^31 elements.
  const int blockRow = int((int64_t{1} << 31) / k + 2 * blockM);
  REQUIRE(int64_t(blockRow) * k > (int64_t{1} << 31));
  const int m = blockRow + blockM;
  const size_t rowBytes = size_t(k) * sizeof(Element);
  Reservation a(size_t(m) * rowBytes);
  REQUIRE(a.valid());
  const size_t blockOffset = size_t(blockRow) * rowBytes, blockBytes = size_t(blockM) * rowBytes;
  REQUIRE(blockOffset % size_t(::sysconf(_SC_PAGESIZE)) == 0);
  REQUIRE(a.open(blockOffset, blockBytes));

  std::mt19937 random(7);
  std::uniform_int_distribution<int> eighths(-16, 16);
  std::vector<float> aBlock(size_t(blockM) * k), bValues(size_t(k) * n);
  for (float &value : aBlock)
    value = float(eighths(random)) / 8;
  for (float &value : bValues)
    value = float(eighths(random)) / 8;
  auto *aRows = reinterpret_cast<Element *>(a.base() + blockOffset);
  std::vector<Element> b(bValues.size());
  for (size_t i = 0; i < aBlock.size(); ++i)
    aRows[i] = fromFloat(aBlock[i]);
  for (size_t i = 0; i < bValues.size(); ++i)
    b[i] = fromFloat(bValues[i]);

  std::vector<float> c(size_t(blockM) * n, -1000.0f);
  int mArg = m, nArg = n, kArg = k, rowArg = blockRow;
  kernels().launch(kernel, {1, 1, 1}, {unsigned(threads), 1, 1},
                   {a.base(), b.data(), c.data(), &mArg, &nArg, &kArg, &rowArg});
  for (int row = 0; row < blockM; ++row)
    for (int col = 0; col < n; ++col) {
      double exact = 0;
      for (int i = 0; i < k; ++i)
        exact += double(aBlock[size_t(row) * k + i]) * bValues[size_t(i) * n + col];
      INFO(kernel << ": row " << blockRow + row << ", column " << col);
      REQUIRE(double(c[size_t(row) * n + col]) == exact);
    }
}

} // namespace

TEST_CASE("the 3xTF32 GEMM template reads a block whose rows of A start past 2^31 elements", "[codegen][emulation]") {
  checkFarBlock<float>("far_block_tf32", 64, 128, [](float value) { return value; });
}

TEST_CASE("the f16 GEMM template reads a block whose rows of A start past 2^31 elements", "[codegen][emulation]") {
  // Multiples of 1/8 in [-2, 2] are exact in f16.
  checkFarBlock<uint16_t>("far_block_f16", 128, 256, [](float value) { return fusec::floatToHalfBits(value); });
}
