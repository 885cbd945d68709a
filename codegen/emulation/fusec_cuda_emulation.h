//===- fusec_cuda_emulation.h - CUDA kernels on host threads ----*- C++ -*-===//
//
// CI machines have no GPU, yet the tests must show that the exact CUDA C++
// text fusec emits computes the right numbers. Compiled by the host compiler
// with FUSEC_EMULATION defined, a generated translation unit gets from this
// header the subset of CUDA that fusec's kernels use, and
// fusec_emulation::launch runs a kernel as a GPU would, as far as the kernel
// can tell:
//
//  * one host thread per CUDA thread of a block; together they run the blocks
//    one after another, in a shuffled order (a kernel must not depend on
//    the order of its blocks), so function-local statics can stand in for
//    __shared__ arrays;
//  * __shared__ memory is fresh for every block: all of it is filled with
//    0xff bytes (a float NaN) before each block, so a read before a write,
//    or of what an earlier block left, shows up in the results;
//  * __syncthreads() waits for the threads of the block still running the
//    kernel: one that has returned no longer counts, so it cannot deadlock the
//    others;
//  * warp shuffles exchange values among groups of 32 consecutive linear
//    thread ids;
//  * float4 loads and stores check their 16-byte alignment, which x86 would
//    not enforce: the launch then fails naming the address, block and thread.
//
// Launches of kernels of one module must not overlap: the __shared__ storage
// and the builtin variables are the module's. Declare __shared__ arrays in
// the kernel, not inside inline device functions: the host compiler makes a
// static of an inline function one object across every loaded copy of a
// module (STB_GNU_UNIQUE), so two copies running blocks at once would share
// it. A host that wants blocks to
// run concurrently loads the module twice and gives each copy a share of the
// blocks (fusec_emulation_launch_blocks).
//
// A host program that dlopens a compiled module must launch through that
// module's fusec_emulation_launch (at the end of this file), not through a
// copy of fusec_emulation::launch compiled into itself: threadIdx and the
// other builtins are thread-locals of the module, and another copy of the
// launcher would set another module's.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_EMULATION_FUSEC_CUDA_EMULATION_H
#define FUSEC_CODEGEN_EMULATION_FUSEC_CUDA_EMULATION_H

#include <math.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

// Everything but the launch entry point stays private to the module, so that
// modules loaded side by side never bind to each other's state.
#pragma GCC visibility push(hidden)

//===----------------------------------------------------------------------===//
// Qualifiers and builtin variables
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
// Register budgets are the GPU compiler's business.
#define __launch_bounds__(...)
#define __forceinline__ inline __attribute__((always_inline))
// One block runs at a time, so one static array per declaration is exactly
// the per-block shared memory CUDA gives. All of them live in one section,
// which the launch poisons before every block (its bounds are the linker's
// __start_/__stop_ symbols), since CUDA's starts undefined.
#define __shared__ static __attribute__((section("fusec_shared"), aligned(16)))
extern "C" char __start_fusec_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_fusec_shared[] __attribute__((weak, visibility("hidden")));

struct uint3 {
  unsigned x, y, z;
};

namespace fusec_emulation::detail {
/// Records that a vector access of `bytes` at `address` is not aligned to
/// its size (defined below).
inline void reportMisalignedVector(const void *address, const char *access, uintptr_t bytes);

/// Checks the address of a vector access as it is in memory: the compiler
/// may assume a vector is aligned, so the address is hidden from it first.
inline void checkVectorAlignment(const void *address, const char *access, uintptr_t bytes) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(address);
  asm("" : "+r"(bits));
  if (bits % bytes != 0)
    reportMisalignedVector(address, access, bytes);
}

/// A copy of a `Bytes`-byte vector (float2, float4): both addresses checked
/// for the alignment a GPU requires, then the bytes copied with no
/// alignment assumed (x86 would not fault where a GPU does).
template <size_t Bytes> void copyVector(void *to, const void *from, const char *load, const char *store) {
  checkVectorAlignment(from, load, Bytes);
  checkVectorAlignment(to, store, Bytes);
  asm("" : "+r"(from), "+r"(to)); // so that memcpy assumes no alignment
  unsigned char values[Bytes];
  std::memcpy(values, from, Bytes);
  std::memcpy(to, values, Bytes);
}
} // namespace fusec_emulation::detail

