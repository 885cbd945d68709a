//===- fusec_sm90_emulation.h - Hopper primitives on host threads -*- C++ -*-===//
//
// The host side of fusec_sm90.h, for kernels compiled with FUSEC_EMULATION
// against fusec_cuda_emulation.h, where every CUDA thread is a host thread.
// Each primitive does what the PTX ISA says the instruction does, and aborts
// with a message where a GPU would fault, hang or leave the result undefined:
//
//  * Dynamic shared memory is one 227 KiB array (the most a Hopper block
//    may use), 1024-byte aligned and poisoned before every block like the
//    rest of __shared__ memory. Shared addresses (what descriptors and
//    fusec_sm90_shared_address hold) are offsets into it, so address bits
//    the swizzles read are those of the offset, as on the GPU where the
//    array starts 1024-byte aligned.
//  * mbarrier (PTX ISA, "Parallel Synchronization and Communication
//    Instructions: mbarrier"): a phase completes when its pending arrival
//    count reaches zero and its transaction count is zero; then the phase
//    parity flips and the arrival count is reloaded. try_wait.parity P
//    succeeds once the current phase's parity differs from P. Arriving more
//    often than the count, or using a barrier this block did not
//    initialise, aborts. A wait that does not complete within 60 s aborts
//    (a GPU would hang).
//  * cp.async.bulk.tensor (tile mode, "Tensor Copy" and "Tensor-map"):
//    the box at the given coordinates (2 to 4 of them) is written to shared
//    memory densely, innermost dimension first, ceil(box / traversal
//    stride) elements per dimension, elements outside the tensor as zeros, then
//    the swizzle of the map permutes 16-byte chunks of each address (bits
//    4.. XOR bits 7..: one bit for 32 B, two for 64 B, three for 128 B).
//    The copy lands at once and completes the box's full byte count (out of
//    bounds elements included) on the mbarrier.
//  * wgmma.mma_async ("Asynchronous Warpgroup Level Matrix Multiply-
//    Accumulate"): queued per thread and executed only when
//    wgmma.wait_group retires its group, reading the shared-memory operands
//    then. A kernel that reads the accumulators or overwrites an operand
//    before the wait computes garbage here too. A wgmma needs a wgmma.fence
//    since the thread's last wait (or the start): the ISA requires one
//    before the first wgmma and after any other access to the registers.
//    Each thread computes its own accumulator elements from the operands'
//    descriptors; products are exact in f32, summed in k order.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_EMULATION_FUSEC_SM90_EMULATION_H
#define FUSEC_CODEGEN_EMULATION_FUSEC_SM90_EMULATION_H

#include "fusec_cuda_emulation.h"
#include "fusec_tensor_map_emulation.h"
#include "support/HalfFloat.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#ifndef __grid_constant__
#define __grid_constant__
#endif

#pragma GCC visibility push(hidden)

namespace fusec_emulation::sm90 {

constexpr uint32_t kDynamicSharedBytes = 227 * 1024;
constexpr unsigned kWarpgroupThreads = 128;

[[noreturn]] inline void fail(const std::string &what) {
  std::fprintf(stderr, "fusec emulation: %s\n", what.c_str());
  std::abort();
}

// The block's dynamic shared memory, in the section the launch poisons.
static __attribute__((section("fusec_shared"), aligned(1024))) unsigned char dynamicShared[kDynamicSharedBytes];

/// The shared address (offset into dynamic shared memory) of `bytes` at
/// `pointer`, which must lie inside it.
inline uint32_t sharedOffset(const void *pointer, uint64_t bytes, const char *what) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer), base = reinterpret_cast<uintptr_t>(dynamicShared);
  if (address < base || address + bytes > base + kDynamicSharedBytes)
    fail(std::string(what) + ": the operand is not in fusec_dynamic_shared() (" + std::to_string(bytes) + " bytes)");
  return uint32_t(address - base);
}

