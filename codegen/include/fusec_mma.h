// fusec_mma.h - tensor-core and asynchronous-copy primitives for kernel templates.
//
// Device functions that wrap one PTX instruction each, so that the GEMM and
// convolution templates (fusec_gemm.h) read as C++ rather than assembly:
//
//   fusec_cvt_rna_tf32            cvt.rna.tf32.f32 (fusec_to_tf32 clears the bits it leaves unspecified)
//   fusec_mma_m16n8k8_tf32        mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//   fusec_mma_m16n8k16_f16        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//   fusec_mma_m16n8k16_bf16       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//   fusec_mma_m16n8k32_s8         mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
//   fusec_mma_m16n8k32_u8s8       mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
//   fusec_ldmatrix<Count, Trans>  ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16
//   fusec_cp_async_ca<Bytes>      cp.async.ca.shared.global (4, 8 or 16 bytes)
//   fusec_cp_async_cg             cp.async.cg.shared.global (16 bytes)
//   fusec_cp_async_commit         cp.async.commit_group
//   fusec_cp_async_wait<N>        cp.async.wait_group N
//
// Operands are 32-bit registers (`unsigned`) holding what the PTX operand
// holds: a tf32 value in the high 19 bits of a float, two f16/bf16 values
// (the lower-numbered element in the low half), or four 8-bit integers (the
// lowest-numbered in the low byte). Fragments follow the PTX ISA's layouts
// ("Matrix Fragments for mma.m16n8k8 / mma.m16n8k16 / mma.m16n8k32"): with
// g = lane / 4 and t = lane % 4, the f32 (or s32) accumulator holds
//   c[0] = C(g, 2t)   c[1] = C(g, 2t+1)   c[2] = C(g+8, 2t)   c[3] = C(g+8, 2t+1).
//
// Requires sm_80 or newer. Under FUSEC_EMULATION the same names come from
// fusec_mma_emulation.h, which runs them on the host threads of the CUDA
// emulation, exchanging fragments among the 32 lanes of a warp.
#pragma once

#ifdef FUSEC_EMULATION
#include "fusec_mma_emulation.h"
#else

/// The shared-state-space address of a generic pointer into shared memory,
/// as the .shared forms of ldmatrix and cp.async take it.
__device__ __forceinline__ unsigned fusec_shared_address(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// Rounds `x` to tf32 (10 mantissa bits), to nearest with ties away from
/// zero, in the high 19 bits of the result. The PTX ISA (cvt, "Data
/// Movement and Conversion Instructions") gives the result only as a tf32
/// in a .b32 register: the low 13 bits are not promised to be zero. Use
/// fusec_to_tf32 wherever the bits are read back as a float.
__device__ __forceinline__ unsigned fusec_cvt_rna_tf32(float x) {
  unsigned result;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(result) : "f"(x));
  return result;
}

/// d = a * b + c for a 16x8 tile, k = 8, tf32 inputs, f32 accumulation.
/// a[0] = A(g, t)  a[1] = A(g+8, t)  a[2] = A(g, t+4)  a[3] = A(g+8, t+4);
/// b[0] = B(t, g)  b[1] = B(t+4, g).
__device__ __forceinline__ void fusec_mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                       const float (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                 "f"(c[3]));
}

/// d = a * b + c for a 16x8 tile, k = 16, f16 inputs, f32 accumulation.
/// Each register holds two elements adjacent in k:
/// a[0] = A(g, 2t..2t+1)  a[1] = A(g+8, 2t..)  a[2] = A(g, 2t+8..)  a[3] = A(g+8, 2t+8..);
/// b[0] = B(2t..2t+1, g)  b[1] = B(2t+8..2t+9, g).
__device__ __forceinline__ void fusec_mma_m16n8k16_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                       const float (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                 "f"(c[3]));
}

/// As fusec_mma_m16n8k16_f16, with bf16 inputs.
__device__ __forceinline__ void fusec_mma_m16n8k16_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                        const float (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                 "f"(c[3]));
}