// CUDA's 16- and 8-byte vector types, for vectorized loads and stores;
// every copy is checked (fusec_emulation::detail::copyVector).
struct alignas(16) float4 {
  float x, y, z, w;

  float4() = default;
  constexpr float4(float x, float y, float z, float w) : x(x), y(y), z(z), w(w) {}
  float4(const float4 &other) { *this = other; }
  float4 &operator=(const float4 &other) {
    fusec_emulation::detail::copyVector<16>(this, &other, "float4 load", "float4 store");
    return *this;
  }
};

inline float4 make_float4(float x, float y, float z, float w) { return float4(x, y, z, w); }

struct alignas(8) float2 {
  float x, y;

  float2() = default;
  constexpr float2(float x, float y) : x(x), y(y) {}
  float2(const float2 &other) { *this = other; }
  float2 &operator=(const float2 &other) {
    fusec_emulation::detail::copyVector<8>(this, &other, "float2 load", "float2 store");
    return *this;
  }
};

inline float2 make_float2(float x, float y) { return float2(x, y); }

struct dim3 {
  constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
  unsigned x, y, z;
};

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

//===----------------------------------------------------------------------===//
// Launch machinery
//===----------------------------------------------------------------------===//

namespace fusec_emulation {
namespace detail {

constexpr unsigned kWarpSize = 32;

/// A reusable barrier whose participants may leave for good, like
/// std::barrier::arrive_and_drop: a thread that has returned from the kernel
/// must not hold back those still running.
///
/// An emulated block has far more threads than the host has cores, so nearly
/// every arrival puts a thread to sleep. Sleeping on a futex rather than a
/// condition variable spares the woken threads a fight over a mutex, which
/// halves the cost of a barrier.
class Barrier {
public:
  /// Starts over with `participants` threads; none may be waiting.
  void reset(unsigned participants) { counts_.store(uint64_t(participants) << 32, std::memory_order_relaxed); }

  /// Blocks until every remaining participant has arrived. The last to arrive
  /// runs `onComplete` before any of them is released.
  template <typename OnComplete> void arriveAndWait(OnComplete onComplete) {
    // The phase cannot move on before this thread has arrived.
    const uint32_t phase = phase_.load(std::memory_order_relaxed);
    if (isComplete(counts_.fetch_add(1, std::memory_order_acq_rel) + 1)) {
      onComplete();
      release();
      return;
    }
    while (phase_.load(std::memory_order_acquire) == phase)
      futex(FUTEX_WAIT_PRIVATE, phase);
  }

  void arriveAndWait() {
    arriveAndWait([] {});
  }

  /// Leaves without waiting; the phase completes if everyone left has
  /// already arrived.
  void arriveAndDrop() {
    if (isComplete(counts_.fetch_sub(kOneParticipant, std::memory_order_acq_rel) - kOneParticipant))
      release();
  }

private:
  static constexpr uint64_t kOneParticipant = uint64_t(1) << 32;

  static bool isComplete(uint64_t counts) {
    const uint32_t arrived = uint32_t(counts);
    return arrived != 0 && arrived == uint32_t(counts >> 32);
  }

  /// Run by the thread that completed the phase. Every other participant is
  /// waiting, so nobody else touches the counts.
  void release() {
    counts_.store(counts_.load(std::memory_order_relaxed) & ~uint64_t(~0u), std::memory_order_relaxed);
    phase_.fetch_add(1, std::memory_order_release);
    futex(FUTEX_WAKE_PRIVATE, INT_MAX);
  }

  void futex(int operation, uint32_t value) { ::syscall(SYS_futex, &phase_, operation, value, nullptr, nullptr, 0); }

  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
                "a futex must be a plain 32-bit word");

