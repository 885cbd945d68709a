//===- Sm90EmulationTest.cpp - fusec_sm90.h primitives under emulation ----===//
//
// The Hopper primitives of codegen/include/fusec_sm90.h run in small
// kernels under the emulation, checked against layouts stated here
// independently of the emulation's code:
//
//  * TMA: a 2-D box lands in shared memory row after row (a 4-D box with
//    traversal strides, every stride-th element, densely), out-of-bounds
//    elements zero, and with the 128-byte swizzle the 16-byte chunk c of a
//    128-byte row r sits at chunk c ^ (r % 8) (64-byte: rows of 64 bytes,
//    chunk c ^ ((r / 2) % 4)); the mbarrier's phase completes on the box's
//    byte count.
//  * wgmma m64nNk16: operands written into shared memory by the kernel with
//    that same chunk rule (or, for A, the unswizzled K-major layout of 8 x
//    16-byte core matrices), the descriptor advanced 32 bytes per k16 step,
//    and the accumulator read back by the fragment table of fusec_sm90.h's
//    header comment; D = A B^T (+ C) exactly.
//  * mbarrier: a producer and 128 consumers hand values through a ring of
//    two slots for many rounds, by phase parity.
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
#include "fusec_sm90.h"

// One TMA copy into shared memory at offset 0 (issue(smem, barrier), by
// thread 0, for boxBytes bytes), then its raw bytes to `out`.
template <class Issue> __device__ void boxToOut(unsigned char *out, int boxBytes, Issue issue) {
  unsigned char *smem = fusec_dynamic_shared();
  unsigned long long *barrier = reinterpret_cast<unsigned long long *>(smem + 131072);
  if (threadIdx.x == 0) {
    fusec_mbarrier_init(barrier, 1);
    fusec_mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    fusec_mbarrier_arrive_expect_tx(barrier, boxBytes);
    issue(smem, barrier);
  }
  fusec_mbarrier_wait(barrier, 0);
  for (int i = threadIdx.x; i < boxBytes; i += blockDim.x)
    out[i] = smem[i];
}

// One box of `map` at (x, y).
extern "C" __global__ void tma_box(unsigned char *out, const FusecTensorMap *map, int x, int y, int boxBytes) {
  boxToOut(out, boxBytes,
           [&](unsigned char *smem, unsigned long long *barrier) { fusec_tma_load_2d(smem, map, barrier, x, y); });
}

// One box of a rank-4 `map` at (x, y, z, w). swapped != 0: a planted kernel
// mistake, the two middle coordinates passed the wrong way round.
extern "C" __global__ void tma_box_4d(unsigned char *out, const FusecTensorMap *map, int x, int y, int z, int w,
                                      int boxBytes, int swapped) {
  boxToOut(out, boxBytes, [&](unsigned char *smem, unsigned long long *barrier) {
    if (swapped)
      fusec_tma_load_4d(smem, map, barrier, x, z, y, w);
    else
      fusec_tma_load_4d(smem, map, barrier, x, y, z, w);
  });
}

// The byte offset of 16-bit element (row, k) of a K-major tile of 64-element
// rows with the 128-byte swizzle: chunk k / 8 of row `row` at chunk
// (k / 8) ^ (row % 8).
__device__ int swizzledOffset(int row, int k) { return row * 128 + (((k / 8) ^ (row % 8)) * 16) + (k % 8) * 2; }