inline unsigned char *sharedAt(uint64_t offset, uint64_t bytes, const char *what) {
  if (offset + bytes > kDynamicSharedBytes)
    fail(std::string(what) + ": shared address " + std::to_string(offset) + " + " + std::to_string(bytes) +
         " bytes is past the 227 KiB of shared memory");
  return dynamicShared + offset;
}

/// `address` after the swizzle of `span` bytes (0: none): bits 4.. of the
/// address XORed with bits 7.. (log2(span / 16) of them).
inline uint64_t swizzle(uint64_t address, uint32_t span) {
  if (span == 0)
    return address;
  const uint64_t mask = span / 16 - 1;
  return address ^ (((address >> 7) & mask) << 4);
}

//===--------------------------------------------------------------------===//
// mbarrier
//===--------------------------------------------------------------------===//

struct MBarrier {
  uint32_t expected = 0; // arrivals per phase
  int64_t pending = 0;   // arrivals still missing in the current phase
  int64_t tx = 0;        // transaction bytes expected and not yet completed
  uint32_t phase = 0;    // phases completed
};

struct MBarriers {
  std::mutex mutex;
  std::condition_variable changed;
  std::unordered_map<uint32_t, MBarrier> states; // by shared address; node-based, so references stay valid
};

inline MBarriers &mbarriers() {
  static MBarriers barriers;
  return barriers;
}

/// What mbarrier.init leaves in the barrier's 8 bytes here: poisoned bytes
/// (a barrier this block did not initialise) never match it.
inline uint64_t initialisedMarker(uint32_t offset) { return 0x6d62617272696572ull ^ offset; }

inline uint32_t barrierOffset(const unsigned long long *barrier, const char *what) {
  const uint32_t offset = sharedOffset(barrier, 8, what);
  if (offset % 8 != 0)
    fail(std::string(what) + ": the mbarrier is not 8-byte aligned");
  return offset;
}

/// The barrier's state; the caller holds the lock.
inline MBarrier &initialised(const unsigned long long *barrier, uint32_t offset, const char *what) {
  uint64_t word;
  std::memcpy(&word, barrier, 8);
  auto it = mbarriers().states.find(offset);
  if (word != initialisedMarker(offset) || it == mbarriers().states.end())
    fail(std::string(what) + ": the mbarrier at shared address " + std::to_string(offset) +
         " was not initialised in this block (mbarrier.init)");
  return it->second;
}

/// Completes the phase if nothing is missing; the caller holds the lock.
inline void completeIfDone(MBarrier &state) {
  if (state.pending == 0 && state.tx == 0) {
    ++state.phase;
    state.pending = state.expected;
    mbarriers().changed.notify_all();
  }
}

inline void init(unsigned long long *barrier, unsigned count) {
  const uint32_t offset = barrierOffset(barrier, "mbarrier.init");
  if (count < 1 || count > (1u << 20) - 1)
    fail("mbarrier.init: the count must be in [1, 2^20 - 1]");
  std::lock_guard<std::mutex> lock(mbarriers().mutex);
  MBarrier &state = mbarriers().states[offset];
  state = MBarrier{count, count, 0, 0};
  const uint64_t marker = initialisedMarker(offset);
  std::memcpy(barrier, &marker, 8);
}

inline void arrive(unsigned long long *barrier, int64_t expectBytes, const char *what) {
  const uint32_t offset = barrierOffset(barrier, what);
  std::lock_guard<std::mutex> lock(mbarriers().mutex);
  MBarrier &state = initialised(barrier, offset, what);
  state.tx += expectBytes;
  if (--state.pending < 0)
    fail(std::string(what) + ": more arrivals than the mbarrier's count in one phase");
  completeIfDone(state);
}

