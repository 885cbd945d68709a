// fusec_cuda_prelude.h - included first by every kernel fusec generates.
//
// Small device helpers shared by the generated kernels. Under NVRTC it is
// passed as an in-memory header; for CPU emulation in the test suite
// (FUSEC_EMULATION) it first includes the emulation header, so the exact
// kernel text NVRTC compiles also runs on the host.
#pragma once
#ifdef FUSEC_EMULATION
#include "fusec_cuda_emulation.h"
#include "support/HalfFloat.h"
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

__device__ __forceinline__ float fusec_leaky_relu(float x, float alpha) { return x >= 0.0f ? x : alpha * x; }

__device__ __forceinline__ float fusec_hard_sigmoid(float x, float alpha, float beta) {
  return fminf(fmaxf(alpha * x + beta, 0.0f), 1.0f);
}

__device__ __forceinline__ float fusec_hard_swish(float x) {
  return x * fminf(fmaxf(x * (1.0f / 6.0f) + 0.5f, 0.0f), 1.0f);
}

// Min and Max propagate NaN (as torch.minimum/maximum do); fminf/fmaxf
// would return the other operand.
__device__ __forceinline__ float fusec_min(float a, float b) { return (a < b || a != a) ? a : b; }
__device__ __forceinline__ float fusec_max(float a, float b) { return (a > b || a != a) ? a : b; }

