// fusec_sm90.h - Hopper (sm_90a) primitives: mbarrier, TMA and wgmma.
//
// Device functions wrapping one PTX instruction each, for the warp-
// specialized templates (fusec_gemm_sm90.h). The PTX ISA sections they
// follow are named (numbers move between ISA versions; those of PTX 8.x):
//
//   fusec_dynamic_shared             the block's dynamic shared memory, 1024-byte aligned
//   fusec_mbarrier_init              mbarrier.init.shared::cta.b64             ("mbarrier", 9.7.13.15)
//   fusec_mbarrier_init_fence        fence.mbarrier_init.release.cluster       ("membar/fence")
//   fusec_mbarrier_arrive            mbarrier.arrive.shared::cta.b64
//   fusec_mbarrier_arrive_expect_tx  mbarrier.arrive.expect_tx.shared::cta.b64 ("expect-tx operation")
//   fusec_mbarrier_wait              mbarrier.try_wait.parity.shared::cta.b64, until it succeeds
//   fusec_tma_load_{2,3,4}d          cp.async.bulk.tensor.{2,3,4}d.shared::cluster.global.tile
//                                    .mbarrier::complete_tx::bytes             ("cp.async.bulk.tensor",
//                                                                               "Tensor Memory Access" 5.5)
//   fusec_wgmma_descriptor           the 64-bit shared-memory matrix descriptor ("Matrix Descriptor Format");
//                                    _mn (N-major B), _interleaved (K-major, no swizzle)
//   fusec_wgmma<N, Bf16>             wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}
//                                    ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate", 9.7.15)
//   fusec_fence_proxy_async          fence.proxy.async.shared::cta             ("membar/fence")
//   fusec_wgmma_fence                wgmma.fence.sync.aligned
//   fusec_wgmma_commit               wgmma.commit_group.sync.aligned
//   fusec_wgmma_wait<Pending>        wgmma.wait_group.sync.aligned
//   fusec_setmaxnreg_inc/dec<Count>  setmaxnreg.{inc,dec}.sync.aligned.u32
//
// Shared-memory operands are generic pointers into fusec_dynamic_shared();
// the functions convert them to the .shared::cta addresses PTX takes.
//
// The wgmma operands A (64 x 16) and B (N x 16) are both K-major: each row
// holds its K elements contiguously, 64 of them (128 bytes of f16/bf16) per
// row of a 1024-byte-aligned tile, rows 128 bytes apart, with the 128-byte
// swizzle that a TMA load with CU_TENSOR_MAP_SWIZZLE_128B and a 64-element
// inner box writes: the 16-byte chunk c of row r lies at chunk c ^ (r % 8).
// That is the canonical layout "K-major, 128B swizzle" of the ISA's
// "Shared Memory Matrix Layout"; fusec_wgmma_descriptor describes it, and
// adding 32 bytes to the start address moves the descriptor 16 elements
// along K. B may instead be N-major (fusec_wgmma's TransB, "MN-major, 128B
// swizzle"): K rows of 64 N-elements, 64-wide N blocks one after another,
// as TMA boxes of 64 N by 64 K write it; fusec_wgmma_descriptor_mn
// describes it, and a k16 step adds 2048 bytes.
//
// The f32 accumulator of m64nNk16 is N/2 registers per thread of the
// warpgroup: with w = warp % 4, g = lane / 4 and t = lane % 4,
//   d[i] = D(16w + g + 8 ((i / 2) % 2), 8 (i / 4) + 2t + i % 2),
// the m16n8 accumulator layout of mma.sync repeated N/8 times along N and
// once per warp along M.
//
// Requires sm_90a. Under FUSEC_EMULATION the same names come from
// fusec_sm90_emulation.h.
#pragma once

/// A CUtensorMap: 128 bytes the host encodes (cuTensorMapEncodeTiled) and
/// a kernel takes as a __grid_constant__ parameter. Declared here so that
/// kernels need not include cuda.h, which NVRTC does not have.
struct alignas(64) FusecTensorMap {
  unsigned long long opaque[16];
};