// One warpgroup: A (64 x 64) and B (N x 64) as 16-bit bits, row-major (K
// contiguous), into swizzled tiles; D = A B^T (+ C when accumulate) through
// four k16 steps; d[thread * N/2 + i] is the thread's register i.
template <int N, bool Bf16>
__device__ void wgmmaCase(const unsigned short *a, const unsigned short *b, const float *c, float *d,
                          int accumulate, int groups) {
  unsigned char *smem = fusec_dynamic_shared();
  unsigned char *tileA = smem, *tileB = smem + 64 * 128;
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    *reinterpret_cast<unsigned short *>(tileA + swizzledOffset(i / 64, i % 64)) = a[i];
  for (int i = threadIdx.x; i < N * 64; i += blockDim.x)
    *reinterpret_cast<unsigned short *>(tileB + swizzledOffset(i / 64, i % 64)) = b[i];
  fusec_fence_proxy_async(); // wgmma reads shared memory through the async proxy
  __syncthreads();
  float acc[N / 2];
  for (int i = 0; i < N / 2; ++i)
    acc[i] = c[threadIdx.x * (N / 2) + i];
  const unsigned long long descA = fusec_wgmma_descriptor(fusec_sm90_shared_address(tileA));
  const unsigned long long descB = fusec_wgmma_descriptor(fusec_sm90_shared_address(tileB));
  fusec_wgmma_fence();
  for (int kk = 0; kk < 4; ++kk) {
    // 32 bytes along K are 2 in the descriptor's address field (>> 4).
    fusec_wgmma<N, Bf16>(acc, descA + 2 * kk, descB + 2 * kk, kk > 0 || accumulate);
    if (groups == 4 || kk == 3)
      fusec_wgmma_commit();
  }
  // groups == 0: a planted kernel mistake, reading the accumulators before
  // the wait; they hold what they held before the wgmma.
  if (groups == 0)
    for (int i = 0; i < N / 2; ++i)
      d[threadIdx.x * (N / 2) + i] = acc[i];
  fusec_wgmma_wait<0>();
  fusec_wgmma_fence_operands(acc);
  if (groups != 0)
    for (int i = 0; i < N / 2; ++i)
      d[threadIdx.x * (N / 2) + i] = acc[i];
}

// B given K x N (row-major, N contiguous) into N-major tiles: 64-wide N
// blocks of 64 K rows (128 bytes each, 8 KiB a block), chunk c of row k at
// chunk c ^ (k % 8); the descriptor's blocks 8 KiB apart, 2048 bytes (16
// rows) per k16 step. D = A B (+ C).
template <int N, bool Bf16>
__device__ void wgmmaNMajorCase(const unsigned short *a, const unsigned short *b, const float *c, float *d) {
  unsigned char *smem = fusec_dynamic_shared();
  unsigned char *tileA = smem, *tileB = smem + 64 * 128;
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    *reinterpret_cast<unsigned short *>(tileA + swizzledOffset(i / 64, i % 64)) = a[i];
  for (int i = threadIdx.x; i < 64 * N; i += blockDim.x) {
    const int k = i / N, n = i % N;
    *reinterpret_cast<unsigned short *>(tileB + (n / 64) * 8192 + swizzledOffset(k, n % 64)) = b[i];
  }
  fusec_fence_proxy_async();
  __syncthreads();
  float acc[N / 2];
  for (int i = 0; i < N / 2; ++i)
    acc[i] = c[threadIdx.x * (N / 2) + i];
  const unsigned long long descA = fusec_wgmma_descriptor(fusec_sm90_shared_address(tileA));
  const unsigned long long descB = fusec_wgmma_descriptor_mn(fusec_sm90_shared_address(tileB), 8192);
  fusec_wgmma_fence();
  for (int kk = 0; kk < 4; ++kk)
    fusec_wgmma<N, Bf16, true>(acc, descA + 2 * kk, descB + 128 * kk, 1);
  fusec_wgmma_commit();
  fusec_wgmma_wait<0>();
  fusec_wgmma_fence_operands(acc);
  for (int i = 0; i < N / 2; ++i)
    d[threadIdx.x * (N / 2) + i] = acc[i];
}

extern "C" __global__ void wgmma_nmajor(const unsigned short *a, const unsigned short *b, const float *c, float *d,
                                        int n, int bf16) {
  if (n == 128 && !bf16)
    wgmmaNMajorCase<128, false>(a, b, c, d);
  else
    wgmmaNMajorCase<64, true>(a, b, c, d);
}