  std::atomic<uint64_t> counts_{0}; // participants << 32 | arrived
  std::atomic<uint32_t> phase_{0};  // the futex word
};

/// The lanes of one warp meet here to exchange shuffled values. Shuffles
/// alternate between two sets of slots: a lane may publish its next value
/// while slower lanes still read the last, but it cannot get two shuffles
/// ahead, since the barrier of the next one waits for them.
struct Warp {
  Barrier barrier;
  float slots[2][kWarpSize];
};

/// What __syncthreads and the shuffles find through the calling thread.
struct ThreadContext {
  Barrier *syncThreads;
  Warp *warp;
  unsigned lane;
  unsigned shuffles; // in the current block
};

inline thread_local ThreadContext context;

/// Rejects what a GPU would refuse to launch, so that a configuration that
/// cannot run on a GPU does not pass under emulation.
inline void checkConfiguration(dim3 grid, dim3 block) {
  auto within = [](unsigned value, unsigned limit) { return value >= 1 && value <= limit; };
  if (!within(grid.x, 2147483647u) || !within(grid.y, 65535) || !within(grid.z, 65535))
    throw std::invalid_argument("grid dimensions must be in [1, 2^31-1] x [1, 65535] x [1, 65535]");
  if (!within(block.x, 1024) || !within(block.y, 1024) || !within(block.z, 64) || block.x * block.y * block.z > 1024)
    throw std::invalid_argument("block dimensions must be in [1, 1024] x "
                                "[1, 1024] x [1, 64] with at most 1024 "
                                "threads");
}

/// Fills all __shared__ memory of the module with 0xff bytes: a float NaN,
/// an int -1.
inline void poisonSharedMemory() {
  if (__start_fusec_shared && __stop_fusec_shared > __start_fusec_shared)
    std::memset(__start_fusec_shared, 0xff, size_t(__stop_fusec_shared - __start_fusec_shared));
}

/// The first fault a launch's threads detected (a misaligned vector
/// access), reported by the launch once its threads are done.
class Faults {
public:
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    message_.clear();
  }
  void record(const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (message_.empty())
      message_ = message;
  }
  std::string message() {
    std::lock_guard<std::mutex> lock(mutex_);
    return message_;
  }

private:
  std::mutex mutex_;
  std::string message_;
};

inline Faults faults;

/// One kernel launch: the host threads standing for one block's CUDA threads
/// and what they synchronise on. They run the blocks `blocks` lists (linear
/// ids, x fastest) in that order.
class Launch {
public:
  Launch(void (*thunk)(void **), dim3 grid, dim3 block, void **args, std::vector<uint32_t> blocks)
      : thunk_(thunk), grid_(grid), block_(block), args_(args), blocks_(std::move(blocks)),
        numThreads_(block.x * block.y * block.z), warps_((numThreads_ + kWarpSize - 1) / kWarpSize) {
    started_.reset(numThreads_ + 1);
    blockDone_.reset(numThreads_);
    resetBlockState();
  }

  void run() {
    faults.clear();
    std::vector<std::thread> threads;
    threads.reserve(numThreads_);
    std::string failure;
    try {
      for (unsigned id = 0; id < numThreads_; ++id)
        threads.emplace_back(&Launch::runThread, this, id);
    } catch (const std::exception &error) {
      failure = error.what();
    }
    // No thread may start on the first block before all exist, since the
    // barriers count on all of them. If some could not be created, they drop
    // out so that the others are released, only to leave.
    aborted_ = threads.size() < numThreads_;
    for (size_t missing = threads.size(); missing < numThreads_; ++missing)
      started_.arriveAndDrop();
    started_.arriveAndWait();
    for (std::thread &thread : threads)
      thread.join();
    if (aborted_)
      throw std::runtime_error("cannot start a host thread for each thread of the block: " + failure);
    const std::string fault = faults.message();
    if (!fault.empty())
      throw std::runtime_error(fault);
  }

private:
  void runThread(unsigned id) {
    threadIdx = {id % block_.x, id / block_.x % block_.y, id / (block_.x * block_.y)};
    blockDim = block_;
    gridDim = grid_;
    context = {&syncThreads_, &warps_[id / kWarpSize], id % kWarpSize, 0};
    started_.arriveAndWait();
    if (aborted_)
      return;
    for (uint32_t linear : blocks_) {
      blockIdx = {linear % grid_.x, linear / grid_.x % grid_.y, linear / (grid_.x * grid_.y)};
      context.shuffles = 0;
      thunk_(args_);
      syncThreads_.arriveAndDrop();
      context.warp->barrier.arriveAndDrop();
      blockDone_.arriveAndWait([this] { resetBlockState(); });
    }
  }