/// The shared-memory matrix descriptor of a K-major operand with the
/// 128-byte swizzle whose first row starts at `sharedAddress` (the
/// .shared::cta address; tiles 1024-byte aligned, plus 32 bytes per k16
/// step). Fields (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start
/// address >> 4; 16-29 the leading-dimension byte offset >> 4, unused by
/// swizzled K-major layouts (1 by convention); 32-45 the stride-dimension
/// byte offset >> 4, 1024 bytes from one group of 8 rows to the next; 49-51
/// the base offset, 0 for pattern-aligned tiles; 62-63 the swizzle mode,
/// 1 = 128-byte.
__device__ __forceinline__ unsigned long long fusec_wgmma_descriptor(unsigned sharedAddress) {
  return static_cast<unsigned long long>((sharedAddress & 0x3ffffu) >> 4) | (1ull << 16) |
         (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
}

/// The descriptor of an N-major (MN-major) operand with the 128-byte
/// swizzle: K rows of 64 N-elements (128 bytes), 1024-byte atoms of 8 K
/// rows (the stride-dimension offset), consecutive 64-wide N blocks
/// `blockBytes` apart (the leading-dimension offset). A k16 step moves the
/// start address 16 rows: 2048 bytes.
__device__ __forceinline__ unsigned long long fusec_wgmma_descriptor_mn(unsigned sharedAddress, unsigned blockBytes) {
  return static_cast<unsigned long long>((sharedAddress & 0x3ffffu) >> 4) |
         (static_cast<unsigned long long>((blockBytes & 0x3ffffu) >> 4) << 16) |
         (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
}

/// The descriptor of a K-major operand without swizzle (mode 0, the ISA's
/// canonical "no-swizzling" layout): core matrices of 8 rows by 16 bytes
/// (8 halves of K), each row 16 bytes after the last; `leadingBytes`
/// between core matrices adjacent along K (the leading-dimension offset)
/// and `strideBytes` between those adjacent along M or N (the
/// stride-dimension offset). Narrow operands fit it: a TMA box 16 bytes
/// wide, without swizzle, lands as one column of core matrices, so the
/// boxes of consecutive K groups, `leadingBytes` apart, form the tile. A k16
/// step moves the start address by two K groups.
__device__ __forceinline__ unsigned long long
fusec_wgmma_descriptor_interleaved(unsigned sharedAddress, unsigned leadingBytes, unsigned strideBytes) {
  return static_cast<unsigned long long>((sharedAddress & 0x3ffffu) >> 4) |
         (static_cast<unsigned long long>((leadingBytes & 0x3ffffu) >> 4) << 16) |
         (static_cast<unsigned long long>((strideBytes & 0x3ffffu) >> 4) << 32);
}

#ifdef FUSEC_EMULATION
#include "fusec_sm90_emulation.h"
#else

/// The block's dynamic shared memory (the launch's sharedMemBytes), aligned
/// for 128-byte-swizzled tiles.
__device__ __forceinline__ unsigned char *fusec_dynamic_shared() {
  extern __shared__ __align__(1024) unsigned char fusec_dynamic_shared_bytes[];
  return fusec_dynamic_shared_bytes;
}

/// The .shared::cta address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned fusec_sm90_shared_address(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// Initialises the mbarrier at `barrier` (8 bytes, 8-byte aligned) for
/// `count` arrivals per phase; its current phase is phase 0.
__device__ __forceinline__ void fusec_mbarrier_init(unsigned long long *barrier, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(fusec_sm90_shared_address(barrier)), "r"(count)
               : "memory");
}

/// Makes the initialisations before it visible to the async proxy (TMA's
/// complete_tx) and to other threads; a __syncthreads() follows it.
__device__ __forceinline__ void fusec_mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival on the current phase.
__device__ __forceinline__ void fusec_mbarrier_arrive(unsigned long long *barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(fusec_sm90_shared_address(barrier)) : "memory");
}

/// Adds `bytes` to the current phase's expected transaction count, then
/// arrives: the phase completes once every arrival is in and the async
/// copies have completed that many bytes.
__device__ __forceinline__ void fusec_mbarrier_arrive_expect_tx(unsigned long long *barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(fusec_sm90_shared_address(barrier)),
               "r"(bytes)
               : "memory");
}

/// Waits until the phase of parity `parity` has completed: returns at once
/// when the barrier's current phase has the other parity.
__device__ __forceinline__ void fusec_mbarrier_wait(unsigned long long *barrier, unsigned parity) {
  const unsigned address = fusec_sm90_shared_address(barrier);
  unsigned done = 0;
  do {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(address), "r"(parity)
                 : "memory");
  } while (!done);
}

/// Starts copying the box of `map` at element coordinates (x, y), x the
/// innermost, into shared memory at `destination` (aligned to 1024 bytes for
/// the 128-byte swizzle); elements outside the tensor arrive as zeros. The
/// copy completes the box's full byte count on `barrier`.
__device__ __forceinline__ void fusec_tma_load_2d(void *destination, const FusecTensorMap *map,
                                                  unsigned long long *barrier, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
               "[%2];" ::"r"(fusec_sm90_shared_address(destination)),
               "l"(map), "r"(fusec_sm90_shared_address(barrier)), "r"(x), "r"(y)
               : "memory");
}

