//===- fusec_mma_emulation.h - Tensor-core primitives on host threads -*- C++ -*-===//
//
// The host side of fusec_mma.h: the same device functions, for kernels
// compiled with FUSEC_EMULATION against fusec_cuda_emulation.h, where every
// CUDA thread is a host thread.
//
//  * mma.sync and ldmatrix are warp-collective: each lane publishes its
//    operand registers (or its row address) in a table of its warp, the warp
//    meets at a barrier, and each lane reads from the table what the PTX ISA's
//    fragment layout says it receives. Tables alternate between two sets, so
//    one barrier per operation suffices (as for the emulated shuffles).
//  * tf32 operands keep their high 19 bits (the tensor cores ignore the low
//    13); products are exact in f32 for tf32, f16 and bf16, and are added to
//    the accumulator in k order, in f32. 8-bit integer products are summed
//    exactly; a sum past s32's range (which the ISA leaves to .satfinite,
//    and the templates never reach) aborts.
//  * cp.async copies are queued per thread and land in shared memory only
//    when cp.async.wait_group retires their group, so a kernel that reads a
//    stage before waiting for it computes garbage here too. The source is read
//    when the copy is issued (kernels never write what they cp.async).
//
// Misuse a GPU would fault on or leave undefined (a partial warp, misaligned
// addresses, sizes PTX does not have) aborts with a message.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_EMULATION_FUSEC_MMA_EMULATION_H
#define FUSEC_CODEGEN_EMULATION_FUSEC_MMA_EMULATION_H

#include "fusec_cuda_emulation.h"
#include "support/HalfFloat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

#pragma GCC visibility push(hidden)

namespace fusec_emulation {
namespace mma {

constexpr unsigned kWarpSize = 32;
/// The most 32-bit words a lane publishes for one operation (mma: 4 of A and
/// 2 of B; ldmatrix: a 64-bit address).
constexpr unsigned kMaxWords = 6;

[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr, "fusec emulation: %s\n", what);
  std::abort();
}

/// What one warp's lanes publish for warp-collective operations.
struct WarpTable {
  uint32_t words[2][kWarpSize][kMaxWords];
  /// Operations each lane has published so far; selects the set of words.
  unsigned rounds[kWarpSize] = {};
};

/// The table of the calling thread's warp. Tables outlive launches and are
/// found again by warp identity; each host thread remembers its last one.
inline WarpTable &warpTable() {
  static std::mutex mutex;
  static std::unordered_map<const void *, std::unique_ptr<WarpTable>> tables;
  thread_local const void *cachedWarp = nullptr;
  thread_local WarpTable *cachedTable = nullptr;
  const void *warp = warpIdentity();
  if (warp != cachedWarp) {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<WarpTable> &table = tables[warp];
    if (!table)
      table = std::make_unique<WarpTable>();
    cachedWarp = warp;
    cachedTable = table.get();
  }
  return *cachedTable;
}

/// Publishes this lane's `count` words and returns every lane's, after all
/// lanes of the warp have published theirs. The result stays valid until
/// this lane's next-but-one call.
inline const uint32_t (*publish(const uint32_t *mine, unsigned count))[kMaxWords] {
  if ((blockDim.x * blockDim.y * blockDim.z) % kWarpSize != 0)
    fail("warp-collective operations (mma.sync, ldmatrix) need blocks of whole warps");
  WarpTable &table = warpTable();
  const unsigned lane = laneId();
  uint32_t(*words)[kMaxWords] = table.words[table.rounds[lane]++ % 2];
  std::memcpy(words[lane], mine, count * sizeof(uint32_t));
  syncWarp();
  return words;
}

inline float asFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline uint32_t asBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float tf32ToFloat(uint32_t bits) { return asFloat(bits & 0xffffe000u); }

// The f16/bf16 operands as the tensor cores read them: exactly, with the
// conversions the rest of fusec uses.
inline float halfToFloat(uint16_t half) { return fusec::halfBitsToFloat(half); }

inline float bf16ToFloat(uint16_t bf16) { return fusec::bfloat16BitsToFloat(bf16); }

/// Element `half` (0: low, 1: high) of a register holding two 16-bit values.
inline uint16_t halfOf(uint32_t word, unsigned half) { return uint16_t(word >> (16 * half)); }

/// The shared body of the m16n8 mma shapes: `elementA(lane-table, row, k)`
/// and `elementB(lane-table, k, col)` read one operand element out of the
/// published fragments.
template <unsigned K, typename ElementA, typename ElementB>
void mmaM16N8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4], ElementA elementA,
              ElementB elementB) {
  const uint32_t mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  const uint32_t(*fragments)[kMaxWords] = publish(mine, 6);
  const unsigned g = laneId() / 4, t = laneId() % 4;
  float result[4];
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
    float sum = c[i];
    for (unsigned k = 0; k < K; ++k)
      sum += elementA(fragments, row, k) * elementB(fragments, k, col);
    result[i] = sum;
  }
  // d may alias c: write only after reading all of c.
  for (unsigned i = 0; i < 4; ++i)
    d[i] = result[i];
}