// A (64 x 64) in the K-major layout without swizzle: core matrix (row / 8,
// k / 8) at (k / 8) * 1024 + (row / 8) * 128, its 8 rows 16 bytes apart
// (so each group of 8 k is one column of core matrices, as a 16-byte-wide
// TMA box lands); B (64 x 64) K-major with the 128-byte swizzle.
// D = A B^T through four k16 steps, each two K groups (2048 bytes) on.
// swapOffsets != 0: a planted kernel mistake, the descriptor's leading
// (along K) and stride (along M) offsets exchanged.
extern "C" __global__ void wgmma_interleaved(const unsigned short *a, const unsigned short *b, float *d,
                                             int swapOffsets) {
  unsigned char *smem = fusec_dynamic_shared();
  unsigned char *tileA = smem, *tileB = smem + 8192;
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    const int row = i / 64, k = i % 64;
    *reinterpret_cast<unsigned short *>(tileA + (k / 8) * 1024 + (row / 8) * 128 + (row % 8) * 16 + (k % 8) * 2) =
        a[i];
  }
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
    *reinterpret_cast<unsigned short *>(tileB + swizzledOffset(i / 64, i % 64)) = b[i];
  fusec_fence_proxy_async();
  __syncthreads();
  float acc[32];
  for (int i = 0; i < 32; ++i)
    acc[i] = 0.0f;
  const unsigned addressA = fusec_sm90_shared_address(tileA);
  const unsigned long long descB = fusec_wgmma_descriptor(fusec_sm90_shared_address(tileB));
  fusec_wgmma_fence();
  for (int kk = 0; kk < 4; ++kk) {
    const unsigned start = addressA + kk * 2048;
    const unsigned long long descA = swapOffsets ? fusec_wgmma_descriptor_interleaved(start, 128, 1024)
                                                 : fusec_wgmma_descriptor_interleaved(start, 1024, 128);
    fusec_wgmma<64, false>(acc, descA, descB + 2 * kk, kk > 0);
  }
  fusec_wgmma_commit();
  fusec_wgmma_wait<0>();
  fusec_wgmma_fence_operands(acc);
  for (int i = 0; i < 32; ++i)
    d[threadIdx.x * 32 + i] = acc[i];
}

extern "C" __global__ void wgmma(const unsigned short *a, const unsigned short *b, const float *c, float *d, int n,
                                 int bf16, int accumulate, int groups) {
  if (n == 64 && !bf16)
    wgmmaCase<64, false>(a, b, c, d, accumulate, groups);
  else if (n == 128 && !bf16)
    wgmmaCase<128, false>(a, b, c, d, accumulate, groups);
  else if (n == 256 && !bf16)
    wgmmaCase<256, false>(a, b, c, d, accumulate, groups);
  else if (n == 64)
    wgmmaCase<64, true>(a, b, c, d, accumulate, groups);
  else if (n == 128)
    wgmmaCase<128, true>(a, b, c, d, accumulate, groups);
  else
    wgmmaCase<256, true>(a, b, c, d, accumulate, groups);
}

// Thread 0 produces `rounds` values through two slots; threads 128..255
// consume every one and record it. full[s]: one arrival (the producer);
// empty[s]: 128 (the consumers).
extern "C" __global__ void ring(float *seen, int rounds) {
  unsigned char *smem = fusec_dynamic_shared();
  unsigned long long *full = reinterpret_cast<unsigned long long *>(smem);
  unsigned long long *empty = full + 2;
  float *slots = reinterpret_cast<float *>(smem + 64);
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      fusec_mbarrier_init(&full[s], 1);
      fusec_mbarrier_init(&empty[s], 128);
    }
    fusec_mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int r = 0; r < rounds; ++r) {
      const int s = r % 2;
      // A fresh barrier's phase of parity 1 counts as completed: the first
      // pass over each slot does not wait.
      fusec_mbarrier_wait(&empty[s], ((r / 2) & 1) ^ 1);
      slots[s] = 1.0f + r;
      fusec_mbarrier_arrive(&full[s]);
    }
  } else if (threadIdx.x >= 128) {
    const int consumer = threadIdx.x - 128;
    for (int r = 0; r < rounds; ++r) {
      const int s = r % 2;
      fusec_mbarrier_wait(&full[s], (r / 2) & 1);
      seen[consumer * rounds + r] = slots[s];
      fusec_mbarrier_arrive(&empty[s]);
    }
  }
}

