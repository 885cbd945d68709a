// fusec_pipeline.h - the cp.async multistage pipeline of the sm_80 tensor-core loops, and their MMA steps.
//
// Every tensor-core main loop on sm_80 (the GEMM/conv main loop of
// fusec_gemm.h in tf32 and in f16/bf16, and the two flash-attention loops of
// fusec_attention_mma.h) walks a sequence of tiles, each copied to shared
// memory by cp.async and then multiplied. FusecPipeline<Stages> is that walk,
// written once:
//
//  * a ring of Stages shared-memory stages; the prologue issues the first
//    Stages - 1 tiles, one cp.async group each (committed even when there is
//    no tile, so that the group count, and with it wait_group's argument,
//    stays the same);
//  * each round waits with cp.async.wait_group Stages - 2 (the round's tile
//    has landed for this thread), __syncthreads() (every thread's copies are
//    visible, and the stage the previous round read is free), issues the
//    tile Stages - 1 ahead into that freed stage, commits, and computes on
//    the round's stage: one barrier per tile, the copies of the next tiles
//    in flight during the tensor-core work;
//  * after the last round, wait_group 0: nothing is left in flight when the
//    caller reuses the shared memory (split-K partials, the staged epilogue).
//
// What is copied and what is computed are the caller's: load(stage, tile)
// issues the copies of `tile` into `stage` (without committing them), and
// compute(stage, tile) consumes `stage`, which holds `tile`. Copies a caller
// issues before run() join the first stage's group (the attention loops'
// query rows). With Stages = 2 the ring is a double buffer (the attention
// loops' key tiles).
//
// The MMA steps are the precision-specific part of a loop: which mma
// instruction, how its fragments are read from a stage, and how a stage is
// padded. The loops take one as a template parameter:
//
//   FusecTf32Step<Passes>   f32 tensors, mma.m16n8k8 tf32; Passes = 3 splits
//                           each operand into big + small (3xTF32, about 1e-6
//                           relative), Passes = 1 rounds it (about 1e-3)
//   FusecHalfStep<Element>  fusec_f16 or fusec_bf16 tensors, mma.m16n8k16
//
// The interface a GEMM main loop (FusecMmaGemm, fusec_gemm.h) uses:
//   Element             the operands' element type
//   kK                  k of one mma: a stage's BK is whole steps
//   kPad                elements each k-contiguous shared row is padded by
//                       (A, and B stored N x K); K x N rows take 8
//   aFragment(lane, warpRow, stride), bFragment<BTransposed>(lane, warpCol,
//   stride)             where this lane's fragment reads start in a stage
//   multiply<BTransposed, AStride, BStride>(acc, aStage, aFragment, bStage,
//   bFragment, kk)      acc += the k-slice kk .. kk + kK - 1 of the stage:
//                       the warp's fragment loads and its mmas
// and the attention loops use mma(...) for their own fragments. A new MMA
// (another precision, another instruction) is a new step with this
// interface; the pipeline, the copies, the split and the epilogue stay.
#pragma once

#include "fusec_mma.h"

// Tile descriptions. A tile template takes one description type whose
// members it reads by name (Tile::kBlockM, Tile::Element, ...): a generated
// kernel defines it as `struct <kernel>_tile` from its #fuse.config, field
// by field (codegen/KernelBuilder.h, TileDescription):
//
//   kTemplate                  the config's template, for the reader
//   kBlockM, kBlockN, kBlockK  the block tile
//   kWarpM, kWarpN             a warp's tile
//   kStages                    the pipeline's shared-memory stages
//   kPasses                    3 (3xTF32) or 1 (tf32) products per mma
//   kSplitK                    (bool) whether the kernel is split-capable (the
//                              most slices is the launch's, so kernels that
//                              differ only in it share one program)
//   kAVector, kBVector         elements per copy of A and of B
//   Element                    the operands' type: float, fusec_f16, fusec_bf16
//
// and an op's geometry beside them where a template needs it (kHeadDim and
// kValueDim of attention, kBNMajor of the Hopper GEMM, kTransB of the
// few-row template, a convolution's kGroup and window for the SIMT loops).
// FusecCheckMmaTile reports a member a description lacks by its name (the
// FusecTileHas_ traits are fusec_cuda_prelude.h's, shared by every
// template).