/// d = a * b + c for a 16x8 tile, k = 32, s8 inputs, s32 accumulation
/// (PTX ISA "Matrix Fragments for mma.m16n8k32", .s8/.u8). Each register
/// holds four elements adjacent in k, the lowest-numbered in the low byte:
/// a[0] = A(g, 4t..4t+3)  a[1] = A(g+8, 4t..)  a[2] = A(g, 4t+16..)  a[3] = A(g+8, 4t+16..);
/// b[0] = B(4t..4t+3, g)  b[1] = B(4t+16..4t+19, g).
/// Without .satfinite the sums must stay within s32: they do for any K
/// below 2^31 / (255 * 128), 65 793, far past the templates' k-slices.
__device__ __forceinline__ void fusec_mma_m16n8k32_s8(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                      const int (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                 "r"(c[3]));
}

/// As fusec_mma_m16n8k32_s8 with A unsigned (u8 activations, as QDQ models
/// quantize them) and B signed (s8 weights).
__device__ __forceinline__ void fusec_mma_m16n8k32_u8s8(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                                                        const int (&c)[4]) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),
                 "r"(c[3]));
}

/// Loads `Count` (1, 2 or 4) 8x8 matrices of 16-bit elements from shared
/// memory. Lane 8i + r passes the address of row r of matrix i (16 bytes,
/// 16-byte aligned); lanes beyond 8 * Count pass any valid address. Lane l
/// receives in r[i] matrix i's elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1),
/// or with Trans, (2(l%4), l/4) and (2(l%4)+1, l/4).
template <int Count, bool Trans>
__device__ __forceinline__ void fusec_ldmatrix(unsigned (&r)[Count], const void *rowAddress) {
  static_assert(Count == 1 || Count == 2 || Count == 4, "ldmatrix loads 1, 2 or 4 matrices");
  const unsigned address = fusec_shared_address(rowAddress);
  if constexpr (Count == 1 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(address));
  else if constexpr (Count == 1)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(address));
  else if constexpr (Count == 2 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  else if constexpr (Count == 2)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(address));
  else if constexpr (!Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

/// Starts copying `Bytes` (4, 8 or 16) bytes from global to shared memory,
/// cached in L1 and L2. Only the first `sourceBytes` (0..Bytes) are read; the
/// rest of the destination is zero-filled, so a tail past the end of a
/// tensor reads nothing. Both addresses are aligned to `Bytes`.
template <int Bytes>
__device__ __forceinline__ void fusec_cp_async_ca(void *sharedDestination, const void *globalSource,
                                                  unsigned sourceBytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(fusec_shared_address(sharedDestination)),
               "l"(globalSource), "n"(Bytes), "r"(sourceBytes)
               : "memory");
}

/// As fusec_cp_async_ca<16>, cached in L2 only (for tiles read once per block).
__device__ __forceinline__ void fusec_cp_async_cg(void *sharedDestination, const void *globalSource,
                                                  unsigned sourceBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(fusec_shared_address(sharedDestination)),
               "l"(globalSource), "r"(sourceBytes)
               : "memory");
}

/// Closes the group of this thread's cp.async operations issued since the
/// last commit.
__device__ __forceinline__ void fusec_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

/// Waits until at most `Pending` of this thread's committed groups are still
/// in flight. Other threads' copies need a __syncthreads() after it.
template <int Pending> __device__ __forceinline__ void fusec_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

#endif // FUSEC_EMULATION

// Built on the primitives above, for the device and the emulation alike.

/// `x` rounded to tf32 (cvt.rna), its low 13 bits cleared: a tf32 operand
/// that is also the f32 value it stands for. The cvt leaves those bits
/// unspecified (see fusec_cvt_rna_tf32) and 3xTF32 subtracts the rounded
/// value from x as a float; one AND (free beside the cvt) makes that exact.
__device__ __forceinline__ unsigned fusec_to_tf32(float x) { return fusec_cvt_rna_tf32(x) & 0xffffe000u; }

/// Raw f32 bits to tf32 operands for Passes products: `big` rounded in
/// place and, for 3 passes (3xTF32), `small` = the rounded remainder x -
/// big, so that x = big + small to about 2^-22.
template <int Passes, int N>
__device__ __forceinline__ void fusec_split_tf32(unsigned (&big)[N], unsigned (&small)[N]) {
#pragma unroll
  for (int r = 0; r < N; ++r) {
    const float x = __int_as_float(int(big[r]));
    big[r] = fusec_to_tf32(x);
    if constexpr (Passes == 3)
      small[r] = fusec_to_tf32(x - __int_as_float(int(big[r])));
  }
}