#ifdef FUSEC_EMULATION
extern "C" void tma_box__emulated(void **args) {
  tma_box(static_cast<unsigned char *>(args[0]), static_cast<const FusecTensorMap *>(args[1]),
          *static_cast<int *>(args[2]), *static_cast<int *>(args[3]), *static_cast<int *>(args[4]));
}
extern "C" void tma_box_4d__emulated(void **args) {
  auto integer = [&](int i) { return *static_cast<int *>(args[i]); };
  tma_box_4d(static_cast<unsigned char *>(args[0]), static_cast<const FusecTensorMap *>(args[1]), integer(2),
             integer(3), integer(4), integer(5), integer(6), integer(7));
}
extern "C" void wgmma__emulated(void **args) {
  wgmma(static_cast<const unsigned short *>(args[0]), static_cast<const unsigned short *>(args[1]),
        static_cast<const float *>(args[2]), static_cast<float *>(args[3]), *static_cast<int *>(args[4]),
        *static_cast<int *>(args[5]), *static_cast<int *>(args[6]), *static_cast<int *>(args[7]));
}
extern "C" void wgmma_nmajor__emulated(void **args) {
  wgmma_nmajor(static_cast<const unsigned short *>(args[0]), static_cast<const unsigned short *>(args[1]),
               static_cast<const float *>(args[2]), static_cast<float *>(args[3]), *static_cast<int *>(args[4]),
               *static_cast<int *>(args[5]));
}
extern "C" void wgmma_interleaved__emulated(void **args) {
  wgmma_interleaved(static_cast<const unsigned short *>(args[0]), static_cast<const unsigned short *>(args[1]),
                    static_cast<float *>(args[2]), *static_cast<int *>(args[3]));
}
extern "C" void ring__emulated(void **args) { ring(static_cast<float *>(args[0]), *static_cast<int *>(args[1])); }
#endif
)cuda";

const EmulatedModule &kernels() {
  static const EmulatedModule module = EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

/// f16 bits of a multiple of 1/8 in [-2, 2] (exact in f16).
uint16_t toHalf(float value) {
  if (value == 0.0f)
    return 0;
  const uint32_t bits = bitsOf(value), exponent = (bits >> 23) & 0xff;
  return uint16_t((bits >> 16 & 0x8000u) | (exponent - 112) << 10 | (bits >> 13 & 0x3ffu));
}

uint16_t toBf16(float value) { return uint16_t(bitsOf(value) >> 16); }

std::vector<float> eighths(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> numerator(-16, 16);
  std::vector<float> values(count);
  for (float &value : values)
    value = numerator(random) / 8.0f;
  return values;
}

/// A 64-byte-aligned CUtensorMap's bytes.
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// Loads the box of `box0` x `box1` 16-bit elements at (x, y) of a `dim0` x
/// `dim1` tensor (dim0 innermost, rows `stride` bytes apart) and checks
/// every byte of shared memory against `placed(row, column)`, the byte
/// offset the swizzle gives element (column, row) of the box.
template <typename Placed>
void checkBox(uint32_t dim0, uint32_t dim1, uint64_t strideBytes, uint32_t box0, uint32_t box1, int x, int y,
              tma::Swizzle swizzle, Placed placed) {
  std::vector<uint16_t> tensor(strideBytes / 2 * dim1);
  for (size_t i = 0; i < tensor.size(); ++i)
    tensor[i] = uint16_t(0x8000u | (i * 40503u % 0x7fffu) | 1u); // never 0: a zero shows a fill
  TensorMap map;
  const uint64_t dims[2] = {dim0, dim1}, strides[1] = {strideBytes};
  const uint32_t box[2] = {box0, box1};
  tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, strides, box, swizzle);
  int boxBytes = int(box0 * box1 * 2);
  std::vector<unsigned char> out(boxBytes);
  kernels().launch("tma_box", {1}, {128}, {out.data(), map.bytes, &x, &y, &boxBytes}, {out.size()});
  for (uint32_t row = 0; row < box1; ++row)
    for (uint32_t col = 0; col < box0; ++col) {
      const int64_t gx = int64_t(x) + col, gy = int64_t(y) + row;
      const bool inside = gx >= 0 && gy >= 0 && gx < int64_t(dim0) && gy < int64_t(dim1);
      const uint16_t expected = inside ? tensor[gy * (strideBytes / 2) + gx] : 0;
      uint16_t got;
      std::memcpy(&got, &out[placed(row, col)], 2);
      INFO("box element (" << col << ", " << row << ") from (" << gx << ", " << gy << ")");
      REQUIRE(got == expected);
    }
}

} // namespace

