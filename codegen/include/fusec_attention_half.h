// fusec_attention_half.h - flash-attention main loop on the tensor cores (f16/bf16).
//
// FusecAttentionHalf is FusecAttentionMma (fusec_attention_mma.h: the key
// tiles on FusecPipeline<2>, the softmax, the split, the store) with
// FusecHalfStep; this file holds that step's fragments. What the loop does:
//
// fuse.attention for f16 or bf16 Q, K and V with head dimensions that are
// multiples of 16, in the shape of FlashAttention-2: one block of 4 warps
// computes kBlockM = 64 query rows of one (batch, head) matrix, each warp
// 16 of them, for the whole key sequence, walked kBlockN keys at a time.
//
//  * Both products are mma.m16n8k16 (f16/bf16 in, f32 accumulators). S = Q
//    Kᵀ: the warp's Q rows are loaded once into A fragments (ldmatrix.x4)
//    and stay in registers for every key tile; K's tile is N x K for the
//    mma (keys by head dim, rows contiguous), read with ldmatrix.x4 (two
//    n8 tiles per instruction). O += P V: P never leaves registers: the f32
//    accumulators of two adjacent n8 score tiles hold, lane by lane, the
//    elements of the m16k16 A fragment of the next mma (rows g and g + 8,
//    columns 2t, 2t + 1 and 2t + 8, 2t + 9), so P is rounded to the element
//    type and packed in place. V's tile is K x N (keys by value dim) and is
//    read with ldmatrix.x4.trans.
//  * Online softmax per row: the running maximum m and sum l, the output
//    accumulators rescaled by exp(m_old - m_new) when the maximum grows,
//    in log2 units (one ex2 per score, the scale folded into one FMA).
//    A lane holds rows g and g + 8 of its warp; a row's maximum is reduced
//    over the 4 lanes of its quad (two shuffles); l stays a per-lane partial
//    sum, reduced once at the end (every lane of a quad rescales by the
//    same factor). l sums the probabilities as rounded for the P V product,
//    so the output is an exact convex combination of V's rows with the
//    rounded weights: rounding P perturbs the weights by one unit of the
//    element type (2^-11 relative for f16, 2^-8 for bf16), not the sum.
//  * K and V tiles are double-buffered in shared memory (FusecPipeline<2>),
//    filled by 16-byte cp.async copies: tile j + 1 is in flight while tile
//    j is multiplied; one barrier per key tile. Rows past the sequences are zero-filled and
//    read nothing (a zero V row times a zero probability adds nothing).
//  * Shared rows are padded by 8 elements: the 8 row addresses of an
//    ldmatrix are (D + 8) / 2 = 4 mod 8 words apart for any D that is a
//    multiple of 16, so the 8 rows of 16 bytes cover the 32 banks once.
//  * Causal kernels stop at the block's last attended key: the key tiles
//    above the diagonal are never loaded or multiplied.
//  * Split over the keys (flash-decoding), for grids of few blocks (batch 1,
//    few heads): with a FusecSplitK of slices > 1 the block walks its
//    slice's share of the key tiles, publishes each row's running maximum
//    and sum and its unnormalised output (fusec_split_k.h), and the tile's
//    last block merges the slices in slice order: M = max m_s, O = sum O_s
//    2^(m_s - M), L = sum l_s 2^(m_s - M); then O / L as unsplit. A slice
//    with no key tile publishes m = -inf, l = 0 and weighs nothing.
//
// The scores never reach global memory: global traffic is Q once, K and V
// once per query tile, the mask where there is one, and O.
//
// Requires: D, DV multiples of 16 up to 128; each matrix's rows 16-byte
// aligned (row strides and offsets multiples of 8 elements); blockDim.x ==
// kThreads; kSmemBytes of shared memory at `smem`, 16-byte aligned.
#ifndef FUSEC_ATTENTION_HALF_H
#define FUSEC_ATTENTION_HALF_H

#include "fusec_attention_mma.h"

/// The fragments of FusecAttentionMma with f16/bf16 operands (mma.m16n8k16).
template <typename Element, int D, int DV, int BlockN>
struct FusecAttentionFragments<FusecHalfStep<Element>, D, DV, BlockN> {
  using Step = FusecHalfStep<Element>;
  static_assert(D % 16 == 0 && DV % 16 == 0, "head dimensions are whole k16 steps and pairs of n8 tiles");
  static_assert(D <= 128 && DV <= 128, "the warp's Q fragments and output accumulators stay in registers");
  /// Keys per tile (the config's block N): 64, or 32 for heads above 64,
  /// whose accumulators and tiles are twice as large.
  static_assert(BlockN == 32 || (BlockN == 64 && D <= 64 && DV <= 64),
                "32 keys per tile, or 64 for heads up to 64 (the accumulators stay in registers)");
  static constexpr int kQStride = D + 8, kKStride = D + 8, kVStride = DV + 8;
  static constexpr int kScoreTiles = BlockN / 8, kOutputTiles = DV / 8;