  /// Readies the barriers that threads drop out of for the next block, and
  /// gives it fresh shared memory. Slots start as NaN so that reading a lane
  /// that does not exist (in a partial last warp) shows up in the results;
  /// CUDA leaves such reads undefined.
  void resetBlockState() {
    syncThreads_.reset(numThreads_);
    for (size_t w = 0; w < warps_.size(); ++w) {
      warps_[w].barrier.reset(std::min<unsigned>(kWarpSize, numThreads_ - w * kWarpSize));
      for (auto &slots : warps_[w].slots)
        std::fill(std::begin(slots), std::end(slots), NAN);
    }
    poisonSharedMemory();
  }

  void (*const thunk_)(void **);
  const dim3 grid_;
  const dim3 block_;
  void **const args_;
  const std::vector<uint32_t> blocks_;
  const unsigned numThreads_;
  Barrier started_;
  bool aborted_ = false;
  Barrier syncThreads_;
  Barrier blockDone_;
  std::vector<Warp> warps_;
};

/// Every block of `grid`, shuffled with `seed`.
inline std::vector<uint32_t> shuffledBlocks(dim3 grid, uint64_t seed) {
  std::vector<uint32_t> blocks(size_t(grid.x) * grid.y * grid.z);
  for (size_t i = 0; i < blocks.size(); ++i)
    blocks[i] = uint32_t(i);
  std::mt19937_64 random(seed);
  std::shuffle(blocks.begin(), blocks.end(), random);
  return blocks;
}

/// The seed of the block order: FUSEC_EMULATION_SEED if set, so that a
/// failure that depends on the order can be replayed, else a fixed one.
inline uint64_t blockOrderSeed() {
  const char *seed = std::getenv("FUSEC_EMULATION_SEED");
  return seed && *seed ? std::strtoull(seed, nullptr, 0) : 0x5eedf00dULL;
}

inline std::string describe(uint3 index) {
  return "(" + std::to_string(index.x) + ", " + std::to_string(index.y) + ", " + std::to_string(index.z) + ")";
}

inline void reportMisalignedVector(const void *address, const char *access, uintptr_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", address);
  faults.record(std::string("misaligned ") + access + " at " + text + " (address % " + std::to_string(bytes) +
                " == " + std::to_string(reinterpret_cast<uintptr_t>(address) % bytes) + ") in block " +
                describe(blockIdx) + ", thread " + describe(threadIdx) + ": a GPU would fault (misaligned address)");
}

/// Every lane publishes `value`, then reads lane `source`'s; a source outside
/// the warp reads the caller's own value, as CUDA's shuffles do.
inline float exchange(float value, unsigned source) {
  Warp &warp = *context.warp;
  float *slots = warp.slots[context.shuffles++ % 2];
  slots[context.lane] = value;
  warp.barrier.arriveAndWait();
  return source < kWarpSize ? slots[source] : value;
}

} // namespace detail

/// Runs `thunk(args)` once per CUDA thread of `grid` x `block`, the blocks in
/// a shuffled order. Throws std::invalid_argument for a configuration a GPU
/// would reject, and std::runtime_error for a fault the threads detected.
inline void launch(void (*thunk)(void **), dim3 grid, dim3 block, void **args) {
  detail::checkConfiguration(grid, block);
  detail::Launch(thunk, grid, block, args, detail::shuffledBlocks(grid, detail::blockOrderSeed())).run();
}

/// Runs only the blocks `blocks` lists (linear ids, x fastest), in that
/// order: a host running a grid on two copies of a module at once gives
/// each a share.
inline void launchBlocks(void (*thunk)(void **), dim3 grid, dim3 block, void **args, const uint32_t *blocks,
                         size_t count) {
  detail::checkConfiguration(grid, block);
  const uint32_t total = grid.x * grid.y * grid.z;
  for (size_t i = 0; i < count; ++i)
    if (blocks[i] >= total)
      throw std::invalid_argument("block " + std::to_string(blocks[i]) + " is outside the grid");
  detail::Launch(thunk, grid, block, args, std::vector<uint32_t>(blocks, blocks + count)).run();
}

} // namespace fusec_emulation