TEST_CASE("emulated TMA 2-D loads place the box by the swizzle and zero what lies outside", "[codegen][sm90]") {
  // 72 x 100 f16 (rows padded to 160 bytes); boxes of 64 x 32.
  auto noSwizzle = [](uint32_t row, uint32_t col) { return row * 128 + col * 2; };
  auto swizzle128 = [](uint32_t row, uint32_t col) { return row * 128 + (((col / 8) ^ (row % 8)) * 16) + col % 8 * 2; };
  SECTION("inside, no swizzle") { checkBox(72, 100, 160, 64, 32, 8, 4, tma::Swizzle::None, noSwizzle); }
  SECTION("inside, 128-byte swizzle") { checkBox(72, 100, 160, 64, 32, 8, 4, tma::Swizzle::Bytes128, swizzle128); }
  SECTION("past both ends, 128-byte swizzle") {
    checkBox(72, 100, 160, 64, 32, 32, 80, tma::Swizzle::Bytes128, swizzle128);
  }
  SECTION("before both starts, 128-byte swizzle") {
    checkBox(72, 100, 160, 64, 32, -24, -5, tma::Swizzle::Bytes128, swizzle128);
  }
  SECTION("64-byte swizzle on 64-byte rows") {
    checkBox(72, 100, 160, 32, 16, 40, 90, tma::Swizzle::Bytes64,
             [](uint32_t row, uint32_t col) { return row * 64 + (((col / 8) ^ ((row / 2) % 4)) * 16) + col % 8 * 2; });
  }
}

namespace {

/// An NHWC image's 4-D box as a conv reads one filter tap: `box` = {64
/// channels, columns, rows, images} at (c, x, y, n) with traversal strides
/// {1, sx, sy, 1}, the 128-byte swizzle. Returns how many box elements
/// differ from the scalar rule: element (i0, i1, i2, i3) of the box comes
/// from (c + i0, x + sx i1, y + sy i2, n + i3), zero outside the image, and
/// lands at byte row * 128 + ((i0 / 8) ^ (row % 8)) * 16 + (i0 % 8) * 2 for
/// row = i1 + b1 (i2 + b2 i3), b1 and b2 the elements per dimension.
size_t boxMismatches(const uint64_t (&dims)[4], const uint32_t (&box)[4], const uint32_t (&steps)[4],
                     const int (&at)[4], bool swapped) {
  std::vector<uint16_t> tensor(dims[0] * dims[1] * dims[2] * dims[3]);
  for (size_t i = 0; i < tensor.size(); ++i)
    tensor[i] = uint16_t(0x8000u | (i * 40503u % 0x7fffu) | 1u);
  const uint64_t strides[3] = {dims[0] * 2, dims[0] * dims[1] * 2, dims[0] * dims[1] * dims[2] * 2};
  TensorMap map;
  tma::encodeTiled(map.bytes, 2, 4, tensor.data(), dims, strides, box, tma::Swizzle::Bytes128, steps);
  const uint32_t counts[4] = {box[0], (box[1] + steps[1] - 1) / steps[1], (box[2] + steps[2] - 1) / steps[2], box[3]};
  int boxBytes = int(counts[0] * counts[1] * counts[2] * counts[3] * 2), swappedArg = swapped;
  int x = at[0], y = at[1], z = at[2], w = at[3];
  std::vector<unsigned char> out(boxBytes);
  kernels().launch("tma_box_4d", {1}, {128}, {out.data(), map.bytes, &x, &y, &z, &w, &boxBytes, &swappedArg},
                   {out.size()});
  size_t mismatches = 0;
  for (uint32_t i3 = 0; i3 < counts[3]; ++i3)
    for (uint32_t i2 = 0; i2 < counts[2]; ++i2)
      for (uint32_t i1 = 0; i1 < counts[1]; ++i1)
        for (uint32_t i0 = 0; i0 < counts[0]; ++i0) {
          const int64_t g[4] = {int64_t(at[0]) + i0, int64_t(at[1]) + int64_t(steps[1]) * i1,
                                int64_t(at[2]) + int64_t(steps[2]) * i2, int64_t(at[3]) + i3};
          bool inside = true;
          for (int d = 0; d < 4; ++d)
            inside = inside && g[d] >= 0 && g[d] < int64_t(dims[d]);
          const uint16_t expected =
              inside ? tensor[((g[3] * dims[2] + g[2]) * dims[1] + g[1]) * dims[0] + g[0]] : uint16_t(0);
          const uint32_t row = i1 + counts[1] * (i2 + counts[2] * i3);
          uint16_t got;
          std::memcpy(&got, &out[row * 128 + ((i0 / 8) ^ (row % 8)) * 16 + (i0 % 8) * 2], 2);
          mismatches += got != expected;
        }
  return mismatches;
}

} // namespace