// Mod: with `fmod` the remainder has the dividend's sign (C fmod), without it
// the divisor's (Python %; Mod-28 spells it out: a zero result too).
__device__ __forceinline__ float fusec_mod(float a, float b, bool fmod) {
  float r = fmodf(a, b);
  if (!fmod && r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
    r += b;
  else if (!fmod && r == 0.0f)
    r = copysignf(0.0f, b);
  return r;
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

// Any associative, commutative `combine` (Max and Min that propagate NaN,
// products), block-wide; lanes past the last warp contribute `identity`.
template <typename Combine>
__device__ __forceinline__ float fusec_block_reduce(float v, float identity, float *scratch, Combine combine) {
  int lane = threadIdx.x % FUSEC_WARP_SIZE, warp = threadIdx.x / FUSEC_WARP_SIZE;
  int warps = blockDim.x / FUSEC_WARP_SIZE;
#pragma unroll
  for (int offset = FUSEC_WARP_SIZE / 2; offset > 0; offset /= 2)
    v = combine(v, __shfl_xor_sync(0xffffffff, v, offset));
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : identity;
#pragma unroll
  for (int offset = FUSEC_WARP_SIZE / 2; offset > 0; offset /= 2)
    v = combine(v, __shfl_xor_sync(0xffffffff, v, offset));
  return v;
}

//===----------------------------------------------------------------------===//
// Scalar arguments
//
// A shape-generic kernel reads its sizes from one parameter after `batch`,
// N unsigned ints (the plan's launch `arguments`), instead of compiling
// them in. Divisions by such a size use FusecDivisor: for 0 <= n < 2^31,
// n / d = (umulhi(n, multiplier) + n) >> shift, with shift = ceil(log2 d)
// and multiplier = floor(2^32 * (2^shift - d) / d) + 1, computed on the host
// (codegen/KernelBuilder.cpp, fastDivisor). The sum cannot overflow: umulhi
// is at most n < 2^31.
//===----------------------------------------------------------------------===//

template <int N> struct FusecArguments {
  unsigned value[N];
};

struct FusecDivisor {
  unsigned divisor, multiplier, shift;
  /// n / divisor, for n < 2^31.
  __device__ __forceinline__ unsigned divide(unsigned n) const { return (__umulhi(n, multiplier) + n) >> shift; }
};

/// The FusecDivisor of `d` (1 <= d < 2^31), for kernels whose sizes are
/// constants (the template tests); generated kernels get theirs as
/// arguments.
__device__ __forceinline__ FusecDivisor fusec_divisor(unsigned d) {
  unsigned shift = 0;
  while ((1ull << shift) < d)
    ++shift;
  const unsigned long long multiplier = ((1ull << 32) * ((1ull << shift) - d)) / d + 1;
  return FusecDivisor{d, unsigned(multiplier), shift};
}

//===----------------------------------------------------------------------===//
// Element types (docs/plan-format.md, "Element types")
//
// Kernels compute in registers of a value's register type: float for f32,
// f16 and bf16 values, long long / int / bool for i64 / i32 / i1. Loads
// widen 16-bit floats exactly; a value the plan stores as f16 or bf16 is
// rounded (to nearest even) where an op produces it and where it is stored,
// which are the rounding points of the CPU reference.
//===----------------------------------------------------------------------===//

struct fusec_f16 {
  unsigned short bits;
};
struct fusec_bf16 {
  unsigned short bits;
};

__device__ __forceinline__ float fusec_ld(const float *p) { return __ldg(p); }
__device__ __forceinline__ long long fusec_ld(const long long *p) { return __ldg(p); }
__device__ __forceinline__ int fusec_ld(const int *p) { return __ldg(p); }
__device__ __forceinline__ bool fusec_ld(const bool *p) { return *p; }
__device__ __forceinline__ signed char fusec_ld(const signed char *p) { return __ldg(p); }
__device__ __forceinline__ unsigned char fusec_ld(const unsigned char *p) { return __ldg(p); }

__device__ __forceinline__ float fusec_to_float(float x) { return x; }
__device__ __forceinline__ float fusec_to_float(fusec_f16 x) {
#ifdef FUSEC_EMULATION
  return fusec::halfBitsToFloat(x.bits);
#else
  float result;
  asm("cvt.f32.f16 %0, %1;" : "=f"(result) : "h"(x.bits));
  return result;
#endif
}
__device__ __forceinline__ float fusec_to_float(fusec_bf16 x) { return __int_as_float(int(unsigned(x.bits) << 16)); }

__device__ __forceinline__ float fusec_ld(const fusec_f16 *p) {
  return fusec_to_float(fusec_f16{__ldg(reinterpret_cast<const unsigned short *>(p))});
}
__device__ __forceinline__ float fusec_ld(const fusec_bf16 *p) {
  return fusec_to_float(fusec_bf16{__ldg(reinterpret_cast<const unsigned short *>(p))});
}

/// fusec_convert<T>::from(x): the T stored for register value x. Floats
/// round to nearest even; floats to integers truncate toward zero and
/// saturate, NaN gives 0 (PTX cvt.rzi's rules); anything to bool is x != 0.
template <typename T> struct fusec_convert;
template <> struct fusec_convert<float> {
  static __device__ __forceinline__ float from(float x) { return x; }
};
template <> struct fusec_convert<fusec_f16> {
  static __device__ __forceinline__ fusec_f16 from(float x) {
#ifdef FUSEC_EMULATION
    return fusec_f16{fusec::floatToHalfBits(x)};
#else
    fusec_f16 result;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(result.bits) : "f"(x));
    return result;
#endif
  }
};
template <> struct fusec_convert<fusec_bf16> {
  static __device__ __forceinline__ fusec_bf16 from(float x) {
#if !defined(FUSEC_EMULATION) && __CUDA_ARCH__ >= 800
    // One instruction; the same rounding (to nearest even) as the bit
    // arithmetic below, which the emulation and older GPUs run. A NaN stays
    // a NaN (its payload may differ). Not yet checked on hardware.
    fusec_bf16 result;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(result.bits) : "f"(x));
    return result;
#else
    const unsigned bits = unsigned(__float_as_int(x));
    if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a (quiet) NaN
      return fusec_bf16{(unsigned short)((bits >> 16) | 0x40u)};
    return fusec_bf16{(unsigned short)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16)};
#endif
  }
};
template <typename I> __device__ __forceinline__ I fusec_float_to_int(float x, float low, float high, I min, I max) {
  if (x != x)
    return I(0);
  if (x >= high)
    return max;
  if (x < low)
    return min;
  return I(x);
}
template <> struct fusec_convert<long long> {
  static __device__ __forceinline__ long long from(float x) {
    return fusec_float_to_int<long long>(x, -9223372036854775808.0f, 9223372036854775808.0f,
                                         (-9223372036854775807LL - 1), 9223372036854775807LL);
  }
  static __device__ __forceinline__ long long from(long long x) { return x; }
  static __device__ __forceinline__ long long from(int x) { return x; }
  static __device__ __forceinline__ long long from(bool x) { return x ? 1 : 0; }
};
template <> struct fusec_convert<int> {
  static __device__ __forceinline__ int from(float x) {
    return fusec_float_to_int<int>(x, -2147483648.0f, 2147483648.0f, (-2147483647 - 1), 2147483647);
  }
  static __device__ __forceinline__ int from(long long x) {
    return x > 2147483647LL ? 2147483647 : x < -2147483648LL ? (-2147483647 - 1) : int(x);
  }
  static __device__ __forceinline__ int from(int x) { return x; }
  static __device__ __forceinline__ int from(bool x) { return x ? 1 : 0; }
};
template <typename Q> struct fusec_convert_quantized {
  static __device__ __forceinline__ Q from(float x) {
    return fusec_float_to_int<Q>(x, Q(-1) < Q(0) ? -128.0f : 0.0f, Q(-1) < Q(0) ? 128.0f : 256.0f,
                                 Q(-1) < Q(0) ? Q(-128) : Q(0), Q(-1) < Q(0) ? Q(127) : Q(255));
  }
  static __device__ __forceinline__ Q from(long long x) {
    const long long low = Q(-1) < Q(0) ? -128 : 0, high = Q(-1) < Q(0) ? 127 : 255;
    return Q(x < low ? low : x > high ? high : x);
  }
  static __device__ __forceinline__ Q from(int x) { return from((long long)x); }
  static __device__ __forceinline__ Q from(bool x) { return Q(x ? 1 : 0); }
};
template <> struct fusec_convert<signed char> : fusec_convert_quantized<signed char> {};
template <> struct fusec_convert<unsigned char> : fusec_convert_quantized<unsigned char> {};
template <> struct fusec_convert<bool> {
  static __device__ __forceinline__ bool from(float x) { return x != 0.0f; }
  static __device__ __forceinline__ bool from(long long x) { return x != 0; }
  static __device__ __forceinline__ bool from(int x) { return x != 0; }
  static __device__ __forceinline__ bool from(bool x) { return x; }
};

