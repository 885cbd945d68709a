// fusec_cuda_prelude.h - included first by every kernel fusec generates.
//
// Small device helpers shared by the generated kernels. Under NVRTC it is
// passed as an in-memory header; for CPU emulation in the test suite
// (FUSEC_EMULATION) it first includes the emulation header, so the exact
// kernel text NVRTC compiles also runs on the host.
#pragma once
#ifdef FUSEC_EMULATION
#include "fusec_cuda_emulation.h"
#endif

#define FUSEC_WARP_SIZE 32

// NVRTC compiles without the C library headers.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

__device__ __forceinline__ float fusec_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ __forceinline__ float fusec_gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f));
}

__device__ __forceinline__ float fusec_gelu_tanh(float x) {
  const float k = 0.79788456080286535588f; // sqrt(2 / pi)
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__device__ __forceinline__ float fusec_warp_sum(float v) {
#pragma unroll
  for (int offset = FUSEC_WARP_SIZE / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

__device__ __forceinline__ float fusec_warp_max(float v) {
#pragma unroll
  for (int offset = FUSEC_WARP_SIZE / 2; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
  return v;
}

// Block-wide reductions for 1-D blocks whose size is a multiple of the warp
// size. `scratch` holds one float per warp. Every thread gets the result.
__device__ __forceinline__ float fusec_block_sum(float v, float *scratch) {
  int lane = threadIdx.x % FUSEC_WARP_SIZE, warp = threadIdx.x / FUSEC_WARP_SIZE;
  int warps = blockDim.x / FUSEC_WARP_SIZE;
  v = fusec_warp_sum(v);
  __syncthreads(); // scratch may still be read by a previous reduction
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : 0.0f;
  return fusec_warp_sum(v);
}

__device__ __forceinline__ float fusec_block_max(float v, float *scratch) {
  int lane = threadIdx.x % FUSEC_WARP_SIZE, warp = threadIdx.x / FUSEC_WARP_SIZE;
  int warps = blockDim.x / FUSEC_WARP_SIZE;
  v = fusec_warp_max(v);
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : -INFINITY;
  return fusec_warp_max(v);
}