TEST_CASE("emulated TMA 4-D loads traverse an NHWC image with element strides, zero outside", "[codegen][sm90]") {
  // 2 images of 9 x 11 pixels, 72 channels.
  const uint64_t dims[4] = {72, 11, 9, 2};
  SECTION("stride 1, the box before the image's start (padding)") {
    CHECK(boxMismatches(dims, {64, 8, 4, 1}, {1, 1, 1, 1}, {0, -1, -1, 1}, false) == 0);
  }
  SECTION("stride 2 along both spatial dimensions, past the image's end") {
    CHECK(boxMismatches(dims, {64, 16, 8, 1}, {1, 2, 2, 1}, {8, -1, 3, 0}, false) == 0);
  }
  SECTION("stride 3 along the width only, two images, an odd box") {
    CHECK(boxMismatches(dims, {64, 10, 3, 2}, {1, 3, 1, 1}, {0, 2, 7, 0}, false) == 0);
  }
  SECTION("a planted mistake, the middle coordinates swapped, shows") {
    CHECK(boxMismatches(dims, {64, 16, 8, 1}, {1, 2, 2, 1}, {8, -1, 3, 0}, true) > 0);
  }
}

TEST_CASE("tensor maps are refused where cuTensorMapEncodeTiled refuses them", "[codegen][sm90]") {
  TensorMap map;
  std::vector<uint16_t> tensor(64 * 64);
  const uint64_t dims[2] = {64, 64};
  const uint32_t box[2] = {64, 64}, wideBox[2] = {128, 8};
  const uint64_t oddStride[1] = {136}, stride[1] = {128};
  CHECK_THROWS_WITH(tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, oddStride, box, tma::Swizzle::Bytes128),
                    Catch::Contains("multiple of 16"));
  CHECK_THROWS_WITH(tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, stride, wideBox, tma::Swizzle::Bytes128),
                    Catch::Contains("exceeds the 128-byte swizzle span"));
  const uint32_t bigBox[2] = {64, 512};
  CHECK_THROWS_WITH(tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, stride, bigBox, tma::Swizzle::Bytes128),
                    Catch::Contains("outside [1, 256]"));
  CHECK_NOTHROW(tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, stride, box, tma::Swizzle::Bytes128));
  const uint32_t tooLong[2] = {1, 9};
  CHECK_THROWS_WITH(
      tma::encodeTiled(map.bytes, 2, 2, tensor.data(), dims, stride, box, tma::Swizzle::Bytes128, tooLong),
      Catch::Contains("element stride 1 is 9, outside [1, 8]"));
}