/// fusec_tma_load_2d for a rank-3 map: coordinates (x, y, z), x innermost.
__device__ __forceinline__ void fusec_tma_load_3d(void *destination, const FusecTensorMap *map,
                                                  unsigned long long *barrier, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, "
               "%5}], [%2];" ::"r"(fusec_sm90_shared_address(destination)),
               "l"(map), "r"(fusec_sm90_shared_address(barrier)), "r"(x), "r"(y), "r"(z)
               : "memory");
}

/// fusec_tma_load_2d for a rank-4 map: coordinates (x, y, z, w), x
/// innermost. With traversal strides (the map's element strides) the box
/// takes every stride-th element from the coordinate on.
__device__ __forceinline__ void fusec_tma_load_4d(void *destination, const FusecTensorMap *map,
                                                  unsigned long long *barrier, int x, int y, int z, int w) {
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, "
               "%5, %6}], [%2];" ::"r"(fusec_sm90_shared_address(destination)),
               "l"(map), "r"(fusec_sm90_shared_address(barrier)), "r"(x), "r"(y), "r"(z), "r"(w)
               : "memory");
}

/// Makes this thread's generic-proxy writes to shared memory (st.shared)
/// visible to the async proxy that wgmma and TMA stores read through; a
/// __syncthreads() (or mbarrier) follows it before the reader starts.
__device__ __forceinline__ void fusec_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// Orders this warpgroup's register and shared-memory accesses before the
/// wgmma.mma_async that follow: needed before the first one and whenever
/// the accumulators were touched since.
__device__ __forceinline__ void fusec_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/// Closes the group of this warpgroup's wgmma.mma_async issued since the
/// last commit.
__device__ __forceinline__ void fusec_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

/// Waits until at most `Pending` committed groups are in flight; only then
/// may their accumulators be read and their shared-memory operands be
/// overwritten.
template <int Pending> __device__ __forceinline__ void fusec_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

/// Keeps the compiler from moving accesses to `d` across the asynchronous
/// wgmma that reads and writes it.
template <int Count> __device__ __forceinline__ void fusec_wgmma_fence_operands(float (&d)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

/// Raises (inc) or lowers (dec) this warpgroup's register budget to `Count`
/// per thread (a multiple of 8 in [24, 256]).
template <int Count> __device__ __forceinline__ void fusec_setmaxnreg_inc() {
  static_assert(Count % 8 == 0 && Count >= 24 && Count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Count));
}
template <int Count> __device__ __forceinline__ void fusec_setmaxnreg_dec() {
  static_assert(Count % 8 == 0 && Count >= 24 && Count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Count));
}

/// The wgmma.mma_async instructions, one per N and type: D = A B^T + D
/// (or A B^T when `accumulate` is 0), A K-major and B K-major (TransB 0)
/// or N-major (TransB 1) in shared memory through their descriptors;
/// scale-a and scale-b 1.
template <int N, bool Bf16> struct FusecWgmma;

template <> struct FusecWgmma<64, false> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[32], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

template <> struct FusecWgmma<64, true> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[32], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

template <> struct FusecWgmma<128, false> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[64], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33,"
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                   "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                   "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                   "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                   "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

template <> struct FusecWgmma<128, true> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[64], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33,"
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                   "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                   "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                   "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                   "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

template <> struct FusecWgmma<256, false> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[128], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33,"
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65,"
                 "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81,"
                 "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97,"
                 "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
                 "%125, %126, %127"
                 "}, %128, %129, p, 1, 1, 0, %131;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                   "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                   "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                   "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                   "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
                   "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
                   "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
                   "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
                   "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                   "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
                   "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                   "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
                   "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

template <> struct FusecWgmma<256, true> {
  template <int TransB>
  static __device__ __forceinline__ void run(float (&d)[128], unsigned long long descA, unsigned long long descB,
                                             int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33,"
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65,"
                 "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81,"
                 "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97,"
                 "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
                 "%125, %126, %127"
                 "}, %128, %129, p, 1, 1, 0, %131;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                   "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                   "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                   "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                   "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                   "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
                   "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
                   "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
                   "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
                   "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                   "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
                   "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                   "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
                   "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(descA), "l"(descB), "r"(accumulate), "n"(TransB));
  }
};

#endif // FUSEC_EMULATION

/// d (+)= A B for a 64 x N tile, k = 16: f16 (or bf16) operands, f32
/// accumulation; B's descriptor describes it N x K (K-major) or, with
/// TransB, K x N (N-major). Issued by all 128 threads of a warpgroup alike.
template <int N, bool Bf16, bool TransB = false>
__device__ __forceinline__ void fusec_wgmma(float (&d)[N / 2], unsigned long long descA, unsigned long long descB,
                                            int accumulate) {
  FusecWgmma<N, Bf16>::template run<TransB ? 1 : 0>(d, descA, descB, accumulate);
}