/// QuantizeLinear (fuse.quantize_linear): the f32 quotient rounded to the
/// nearest integer, ties to even (rintf: cvt.rni), plus the zero point,
/// saturated to Q's range (signed char: i8, unsigned char: u8); NaN gives
/// the zero point. The division is IEEE's (NVRTC's default -prec-div=true),
/// so the CPU reference's quotient is the same float.
template <typename Q> __device__ __forceinline__ Q fusec_quantize(float x, float scale, int zeroPoint) {
  const float quotient = x / scale, zero = float(zeroPoint);
  const float shifted = quotient != quotient ? zero : rintf(quotient) + zero;
  const float low = Q(-1) < Q(0) ? -128.0f : 0.0f, high = Q(-1) < Q(0) ? 127.0f : 255.0f;
  return Q(fminf(fmaxf(shifted, low), high));
}

/// DequantizeLinear (fuse.dequantize_linear): the difference exact, the
/// product one f32 rounding.
__device__ __forceinline__ float fusec_dequantize(int q, float scale, int zeroPoint) {
  return float(q - zeroPoint) * scale;
}

/// `x` as a float rounded to odd: truncated to 24 significant bits, the
/// lowest set when bits were dropped. Rounding that to f16 or bf16 (11 or 8
/// bits) gives the correctly rounded integer, which rounding to nearest
/// first could not (it may round twice).
__device__ __forceinline__ float fusec_int_to_float_odd(long long x) {
  const bool negative = x < 0;
  unsigned long long magnitude = negative ? 0ull - (unsigned long long)x : (unsigned long long)x;
  int shift = 0;
  bool sticky = false;
  while (magnitude >= (1ull << 24)) {
    sticky |= (magnitude & 1ull) != 0;
    magnitude >>= 1;
    ++shift;
  }
  float value = float(magnitude | (sticky ? 1ull : 0ull)) * __int_as_float((127 + shift) << 23);
  return negative ? -value : value;
}