//===----------------------------------------------------------------------===//
// Device functions
//===----------------------------------------------------------------------===//

inline void __syncthreads() { fusec_emulation::detail::context.syncThreads->arriveAndWait(); }

/// Waits for the lanes of the calling thread's warp (full-warp masks only).
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  assert(mask == 0xffffffffu && "emulation supports full-warp synchronisation only");
  (void)mask;
  fusec_emulation::detail::context.warp->barrier.arriveAndWait();
}

inline float __shfl_xor_sync(unsigned mask, float var, int laneMask) {
  assert(mask == 0xffffffffu && "emulation supports full-warp shuffles only");
  (void)mask;
  return fusec_emulation::detail::exchange(var, fusec_emulation::detail::context.lane ^ unsigned(laneMask));
}

inline float __shfl_down_sync(unsigned mask, float var, unsigned delta) {
  assert(mask == 0xffffffffu && "emulation supports full-warp shuffles only");
  (void)mask;
  return fusec_emulation::detail::exchange(var, fusec_emulation::detail::context.lane + delta);
}

// Shuffles of anything but float would silently convert to float and back.
template <typename T> T __shfl_xor_sync(unsigned, T, int) = delete;
template <typename T> T __shfl_down_sync(unsigned, T, unsigned) = delete;

template <typename T> inline T __ldg(const T *address) { return *address; }
// Loads and stores that bypass L1 on a GPU: plain accesses here, ordered by
// __threadfence and the atomics below.
template <typename T> inline T __ldcg(const T *address) { return *address; }
template <typename T> inline void __stcg(T *address, T value) { *address = value; }

// The high 32 bits of a 64-bit product.
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}

// Blocks of one grid may run at once on two copies of a module (see the
// file comment): the atomics are real ones, and order the plain accesses
// around them as a GPU's fence + atomic does.
inline unsigned atomicAdd(unsigned *address, unsigned value) {
  return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
// min/max on floats would silently truncate to int; kernels use fminf/fmaxf.
template <typename T> T min(T, T) = delete;
template <typename T> T max(T, T) = delete;

// Declared like <math.h>'s functions because glibc declares some of these
// names itself (__expf always, rsqrtf from 2.41 on), and a C++ definition
// would conflict with those declarations.
extern "C" inline float rsqrtf(float x) noexcept { return 1.0f / sqrtf(x); }
extern "C" inline float __expf(float x) noexcept { return expf(x); }
extern "C" inline float __fdividef(float a, float b) noexcept { return a / b; }

inline float __int_as_float(int bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline int __float_as_int(float value) {
  int bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

//===----------------------------------------------------------------------===//
// Hooks for warp-collective operations emulated in other headers
// (fusec_mma_emulation.h: mma.sync, ldmatrix)
//===----------------------------------------------------------------------===//

namespace fusec_emulation {
/// The calling thread's lane in its warp.
inline unsigned laneId() { return detail::context.lane; }
/// Identifies the calling thread's warp while its launch runs.
inline const void *warpIdentity() { return detail::context.warp; }
/// Waits for the lanes of the calling thread's warp still running the kernel.
inline void syncWarp() { detail::context.warp->barrier.arriveAndWait(); }
} // namespace fusec_emulation

#pragma GCC visibility pop

/// The host's way into this module (see the file comment): `grid` and
/// `block` are {x, y, z}; `args` is what the kernel's thunk unpacks.
extern "C" __attribute__((visibility("default"), used)) inline void
fusec_emulation_launch(void (*thunk)(void **), const unsigned grid[3], const unsigned block[3], void **args) {
  fusec_emulation::launch(thunk, dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), args);
}

/// The same for the blocks `blocks` lists, in that order (see launchBlocks).
extern "C" __attribute__((visibility("default"), used)) inline void
fusec_emulation_launch_blocks(void (*thunk)(void **), const unsigned grid[3], const unsigned block[3], void **args,
                              const uint32_t *blocks, size_t count) {
  fusec_emulation::launchBlocks(thunk, dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]), args,
                                blocks, count);
}

#endif // FUSEC_CODEGEN_EMULATION_FUSEC_CUDA_EMULATION_H