/// What the GEMM main loop (FusecMmaGemm, fusec_gemm.h) reads of its tile
/// description, each member checked by name.
template <class Tile> struct FusecCheckMmaTile {
  static_assert(FusecTileHas_kBlockM<Tile>::value, "the tile description has no kBlockM");
  static_assert(FusecTileHas_kBlockN<Tile>::value, "the tile description has no kBlockN");
  static_assert(FusecTileHas_kBlockK<Tile>::value, "the tile description has no kBlockK");
  static_assert(FusecTileHas_kWarpM<Tile>::value, "the tile description has no kWarpM");
  static_assert(FusecTileHas_kWarpN<Tile>::value, "the tile description has no kWarpN");
  static_assert(FusecTileHas_kStages<Tile>::value, "the tile description has no kStages");
  static_assert(FusecTileHas_kPasses<Tile>::value, "the tile description has no kPasses");
  static_assert(FusecTileHas_kAVector<Tile>::value, "the tile description has no kAVector");
  static_assert(FusecTileHas_kBVector<Tile>::value, "the tile description has no kBVector");
  static_assert(FusecTileHasElement<Tile>::value, "the tile description has no Element");
  static constexpr bool value = true;
};

/// What the attention loops (fusec_attention_mma.h) read of theirs.
template <class Tile> struct FusecCheckAttentionTile {
  static_assert(FusecTileHas_kHeadDim<Tile>::value, "the attention description has no kHeadDim");
  static_assert(FusecTileHas_kValueDim<Tile>::value, "the attention description has no kValueDim");
  static_assert(FusecTileHas_kBlockN<Tile>::value, "the attention description has no kBlockN");
  static_assert(FusecTileHas_kPasses<Tile>::value, "the attention description has no kPasses");
  static_assert(FusecTileHasElement<Tile>::value, "the attention description has no Element");
  static constexpr bool value = true;
};

/// A tile description from positional arguments, for hand-written kernels
/// (the emulation tests' tables of shapes). Generated kernels never use it:
/// they define their description by name.
template <int BM, int BN, int BK, int WM, int WN, int Stages, int AVector, int BVector = AVector, int Passes = 3,
          typename ElementType = float>
struct FusecTileOf {
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK, kWarpM = WM, kWarpN = WN, kStages = Stages;
  static constexpr int kPasses = Passes, kSplitK = 1, kAVector = AVector, kBVector = BVector;
  using Element = ElementType;
};

template <int Stages> struct FusecPipeline {
  static_assert(Stages >= 2, "the pipeline needs at least two stages");
  static constexpr int kStages = Stages;

  /// Runs tiles first .. first + count - 1 through the ring: load(stage,
  /// tile) issues a tile's copies, compute(stage, tile) consumes them. Every
  /// thread of the block calls it with the same first and count.
  template <typename Load, typename Compute>
  static __device__ __forceinline__ void run(int first, int count, Load &load, Compute &compute) {
#pragma unroll
    for (int stage = 0; stage < Stages - 1; ++stage) {
      if (stage < count)
        load(stage, first + stage);
      fusec_cp_async_commit();
    }
    int readStage = 0, writeStage = Stages - 1;
    for (int i = 0; i < count; ++i) {
      if constexpr (Stages == 2) {
        // A double buffer: the stages alternate with the round, no counter
        // to keep (one register fewer across the attention loops' rounds).
        readStage = i & 1;
        writeStage = readStage ^ 1;
      }
      // Tile i has landed for this thread; the barrier makes every thread's
      // copies visible and frees the stage read in the last round.
      fusec_cp_async_wait<Stages - 2>();
      __syncthreads();
      if (i + Stages - 1 < count)
        load(writeStage, first + i + Stages - 1);
      fusec_cp_async_commit();
      compute(readStage, first + i);
      if constexpr (Stages != 2) {
        readStage = readStage + 1 == Stages ? 0 : readStage + 1;
        writeStage = writeStage + 1 == Stages ? 0 : writeStage + 1;
      }
    }
    fusec_cp_async_wait<0>();
  }
};