/// x rounded to the precision of T (the value an op stores as T).
template <typename T> __device__ __forceinline__ float fusec_round(float x) {
  return fusec_to_float(fusec_convert<T>::from(x));
}
template <> __device__ __forceinline__ float fusec_round<float>(float x) { return x; }

// Tile descriptions (docs/codegen.md#tile-descriptions). A template takes
// one description type and reads its members by name (Tile::kBlockM,
// Tile::Element, ...); a generated kernel defines it as `struct
// <kernel>_tile` (codegen/KernelBuilder.h, TileDescription). What follows
// tells whether a description has a member, so that each template's
// FusecCheck...Tile (fusec_pipeline.h, fusec_gemm_sm90.h, fusec_gemv.h,
// fusec_simt.h) can name the member a description lacks.

template <class...> using fusec_void_t = void;

template <class A, class B> struct FusecSameType {
  static constexpr bool value = false;
};
template <class A> struct FusecSameType<A, A> {
  static constexpr bool value = true;
};

#define FUSEC_TILE_MEMBER(member)                                                                                      \
  template <class Tile, class = void> struct FusecTileHas_##member {                                                   \
    static constexpr bool value = false;                                                                               \
  };                                                                                                                   \
  template <class Tile> struct FusecTileHas_##member<Tile, fusec_void_t<decltype(Tile::member)>> {                     \
    static constexpr bool value = true;                                                                                \
  };
// The config's fields.
FUSEC_TILE_MEMBER(kBlockM)
FUSEC_TILE_MEMBER(kBlockN)
FUSEC_TILE_MEMBER(kBlockK)
FUSEC_TILE_MEMBER(kWarpM)
FUSEC_TILE_MEMBER(kWarpN)
FUSEC_TILE_MEMBER(kStages)
FUSEC_TILE_MEMBER(kPasses)
FUSEC_TILE_MEMBER(kAVector)
FUSEC_TILE_MEMBER(kBVector)
// The op's geometry: attention's head dimensions, B's layout (the Hopper
// GEMM's kBNMajor, the few-row template's kTransB), a convolution's groups
// and window.
FUSEC_TILE_MEMBER(kHeadDim)
FUSEC_TILE_MEMBER(kValueDim)
FUSEC_TILE_MEMBER(kBNMajor)
FUSEC_TILE_MEMBER(kTransB)
FUSEC_TILE_MEMBER(kGroup)
FUSEC_TILE_MEMBER(kStrideH)
FUSEC_TILE_MEMBER(kStrideW)
FUSEC_TILE_MEMBER(kPadTop)
FUSEC_TILE_MEMBER(kPadLeft)
FUSEC_TILE_MEMBER(kDilationH)
FUSEC_TILE_MEMBER(kDilationW)
FUSEC_TILE_MEMBER(kChannelsLast)
// The Hopper conv's geometry: the window, the channels, the output image
// and a block's tile of it.
FUSEC_TILE_MEMBER(kTapsH)
FUSEC_TILE_MEMBER(kTapsW)
FUSEC_TILE_MEMBER(kChannels)
FUSEC_TILE_MEMBER(kOutHeight)
FUSEC_TILE_MEMBER(kOutWidth)
FUSEC_TILE_MEMBER(kTileHeight)
FUSEC_TILE_MEMBER(kTileWidth)
#undef FUSEC_TILE_MEMBER
#define FUSEC_TILE_TYPE(member)                                                                                        \
  template <class Tile, class = void> struct FusecTileHas##member {                                                    \
    static constexpr bool value = false;                                                                               \
  };                                                                                                                   \
  template <class Tile> struct FusecTileHas##member<Tile, fusec_void_t<typename Tile::member>> {                       \
    static constexpr bool value = true;                                                                                \
  };
// The config's operand type, and the few-row template's tensors' storage
// type.
FUSEC_TILE_TYPE(Element)
FUSEC_TILE_TYPE(Storage)
#undef FUSEC_TILE_TYPE