inline void completeTx(unsigned long long *barrier, int64_t bytes, const char *what) {
  const uint32_t offset = barrierOffset(barrier, what);
  std::lock_guard<std::mutex> lock(mbarriers().mutex);
  MBarrier &state = initialised(barrier, offset, what);
  state.tx -= bytes;
  completeIfDone(state);
}

inline void wait(unsigned long long *barrier, unsigned parity) {
  const char *what = "mbarrier.try_wait.parity";
  const uint32_t offset = barrierOffset(barrier, what);
  std::unique_lock<std::mutex> lock(mbarriers().mutex);
  MBarrier &state = initialised(barrier, offset, what);
  if (!mbarriers().changed.wait_for(lock, std::chrono::seconds(60), [&] { return (state.phase & 1) != (parity & 1); }))
    fail(std::string(what) + ": the phase of parity " + std::to_string(parity & 1) +
         " of the mbarrier at shared address " + std::to_string(offset) +
         " did not complete within 60 s (a GPU would hang)");
}

//===--------------------------------------------------------------------===//
// TMA
//===--------------------------------------------------------------------===//

/// cp.async.bulk.tensor.Nd ... .tile: the box of `map` whose first element
/// is at `coords` (innermost first, signed: a box may start before the
/// tensor). Along dimension d it takes ceil(box[d] / stride[d]) elements,
/// coords[d] + i * stride[d] (the traversal stride), and writes them to
/// shared memory densely, innermost first, through the map's swizzle;
/// elements outside the tensor are zeros. The box's full byte count
/// completes on `barrier`.
inline void loadTile(void *destination, const void *map, unsigned long long *barrier, const int *coords,
                     uint32_t rank) {
  const std::string what = "cp.async.bulk.tensor." + std::to_string(rank) + "d";
  tma::TiledMap encoded;
  std::memcpy(&encoded, map, sizeof encoded);
  if (encoded.magic != tma::kMagic)
    fail(what + ": the tensor map was not encoded (cuTensorMapEncodeTiled)");
  if (encoded.rank != rank)
    fail(what + ": the tensor map has rank " + std::to_string(encoded.rank) + ", not " + std::to_string(rank));
  const uint32_t elementBytes = encoded.elementBytes;
  uint32_t counts[tma::kMaxRank];
  uint64_t elements = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    counts[d] = tma::boxElements(encoded, d);
    elements *= counts[d];
  }
  const uint64_t boxBytes = elements * elementBytes;
  const uint32_t start = sharedOffset(destination, boxBytes, what.c_str());
  if (start % 128 != 0)
    fail(what + ": the shared-memory destination must be 128-byte aligned");
  const auto *global = reinterpret_cast<const unsigned char *>(uintptr_t(encoded.global));
  for (uint64_t linear = 0; linear < elements; ++linear) {
    uint64_t rest = linear, offset = 0;
    bool inside = true;
    for (uint32_t d = 0; d < rank; ++d) {
      const uint64_t index = rest % counts[d];
      rest /= counts[d];
      const int64_t at = int64_t(coords[d]) + int64_t(index) * encoded.elementStrides[d];
      inside = inside && at >= 0 && uint64_t(at) < encoded.dims[d];
      if (inside)
        offset += d == 0 ? uint64_t(at) * elementBytes : uint64_t(at) * encoded.strides[d - 1];
    }
    unsigned char *to =
        sharedAt(swizzle(start + linear * elementBytes, uint32_t(encoded.swizzle)), elementBytes, what.c_str());
    if (inside)
      std::memcpy(to, global + offset, elementBytes);
    else
      std::memset(to, 0, elementBytes);
  }
  completeTx(barrier, int64_t(boxBytes), what.c_str());
}

//===--------------------------------------------------------------------===//
// wgmma
//===--------------------------------------------------------------------===//

