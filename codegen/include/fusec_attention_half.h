// fusec_attention_half.h - flash-attention main loop on the tensor cores (f16/bf16).
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
//  * K and V tiles are double-buffered in shared memory, filled by 16-byte
//    cp.async copies: tile j + 1 is in flight while tile j is multiplied;
//    one barrier per key tile. Rows past the sequences are zero-filled and
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

#include "fusec_attention_rows.h"
#include "fusec_gemm_half.h"

template <int D, int DV, typename Element, int BlockN> struct FusecAttentionHalf {
  static_assert(sizeof(Element) == 2, "FusecAttentionHalf multiplies f16 or bf16 tensors");
  static_assert(D % 16 == 0 && DV % 16 == 0, "head dimensions are whole k16 steps and pairs of n8 tiles");
  static_assert(D <= 128 && DV <= 128, "the warp's Q fragments and output accumulators stay in registers");
  static constexpr int kWarps = 4, kBlockM = 16 * kWarps, kThreads = 32 * kWarps;
  /// Keys per tile (the config's block N): 64, or 32 for heads above 64,
  /// whose accumulators and tiles are twice as large.
  static constexpr int kBlockN = BlockN;
  static_assert(BlockN == 32 || (BlockN == 64 && D <= 64 && DV <= 64),
                "32 keys per tile, or 64 for heads up to 64 (the accumulators stay in registers)");
  static constexpr int kQStride = D + 8, kKStride = D + 8, kVStride = DV + 8;
  static constexpr int kQElements = kBlockM * kQStride;
  static constexpr int kKStage = kBlockN * kKStride, kVStage = kBlockN * kVStride;
  static constexpr int kSmemBytes = (kQElements + 2 * (kKStage + kVStage)) * 2;
  /// The same size in floats, for callers that declare float4 arrays.
  static constexpr int kSmemFloats = kSmemBytes / 4;
  static constexpr int kScoreTiles = kBlockN / 8, kOutputTiles = DV / 8;
  using Rows = FusecAttentionRows<kThreads, kBlockM, kBlockN, kOutputTiles>;
  static constexpr int kSplitFloats = Rows::kSplitFloats;

  /// Two m16n8k16 mmas of one A fragment: `first` += a * (b[0], b[1]), the
  /// first n8 tile an ldmatrix.x4 loaded, `second` += a * (b[2], b[3]).
  static __device__ __forceinline__ void mmaPair(float (&first)[4], float (&second)[4], const unsigned (&a)[4],
                                                 const unsigned (&b)[4]) {
    const unsigned low[2] = {b[0], b[1]}, high[2] = {b[2], b[3]};
    FusecHalfMma<Element>::run(first, a, low);
    FusecHalfMma<Element>::run(second, a, high);
  }

  /// `low` and `high` rounded to Element, packed into one register (low
  /// half first); their rounded values are added to `rowSum`.
  static __device__ __forceinline__ unsigned pack(float low, float high, float &rowSum) {
    const Element lowElement = fusec_convert<Element>::from(low), highElement = fusec_convert<Element>::from(high);
    rowSum += fusec_to_float(lowElement) + fusec_to_float(highElement);
    return unsigned(lowElement.bits) | unsigned(highElement.bits) << 16;
  }

  /// Q [S, D], K [SK, D], V [SK, DV] of one matrix, rows ldq, ldk, ldv
  /// elements apart; query rows row0 .. row0 + 63. mask(row, key) is the
  /// additive mask (0 without one); epilogue(row, col, value) stores O[row,
  /// col] for row < S and col < DV. With `split`, the block walks its
  /// slice of the key tiles and only the tile's last block stores. Every
  /// thread of the block calls it.
  template <typename Mask, typename Epilogue>
  static __device__ __forceinline__ void run(const Element *Q, long long ldq, const Element *K, long long ldk,
                                             const Element *V, long long ldv, long long S, long long SK, float scale,
                                             bool causal, long long row0, void *smem, Mask mask, Epilogue epilogue,
                                             const FusecSplitK &split = FusecSplitK()) {
    Element *const qTile = static_cast<Element *>(smem);
    Element *const kTiles = qTile + kQElements;
    Element *const vTiles = kTiles + 2 * kKStage;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int t = lane % 4;
    const float scaleLog2 = scale * 1.4426950408889634f;
    int firstTile, endTile;
    Rows::keyTiles(S, SK, causal, row0, split, firstTile, endTile);

    Rows::template loadRows<kBlockM, D>(qTile, kQStride, Q, ldq, row0, S);
    if (endTile > firstTile)
      Rows::template loadKeyTile<D, DV>(kTiles, kKStride, vTiles, kVStride, K, ldk, V, ldv, SK, firstTile, 0);
    fusec_cp_async_commit();

    // This lane's rows: g and g + 8 of the warp's 16.
    const long long rows[2] = {row0 + warp * 16 + lane / 4, row0 + warp * 16 + lane / 4 + 8};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    float o[kOutputTiles][4];
    Rows::zero(o);
    unsigned q[D / 16][4];

    for (int tile = firstTile; tile < endTile; ++tile) {
      // Tile `tile` (and Q's) has landed for this thread; the barrier makes
      // every thread's copies visible and frees the stage read last round.
      fusec_cp_async_wait<0>();
      __syncthreads();
      if (tile == firstTile) {
        // A fragments, x4: matrix lane / 8 is rows (lane / 8 % 2) * 8.. by
        // columns (lane / 16) * 8.. of the k16 step.
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk)
          fusec_ldmatrix<4, false>(q[kk], qTile + (warp * 16 + lane / 8 % 2 * 8 + lane % 8) * kQStride + kk * 16 +
                                              lane / 16 * 8);
      }
      if (tile + 1 < endTile)
        Rows::template loadKeyTile<D, DV>(kTiles, kKStride, vTiles, kVStride, K, ldk, V, ldv, SK, tile + 1,
                                          (tile + 1 - firstTile) % 2);
      fusec_cp_async_commit();
      const Element *kStage = kTiles + (tile - firstTile) % 2 * kKStage;
      const Element *vStage = vTiles + (tile - firstTile) % 2 * kVStage;

      // S = Q Kᵀ for the warp's 16 rows and the tile's keys. K as N x K,
      // x4: matrices (keys j * 8.., d 0-7 / 8-15), then keys (j + 1) * 8...
      float s[kScoreTiles][4];
      Rows::zero(s);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
        for (int j = 0; j < kScoreTiles; j += 2) {
          unsigned b[4];
          fusec_ldmatrix<4, false>(b,
                                   kStage + (j * 8 + lane / 16 * 8 + lane % 8) * kKStride + kk * 16 + lane / 8 % 2 * 8);
          mmaPair(s[j], s[j + 1], q[kk], b);
        }

      // Element r of score tile j is key j * 8 + 2t (+ 1 for odd r).
      float alpha[2];
      Rows::probabilities(s, m, alpha, rows, S, SK, causal, (long long)tile * kBlockN, scaleLog2, mask,
                          [t](int j, int r) { return j * 8 + 2 * t + r % 2; });

      // P, rounded and packed into the A fragments of P V: k16 step c is
      // score tiles 2c (columns 2t, 2t + 1) and 2c + 1 (2t + 8, 2t + 9).
      unsigned p[kBlockN / 16][4];
      float rowSum[2] = {0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j) {
        p[j / 2][j % 2 * 2] = pack(s[j][0], s[j][1], rowSum[0]);
        p[j / 2][j % 2 * 2 + 1] = pack(s[j][2], s[j][3], rowSum[1]);
      }
      Rows::rescale(l, o, alpha, rowSum);

      // O += P V. V as K x N, x4.trans: matrices (keys 0-7 / 8-15 of the
      // step, columns j * 8..), then columns (j + 1) * 8...
#pragma unroll
      for (int c = 0; c < kBlockN / 16; ++c)
#pragma unroll
        for (int j = 0; j < kOutputTiles; j += 2) {
          unsigned b[4];
          fusec_ldmatrix<4, true>(b,
                                  vStage + (c * 16 + lane / 8 % 2 * 8 + lane % 8) * kVStride + j * 8 + lane / 16 * 8);
          mmaPair(o[j], o[j + 1], p[c], b);
        }
    }
    fusec_cp_async_wait<0>();
    if (split.slices > 1 && !Rows::mergeSlices(m, l, o, split, static_cast<unsigned *>(smem)))
      return;
    Rows::store(l, o, rows, S, t, epilogue);
  }
};

#endif // FUSEC_ATTENTION_HALF_H