  /// The warp's Q rows as A fragments, loaded once and kept in registers
  /// for every key tile.
  struct Query {
    unsigned q[D / 16][4];
    __device__ __forceinline__ Query(const Element *, int, int) {}
    /// x4: matrix lane / 8 is rows (lane / 8 % 2) * 8.. by columns
    /// (lane / 16) * 8.. of the k16 step.
    __device__ __forceinline__ void load(const Element *qTile, int lane, int warp) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        fusec_ldmatrix<4, false>(q[kk], qTile + (warp * 16 + lane / 8 % 2 * 8 + lane % 8) * kQStride + kk * 16 +
                                            lane / 16 * 8);
    }
  };

  /// Two m16n8k16 mmas of one A fragment: `first` += a * (b[0], b[1]), the
  /// first n8 tile an ldmatrix.x4 loaded, `second` += a * (b[2], b[3]).
  static __device__ __forceinline__ void mmaPair(float (&first)[4], float (&second)[4], const unsigned (&a)[4],
                                                 const unsigned (&b)[4]) {
    const unsigned low[2] = {b[0], b[1]}, high[2] = {b[2], b[3]};
    Step::mma(first, a, low);
    Step::mma(second, a, high);
  }

  /// K as N x K, x4: matrices (keys j * 8.., d 0-7 / 8-15), then keys
  /// (j + 1) * 8...
  static __device__ __forceinline__ void scores(float (&s)[kScoreTiles][4], const Query &query, const Element *kStage,
                                                int lane) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
      for (int j = 0; j < kScoreTiles; j += 2) {
        unsigned b[4];
        fusec_ldmatrix<4, false>(b,
                                 kStage + (j * 8 + lane / 16 * 8 + lane % 8) * kKStride + kk * 16 + lane / 8 % 2 * 8);
        mmaPair(s[j], s[j + 1], query.q[kk], b);
      }
  }

  /// Element r of score tile j is key j * 8 + 2t (+ 1 for odd r).
  static __device__ __forceinline__ int keyOf(int j, int r, int t) { return j * 8 + 2 * t + r % 2; }

  /// `low` and `high` rounded to Element, packed into one register (low
  /// half first); their rounded values are added to `rowSum`.
  static __device__ __forceinline__ unsigned pack(float low, float high, float &rowSum) {
    const Element lowElement = fusec_convert<Element>::from(low), highElement = fusec_convert<Element>::from(high);
    rowSum += fusec_to_float(lowElement) + fusec_to_float(highElement);
    return unsigned(lowElement.bits) | unsigned(highElement.bits) << 16;
  }

  /// P, rounded and packed into the A fragments of P V: k16 step c is score
  /// tiles 2c (columns 2t, 2t + 1) and 2c + 1 (2t + 8, 2t + 9).
  struct Probabilities {
    unsigned p[BlockN / 16][4];
  };
  static __device__ __forceinline__ void operand(const float (&s)[kScoreTiles][4], Probabilities &p,
                                                 float (&rowSum)[2]) {
#pragma unroll
    for (int j = 0; j < kScoreTiles; ++j) {
      p.p[j / 2][j % 2 * 2] = pack(s[j][0], s[j][1], rowSum[0]);
      p.p[j / 2][j % 2 * 2 + 1] = pack(s[j][2], s[j][3], rowSum[1]);
    }
  }

  /// V as K x N, x4.trans: matrices (keys 0-7 / 8-15 of the step, columns
  /// j * 8..), then columns (j + 1) * 8...
  static __device__ __forceinline__ void accumulate(float (&o)[kOutputTiles][4], const Probabilities &p,
                                                    const Element *vStage, int lane) {
#pragma unroll
    for (int c = 0; c < BlockN / 16; ++c)
#pragma unroll
      for (int j = 0; j < kOutputTiles; j += 2) {
        unsigned b[4];
        fusec_ldmatrix<4, true>(b, vStage + (c * 16 + lane / 8 % 2 * 8 + lane % 8) * kVStride + j * 8 + lane / 16 * 8);
        mmaPair(o[j], o[j + 1], p.p[c], b);
      }
  }
};

/// The f16/bf16 loop: Tile::Element is fusec_f16 or fusec_bf16.
template <class Tile> using FusecAttentionHalf = FusecAttentionMma<Tile, FusecHalfStep<typename Tile::Element>>;

#endif // FUSEC_ATTENTION_HALF_H