/// f32 operands on mma.m16n8k8 tf32: an 8x8 b16 matrix of ldmatrix is an
/// 8 x 4 block of floats, exactly an m16n8k8 tf32 fragment.
template <int Passes> struct FusecTf32Step {
  static_assert(Passes == 1 || Passes == 3, "1 (tf32) or 3 (3xTF32) products");
  using Element = float;
  using Accumulator = float;
  static constexpr bool kSplitK = true;
  static constexpr int kK = 8;
  static constexpr int kPad = 4;

  /// d += a b with the passes' products: small_a big_b + big_a small_b +
  /// big_a big_b in that order, or big_a big_b alone.
  static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&aBig)[4], const unsigned (&aSmall)[4],
                                             const unsigned (&bBig)[2], const unsigned (&bSmall)[2]) {
    if constexpr (Passes == 3) {
      fusec_mma_m16n8k8_tf32(d, aSmall, bBig, d);
      fusec_mma_m16n8k8_tf32(d, aBig, bSmall, d);
    }
    fusec_mma_m16n8k8_tf32(d, aBig, bBig, d);
  }

  /// A, x4: matrix q = lane / 8 is rows (q % 2) * 8.. and k (q / 2) * 4..
  static __device__ __forceinline__ int aFragment(int lane, int warpRow, int stride) {
    return (warpRow + (lane / 8) % 2 * 8 + lane % 8) * stride + lane / 8 / 2 * 4;
  }
  /// B as N x K, x2: matrix q = (lane / 8) % 2 is k q * 4.. of rows n 0..7;
  /// B as K x N: two scalar loads, k t and t + 4 of column g.
  template <bool BTransposed> static __device__ __forceinline__ int bFragment(int lane, int warpCol, int stride) {
    return BTransposed ? (warpCol + lane % 8) * stride + (lane / 8) % 2 * 4 : (lane % 4) * stride + warpCol + lane / 4;
  }

  template <bool BTransposed, int AStride, int BStride, int MmaM, int MmaN>
  static __device__ __forceinline__ void multiply(float (&accumulator)[MmaM][MmaN][4], const float *aStage,
                                                  int aFragment, const float *bStage, int bFragment, int kk) {
    unsigned aBig[MmaM][4], aSmall[MmaM][4], bBig[MmaN][2], bSmall[MmaN][2];
#pragma unroll
    for (int i = 0; i < MmaM; ++i) {
      fusec_ldmatrix<4, false>(aBig[i], aStage + aFragment + i * 16 * AStride + kk);
      fusec_split_tf32<Passes>(aBig[i], aSmall[i]);
    }
#pragma unroll
    for (int j = 0; j < MmaN; ++j) {
      if constexpr (BTransposed) {
        fusec_ldmatrix<2, false>(bBig[j], bStage + bFragment + j * 8 * BStride + kk);
      } else {
        const float *column = bStage + bFragment + kk * BStride + j * 8;
        bBig[j][0] = unsigned(__float_as_int(column[0]));
        bBig[j][1] = unsigned(__float_as_int(column[4 * BStride]));
      }
      fusec_split_tf32<Passes>(bBig[j], bSmall[j]);
    }
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int j = 0; j < MmaN; ++j)
        mma(accumulator[i][j], aBig[i], aSmall[i], bBig[j], bSmall[j]);
  }
};

/// The m16n8k16 mma of an element type.
template <typename Element> struct FusecHalfMma;
template <> struct FusecHalfMma<fusec_f16> {
  static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    fusec_mma_m16n8k16_f16(d, a, b, d);
  }
};
template <> struct FusecHalfMma<fusec_bf16> {
  static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    fusec_mma_m16n8k16_bf16(d, a, b, d);
  }
};

/// f16 or bf16 operands on mma.m16n8k16 (f32 accumulators): products of
/// 16-bit operands are exact in f32 and added in f32. Fragments are 8x8
/// matrices of 16-bit elements: A with ldmatrix.x4 (rows 0-7 / 8-15 by k
/// 0-7 / 8-15: exactly a[0..3]), B as N x K with x2 (n 0-7 by k 0-7 /
/// 8-15), B as K x N with x2.trans (k 0-7 / 8-15 by n 0-7, transposed into
/// b[0], b[1]).
template <typename ElementType> struct FusecHalfStep {
  using Element = ElementType;
  static_assert(sizeof(Element) == 2, "FusecHalfStep multiplies f16 or bf16 tensors");
  using Accumulator = float;
  static constexpr bool kSplitK = true;
  static constexpr int kK = 16;
  static constexpr int kPad = 8;

  /// d += a b.
  static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    FusecHalfMma<Element>::run(d, a, b);
  }

  /// A, x4: matrix q = lane / 8 is rows (q % 2) * 8.. by k (q / 2) * 8..
  static __device__ __forceinline__ int aFragment(int lane, int warpRow, int stride) {
    return (warpRow + (lane / 8) % 2 * 8 + lane % 8) * stride + lane / 8 / 2 * 8;
  }
  /// B as N x K, x2: matrix q = (lane / 8) % 2 is rows n 0..7 by k q * 8..;
  /// B as K x N, x2.trans: lane l < 16 addresses row k = l (matrix l / 8).
  template <bool BTransposed> static __device__ __forceinline__ int bFragment(int lane, int warpCol, int stride) {
    return BTransposed ? (warpCol + lane % 8) * stride + (lane / 8) % 2 * 8 : (lane % 16) * stride + warpCol;
  }

  template <bool BTransposed, int AStride, int BStride, int MmaM, int MmaN>
  static __device__ __forceinline__ void multiply(float (&accumulator)[MmaM][MmaN][4], const Element *aStage,
                                                  int aFragment, const Element *bStage, int bFragment, int kk) {
    unsigned aFragments[MmaM][4], bFragments[MmaN][2];
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
      fusec_ldmatrix<4, false>(aFragments[i], aStage + aFragment + i * 16 * AStride + kk);
#pragma unroll
    for (int j = 0; j < MmaN; ++j) {
      if constexpr (BTransposed)
        fusec_ldmatrix<2, false>(bFragments[j], bStage + bFragment + j * 8 * BStride + kk);
      else
        fusec_ldmatrix<2, true>(bFragments[j], bStage + bFragment + kk * BStride + j * 8);
    }
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int j = 0; j < MmaN; ++j)
        mma(accumulator[i][j], aFragments[i], bFragments[j]);
  }
};