/// The f16/bf16 m16n8k16 fragments: A(row, k) sits in lane 4 * (row % 8) +
/// (k % 8) / 2, register (row / 8) + 2 * (k / 8), half k % 2; B(k, col) in
/// lane 4 * col + (k % 8) / 2, register 4 + k / 8, half k % 2.
template <typename Convert>
void mmaM16N8K16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4], Convert convert) {
  mmaM16N8<16>(
      d, a, b, c,
      [&](const uint32_t(*f)[kMaxWords], unsigned row, unsigned k) {
        return convert(halfOf(f[4 * (row % 8) + (k % 8) / 2][row / 8 + 2 * (k / 8)], k % 2));
      },
      [&](const uint32_t(*f)[kMaxWords], unsigned k, unsigned col) {
        return convert(halfOf(f[4 * col + (k % 8) / 2][4 + k / 8], k % 2));
      });
}

/// The 8-bit m16n8k32 fragments (.s8/.u8): A(row, k) sits in lane
/// 4 * (row % 8) + (k % 16) / 4, register (row / 8) + 2 * (k / 16), byte
/// k % 4; B(k, col) in lane 4 * col + (k % 16) / 4, register 4 + k / 16,
/// byte k % 4. A is unsigned when `UnsignedA`; B is signed.
template <bool UnsignedA>
void mmaM16N8K32(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const int (&c)[4]) {
  const uint32_t mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  const uint32_t(*f)[kMaxWords] = publish(mine, 6);
  auto byteOf = [](uint32_t word, unsigned k) { return uint8_t(word >> (8 * (k % 4))); };
  const unsigned g = laneId() / 4, t = laneId() % 4;
  int result[4];
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
    int64_t sum = c[i];
    for (unsigned k = 0; k < 32; ++k) {
      const uint8_t aByte = byteOf(f[4 * (row % 8) + (k % 16) / 4][row / 8 + 2 * (k / 16)], k);
      const uint8_t bByte = byteOf(f[4 * col + (k % 16) / 4][4 + k / 16], k);
      sum += (UnsignedA ? int64_t(aByte) : int64_t(int8_t(aByte))) * int64_t(int8_t(bByte));
    }
    if (sum < INT32_MIN || sum > INT32_MAX)
      fail("mma.m16n8k32 s32 accumulator overflow (no .satfinite)");
    result[i] = int(sum);
  }
  for (unsigned i = 0; i < 4; ++i)
    d[i] = result[i];
}

/// The global-to-shared copies a thread has issued and not yet retired.
struct AsyncCopies {
  struct Copy {
    void *destination;
    unsigned bytes;
    unsigned char data[16];
  };
  /// The block whose copies these are: a block's unretired copies die with it.
  uint3 block = {~0u, ~0u, ~0u};
  std::vector<Copy> uncommitted;
  std::deque<std::vector<Copy>> committed;
};

/// The calling thread's copies, emptied when it starts another block.
inline AsyncCopies &asyncCopies() {
  thread_local AsyncCopies copies;
  if (copies.block.x != blockIdx.x || copies.block.y != blockIdx.y || copies.block.z != blockIdx.z) {
    copies.uncommitted.clear();
    copies.committed.clear();
    copies.block = blockIdx;
  }
  return copies;
}

inline void issueCopy(void *destination, const void *source, unsigned bytes, unsigned sourceBytes) {
  if (reinterpret_cast<uintptr_t>(destination) % bytes != 0 || reinterpret_cast<uintptr_t>(source) % bytes != 0)
    fail("cp.async addresses must be aligned to the copy size");
  if (sourceBytes > bytes)
    fail("cp.async src-size exceeds the copy size");
  AsyncCopies::Copy copy{destination, bytes, {}};
  std::memcpy(copy.data, source, sourceBytes); // the rest stays zero
  asyncCopies().uncommitted.push_back(copy);
}

} // namespace mma
} // namespace fusec_emulation

//===----------------------------------------------------------------------===//
// The device functions of fusec_mma.h
//===----------------------------------------------------------------------===//

// PTX ISA, cvt ("Data Movement and Conversion Instructions"): for .tf32
// the destination is a .b32 holding a tf32; the ISA does not say what its
// bits below tf32's 10 mantissa bits are. The emulation leaves the input's
// low 13 bits there, so code that reads the result as a float without
// clearing them (fusec_to_tf32 does) computes wrong values under emulation.
inline unsigned fusec_cvt_rna_tf32(float x) {
  using namespace fusec_emulation::mma;
  const uint32_t bits = asBits(x), unspecified = bits & 0x1fffu;
  if ((bits & 0x7f800000u) == 0x7f800000u) // infinity stays; NaN stays NaN (quiet)
    return (bits & 0x7fffffu) ? ((bits | 0x400000u) & 0xffffe000u) | unspecified : bits;
  // Adding half a tf32 ulp to the magnitude and truncating rounds half away
  // from zero; a carry into the exponent is the correct rounding up.
  return ((bits + 0x1000u) & 0xffffe000u) | unspecified;
}