/// One element of a K-major 16-bit operand: row `row` (of M or N), column
/// `k` (< 16) of the matrix `descriptor` describes (PTX ISA, "Matrix
/// Descriptor Format" and "Shared Memory Matrix Layout", the canonical
/// 128-byte-swizzle layouts, K-major or MN-major, and the K-major layout
/// without swizzle), the swizzle applied to the address.
inline uint16_t operandElement(uint64_t descriptor, uint32_t row, uint32_t k, bool mnMajor) {
  const uint64_t start = (descriptor & 0x3fff) << 4, leading = ((descriptor >> 16) & 0x3fff) << 4,
                 stride = ((descriptor >> 32) & 0x3fff) << 4, baseOffset = (descriptor >> 49) & 0x7,
                 mode = descriptor >> 62;
  if (baseOffset != 0)
    fail("wgmma: matrix descriptors with a base offset are not emulated (tiles must be pattern-aligned)");
  if (mode == 0) {
    // No swizzle ("Shared Memory Matrix Layout", the canonical K-major
    // layout without swizzling): core matrices of 8 rows by 16 bytes, rows
    // 16 bytes apart, `leading` bytes between core matrices along K and
    // `stride` bytes between those along M or N.
    if (mnMajor)
      fail("wgmma: an MN-major operand without swizzle is not emulated (fusec reads MN-major B 128-byte swizzled)");
    const uint64_t address = start + (row / 8) * stride + (row % 8) * 16 + (k / 8) * leading + (k % 8) * 2;
    uint16_t element;
    std::memcpy(&element, sharedAt(address, 2, "wgmma operand"), 2);
    return element;
  }
  if (mode != 1)
    fail("wgmma: descriptor mode " + std::to_string(mode) +
         " (64- or 32-byte swizzle) is not emulated; fusec's layouts are the 128-byte swizzle and no swizzle");
  // K-major: 8-row atoms of 128-byte rows, `stride` apart; the leading
  // offset is unused (K = 16 lies within one row). MN-major: rows of 64
  // MN-elements, one per k, 8-k atoms `stride` apart, 64-wide MN blocks
  // `leading` apart.
  const uint64_t address =
      mnMajor ? swizzle(start + (row / 64) * leading + (k / 8) * stride + (k % 8) * 128 + (row % 64) * 2, 128)
              : swizzle(start + (row / 8) * stride + (row % 8) * 128 + k * 2, 128);
  uint16_t element;
  std::memcpy(&element, sharedAt(address, 2, "wgmma operand"), 2);
  return element;
}

struct QueuedMma {
  float *d;
  uint32_t n;
  uint64_t descA, descB;
  bool accumulate, bf16, transB;
};

struct WgmmaQueue {
  std::vector<QueuedMma> open;
  std::deque<std::vector<QueuedMma>> committed;
  bool fenced = false;
};

inline thread_local WgmmaQueue wgmmaQueue;

/// The calling thread's index in its warpgroup.
inline uint32_t warpgroupThread() {
  const uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
  if (threads % kWarpgroupThreads != 0)
    fail("wgmma needs blocks of whole warpgroups (128 threads)");
  const uint32_t linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return linear % kWarpgroupThreads;
}

inline void execute(const QueuedMma &mma) {
  const uint32_t thread = warpgroupThread(), warp = thread / 32, lane = thread % 32;
  auto value = [&](uint16_t bits) {
    return mma.bf16 ? fusec::bfloat16BitsToFloat(bits) : fusec::halfBitsToFloat(bits);
  };
  for (uint32_t i = 0; i < mma.n / 2; ++i) {
    const uint32_t row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    float sum = mma.accumulate ? mma.d[i] : 0.0f;
    for (uint32_t k = 0; k < 16; ++k)
      sum += value(operandElement(mma.descA, row, k, false)) * value(operandElement(mma.descB, col, k, mma.transB));
    mma.d[i] = sum;
  }
}