/// The m16n8k32 mma of an A element type, B signed.
template <typename Element> struct FusecInt8Mma;
template <> struct FusecInt8Mma<signed char> {
  static __device__ __forceinline__ void run(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    fusec_mma_m16n8k32_s8(d, a, b, d);
  }
};
template <> struct FusecInt8Mma<unsigned char> {
  static __device__ __forceinline__ void run(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    fusec_mma_m16n8k32_u8s8(d, a, b, d);
  }
};

/// 8-bit integer operands on mma.m16n8k32 (s32 accumulators, exact): A of
/// `ElementType` (u8 activations, or s8), B signed and N x K (the weights,
/// transposed at compile time: ldmatrix cannot transpose bytes). An 8x8
/// b16 matrix of ldmatrix is 8 rows of 16 bytes, 16 k-values, and lane l
/// receives bytes 4(l%4)..4(l%4)+3 of row l/4: exactly the 8-bit fragment
/// layout (fusec_mma.h). So A with x4 (rows 0-7 / 8-15 by k 0-15 / 16-31:
/// a[0..3] of m16n8k32), B with x2 (n 0-7 by k 0-15 / 16-31: b[0], b[1]).
/// Shared rows are padded by 16 bytes, as the 16-bit steps pad by 8
/// elements, so the 8 rows of one ldmatrix fall in distinct banks.
template <typename ElementType> struct FusecInt8Step {
  using Element = ElementType;
  static_assert(sizeof(Element) == 1, "FusecInt8Step multiplies 8-bit tensors");
  using Accumulator = int;
  /// s32 partial sums would need their own workspace reduction.
  static constexpr bool kSplitK = false;
  static constexpr int kK = 32;
  static constexpr int kPad = 16;

  /// A, x4: matrix q = lane / 8 is rows (q % 2) * 8.. by k (q / 2) * 16..
  static __device__ __forceinline__ int aFragment(int lane, int warpRow, int stride) {
    return (warpRow + (lane / 8) % 2 * 8 + lane % 8) * stride + lane / 8 / 2 * 16;
  }
  /// B as N x K, x2: matrix q = (lane / 8) % 2 is rows n 0..7 by k q * 16..
  template <bool BTransposed> static __device__ __forceinline__ int bFragment(int lane, int warpCol, int stride) {
    static_assert(BTransposed, "8-bit B is N x K: ldmatrix.trans moves 16-bit elements, not bytes");
    return (warpCol + lane % 8) * stride + (lane / 8) % 2 * 16;
  }

  template <bool BTransposed, int AStride, int BStride, int MmaM, int MmaN, typename BElement>
  static __device__ __forceinline__ void multiply(int (&accumulator)[MmaM][MmaN][4], const Element *aStage,
                                                  int aFragment, const BElement *bStage, int bFragment, int kk) {
    static_assert(sizeof(BElement) == 1, "8-bit B");
    unsigned aFragments[MmaM][4], bFragments[MmaN][2];
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
      fusec_ldmatrix<4, false>(aFragments[i], aStage + aFragment + i * 16 * AStride + kk);
#pragma unroll
    for (int j = 0; j < MmaN; ++j)
      fusec_ldmatrix<2, false>(bFragments[j], bStage + bFragment + j * 8 * BStride + kk);
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int j = 0; j < MmaN; ++j)
        FusecInt8Mma<Element>::run(accumulator[i][j], aFragments[i], bFragments[j]);
  }
};