inline void fusec_mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const float (&c)[4]) {
  using namespace fusec_emulation::mma;
  // A(row, k) sits in lane 4 * (row % 8) + k % 4, register row / 8 + 2 * (k / 4);
  // B(k, col) in lane 4 * col + k % 4, register 4 + k / 4.
  mmaM16N8<8>(
      d, a, b, c,
      [](const uint32_t(*f)[kMaxWords], unsigned row, unsigned k) {
        return tf32ToFloat(f[4 * (row % 8) + k % 4][row / 8 + 2 * (k / 4)]);
      },
      [](const uint32_t(*f)[kMaxWords], unsigned k, unsigned col) {
        return tf32ToFloat(f[4 * col + k % 4][4 + k / 4]);
      });
}

inline void fusec_mma_m16n8k16_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const float (&c)[4]) {
  fusec_emulation::mma::mmaM16N8K16(d, a, b, c, fusec_emulation::mma::halfToFloat);
}

inline void fusec_mma_m16n8k16_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                    const float (&c)[4]) {
  fusec_emulation::mma::mmaM16N8K16(d, a, b, c, fusec_emulation::mma::bf16ToFloat);
}

inline void fusec_mma_m16n8k32_s8(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const int (&c)[4]) {
  fusec_emulation::mma::mmaM16N8K32<false>(d, a, b, c);
}

inline void fusec_mma_m16n8k32_u8s8(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2], const int (&c)[4]) {
  fusec_emulation::mma::mmaM16N8K32<true>(d, a, b, c);
}

template <int Count, bool Trans> inline void fusec_ldmatrix(unsigned (&r)[Count], const void *rowAddress) {
  static_assert(Count == 1 || Count == 2 || Count == 4, "ldmatrix loads 1, 2 or 4 matrices");
  using namespace fusec_emulation::mma;
  const uintptr_t address = reinterpret_cast<uintptr_t>(rowAddress);
  const unsigned lane = fusec_emulation::laneId();
  if (lane < 8 * Count && address % 16 != 0)
    fail("ldmatrix row addresses must be 16-byte aligned");
  const uint32_t mine[2] = {uint32_t(address), uint32_t(uint64_t(address) >> 32)};
  const uint32_t(*rows)[kMaxWords] = publish(mine, 2);
  auto rowOf = [&](unsigned matrix, unsigned row) {
    const uint32_t *words = rows[8 * matrix + row];
    return reinterpret_cast<const unsigned char *>(uintptr_t(uint64_t(words[0]) | uint64_t(words[1]) << 32));
  };
  const unsigned g = lane / 4, t = lane % 4;
  for (unsigned matrix = 0; matrix < unsigned(Count); ++matrix) {
    uint16_t elements[2];
    if (!Trans) {
      std::memcpy(elements, rowOf(matrix, g) + 4 * t, 4);
    } else {
      std::memcpy(&elements[0], rowOf(matrix, 2 * t) + 2 * g, 2);
      std::memcpy(&elements[1], rowOf(matrix, 2 * t + 1) + 2 * g, 2);
    }
    r[matrix] = uint32_t(elements[0]) | uint32_t(elements[1]) << 16;
  }
}

template <int Bytes>
inline void fusec_cp_async_ca(void *sharedDestination, const void *globalSource, unsigned sourceBytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
  fusec_emulation::mma::issueCopy(sharedDestination, globalSource, Bytes, sourceBytes);
}

inline void fusec_cp_async_cg(void *sharedDestination, const void *globalSource, unsigned sourceBytes) {
  fusec_emulation::mma::issueCopy(sharedDestination, globalSource, 16, sourceBytes);
}

inline void fusec_cp_async_commit() {
  auto &copies = fusec_emulation::mma::asyncCopies();
  copies.committed.push_back(std::move(copies.uncommitted));
  copies.uncommitted.clear();
}

template <int Pending> inline void fusec_cp_async_wait() {
  static_assert(Pending >= 0, "cp.async.wait_group takes a count of groups");
  auto &copies = fusec_emulation::mma::asyncCopies();
  while (copies.committed.size() > unsigned(Pending)) {
    for (const auto &copy : copies.committed.front())
      std::memcpy(copy.destination, copy.data, copy.bytes);
    copies.committed.pop_front();
  }
}

#pragma GCC visibility pop

#endif // FUSEC_CODEGEN_EMULATION_FUSEC_MMA_EMULATION_H