inline void issue(float *d, uint32_t n, uint64_t descA, uint64_t descB, int accumulate, bool bf16, bool transB) {
  warpgroupThread();
  if (!wgmmaQueue.fenced)
    fail("wgmma.mma_async without a wgmma.fence since the thread's last wgmma.wait_group");
  wgmmaQueue.open.push_back({d, n, descA, descB, accumulate != 0, bf16, transB});
}

} // namespace fusec_emulation::sm90

//===----------------------------------------------------------------------===//
// The device functions of fusec_sm90.h
//===----------------------------------------------------------------------===//

inline unsigned char *fusec_dynamic_shared() { return fusec_emulation::sm90::dynamicShared; }

inline unsigned fusec_sm90_shared_address(const void *pointer) {
  return fusec_emulation::sm90::sharedOffset(pointer, 1, "shared address");
}

inline void fusec_mbarrier_init(unsigned long long *barrier, unsigned count) {
  fusec_emulation::sm90::init(barrier, count);
}

inline void fusec_mbarrier_init_fence() {}

inline void fusec_fence_proxy_async() {}

inline void fusec_mbarrier_arrive(unsigned long long *barrier) {
  fusec_emulation::sm90::arrive(barrier, 0, "mbarrier.arrive");
}

inline void fusec_mbarrier_arrive_expect_tx(unsigned long long *barrier, unsigned bytes) {
  fusec_emulation::sm90::arrive(barrier, bytes, "mbarrier.arrive.expect_tx");
}

inline void fusec_mbarrier_wait(unsigned long long *barrier, unsigned parity) {
  fusec_emulation::sm90::wait(barrier, parity);
}

inline void fusec_tma_load_2d(void *destination, const FusecTensorMap *map, unsigned long long *barrier, int x, int y) {
  const int coords[2] = {x, y};
  fusec_emulation::sm90::loadTile(destination, map, barrier, coords, 2);
}

inline void fusec_tma_load_3d(void *destination, const FusecTensorMap *map, unsigned long long *barrier, int x, int y,
                              int z) {
  const int coords[3] = {x, y, z};
  fusec_emulation::sm90::loadTile(destination, map, barrier, coords, 3);
}

inline void fusec_tma_load_4d(void *destination, const FusecTensorMap *map, unsigned long long *barrier, int x, int y,
                              int z, int w) {
  const int coords[4] = {x, y, z, w};
  fusec_emulation::sm90::loadTile(destination, map, barrier, coords, 4);
}

inline void fusec_wgmma_fence() { fusec_emulation::sm90::wgmmaQueue.fenced = true; }

inline void fusec_wgmma_commit() {
  auto &queue = fusec_emulation::sm90::wgmmaQueue;
  queue.committed.push_back(std::move(queue.open));
  queue.open.clear();
}

template <int Pending> inline void fusec_wgmma_wait() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0..7");
  auto &queue = fusec_emulation::sm90::wgmmaQueue;
  while (queue.committed.size() > unsigned(Pending)) {
    for (const auto &mma : queue.committed.front())
      fusec_emulation::sm90::execute(mma);
    queue.committed.pop_front();
  }
  queue.fenced = false;
}

template <int Count> inline void fusec_wgmma_fence_operands(float (&)[Count]) {}

template <int Count> inline void fusec_setmaxnreg_inc() {
  static_assert(Count % 8 == 0 && Count >= 24 && Count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
}
template <int Count> inline void fusec_setmaxnreg_dec() {
  static_assert(Count % 8 == 0 && Count >= 24 && Count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
}

template <int N, bool Bf16> struct FusecWgmma {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma m64nNk16 has N a multiple of 8 in [8, 256]");
  template <int TransB>
  static void run(float (&d)[N / 2], unsigned long long descA, unsigned long long descB, int accumulate) {
    fusec_emulation::sm90::issue(d, N, descA, descB, accumulate, Bf16, TransB != 0);
  }
};

#pragma GCC visibility pop

#endif // FUSEC_CODEGEN_EMULATION_FUSEC_SM90_EMULATION_H