namespace {

/// Runs the wgmma kernel for N x bf16 and checks every accumulator register
/// against D = A B^T (+ C) by the fragment table: register i of thread t
/// (warp w = t / 32, g = lane / 4, q = lane % 4) is
/// D(16w + g + 8 ((i / 2) % 2), 8 (i / 4) + 2q + i % 2).
void checkWgmma(int n, bool bf16, bool accumulate, int groups, bool nMajor = false) {
  const std::vector<float> a = eighths(64 * 64, 10 + n), b = eighths(size_t(n) * 64, 20 + n), c = eighths(64 * n, 30);
  std::vector<uint16_t> aBits(a.size()), bBits(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    aBits[i] = bf16 ? toBf16(a[i]) : toHalf(a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    bBits[i] = bf16 ? toBf16(b[i]) : toHalf(b[i]);
  const int registers = n / 2;
  std::vector<float> cFragments(128 * registers), d(128 * registers, NAN);
  auto element = [&](int thread, int i) {
    const int warp = thread / 32, lane = thread % 32;
    return std::pair<int, int>{16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
  };
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < registers; ++i) {
      auto [row, col] = element(t, i);
      cFragments[t * registers + i] = c[row * n + col];
    }
  int nArg = n, bf16Arg = bf16, accumulateArg = accumulate, groupsArg = groups;
  if (nMajor) {
    // The same B, stored K x N.
    std::vector<uint16_t> bKN(bBits.size());
    for (int col = 0; col < n; ++col)
      for (int k = 0; k < 64; ++k)
        bKN[size_t(k) * n + col] = bBits[size_t(col) * 64 + k];
    kernels().launch("wgmma_nmajor", {1}, {128},
                     {aBits.data(), bKN.data(), cFragments.data(), d.data(), &nArg, &bf16Arg},
                     {aBits.size() * 2, bKN.size() * 2, cFragments.size() * 4, d.size() * 4});
  } else {
    kernels().launch(
        "wgmma", {1}, {128},
        {aBits.data(), bBits.data(), cFragments.data(), d.data(), &nArg, &bf16Arg, &accumulateArg, &groupsArg},
        {aBits.size() * 2, bBits.size() * 2, cFragments.size() * 4, d.size() * 4});
  }
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < registers; ++i) {
      auto [row, col] = element(t, i);
      double expected = accumulate || groups == 0 ? c[row * n + col] : 0.0;
      for (int k = 0; k < 64 && groups != 0; ++k)
        expected += double(a[row * 64 + k]) * b[col * 64 + k];
      INFO("N " << n << (bf16 ? " bf16" : " f16") << ", thread " << t << " register " << i << " = D(" << row << ", "
                << col << ")");
      REQUIRE(d[t * registers + i] == float(expected));
    }
}

} // namespace

TEST_CASE("emulated wgmma m64nNk16 reads swizzled K-major operands and follows the accumulator layout",
          "[codegen][sm90]") {
  SECTION("f16, N 64, accumulating, one group per k16 step") { checkWgmma(64, false, true, 4); }
  SECTION("f16, N 128, scale-d 0 on the first step") { checkWgmma(128, false, false, 1); }
  SECTION("bf16, N 256, accumulating") { checkWgmma(256, true, true, 1); }
  SECTION("bf16, N 64, scale-d 0 on the first step, one group per step") { checkWgmma(64, true, false, 4); }
}

TEST_CASE("emulated wgmma reads an N-major B (imm-trans-b 1) through its MN-major descriptor", "[codegen][sm90]") {
  SECTION("f16, N 128: two 64-wide N blocks") { checkWgmma(128, false, true, 1, true); }
  SECTION("bf16, N 64") { checkWgmma(64, true, true, 1, true); }
}

namespace {

/// Runs wgmma_interleaved and counts the accumulator registers that differ
/// from D = A B^T (f16 eighths: exact in f32), read by the fragment table.
size_t interleavedMismatches(bool swapOffsets) {
  const std::vector<float> a = eighths(64 * 64, 40), b = eighths(64 * 64, 41);
  std::vector<uint16_t> aBits(a.size()), bBits(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    aBits[i] = toHalf(a[i]);
    bBits[i] = toHalf(b[i]);
  }
  std::vector<float> d(128 * 32, NAN);
  int swapArg = swapOffsets;
  kernels().launch("wgmma_interleaved", {1}, {128}, {aBits.data(), bBits.data(), d.data(), &swapArg},
                   {aBits.size() * 2, bBits.size() * 2, d.size() * 4});
  size_t mismatches = 0;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 32; ++i) {
      const int warp = t / 32, lane = t % 32;
      const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      double expected = 0;
      for (int k = 0; k < 64; ++k)
        expected += double(a[row * 64 + k]) * b[col * 64 + k];
      mismatches += d[t * 32 + i] != float(expected);
    }
  return mismatches;
}

} // namespace

TEST_CASE("emulated wgmma reads a K-major operand without swizzle through its core-matrix offsets", "[codegen][sm90]") {
  CHECK(interleavedMismatches(false) == 0);
  // The planted mistake: the leading and stride offsets exchanged.
  CHECK(interleavedMismatches(true) > 0);
}

TEST_CASE("emulated wgmma is asynchronous: accumulators read before wgmma.wait_group are unchanged",
          "[codegen][sm90]") {
  // The kernel's mistake (groups 0) must show in its results, as it would on
  // a GPU, where such a read is undefined.
  checkWgmma(64, false, true, 0);
}

TEST_CASE("emulated mbarriers hand values from a producer to 128 consumers by phase parity", "[codegen][sm90]") {
  int rounds = 40;
  std::vector<float> seen(128 * rounds, NAN);
  kernels().launch("ring", {2}, {256}, {seen.data(), &rounds}, {seen.size() * 4});
  for (int consumer = 0; consumer < 128; ++consumer)
    for (int r = 0; r < rounds; ++r) {
      INFO("consumer " << consumer << ", round " << r);
      REQUIRE(seen[consumer * rounds + r] == 1.0f + r);
    }
}
