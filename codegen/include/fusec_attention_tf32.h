// fusec_attention_tf32.h - flash-attention main loop on the tensor cores for f32 heads.
//
// FusecAttentionTf32 is FusecAttentionMma (fusec_attention_mma.h) with
// FusecTf32Step; this file holds that step's fragments.
//
// fuse.attention for f32 Q, K and V with head dimensions that are multiples
// of 8, in the shape of fusec_attention_half.h (4 warps, 64 query rows per
// block, 16 per warp, an online softmax in log2 units, K and V
// double-buffered by 16-byte cp.async, a split over the keys), with both
// products on mma.m16n8k8 (tf32 in, f32 accumulators). Passes = 3 splits
// every operand x = big + small (both tf32) and adds small_a big_b + big_a
// small_b + big_a big_b, which keeps f32 accuracy (about 1e-6 relative, as
// 3xTF32 does in fusec_gemm.h); Passes = 1 rounds each operand to tf32
// once (--precision=tf32, about 1e-3).
//
// What differs from the f16/bf16 loop is the step from scores to P:
//  * an m16n8k8 tf32 A fragment holds, lane by lane, columns t and t + 4
//    of rows g and g + 8; the score accumulators hold columns 2t and 2t + 1.
//    So the keys of each 8-key score tile are permuted when K's B fragment
//    is loaded: the lane that supplies ldmatrix's row address for key slot
//    i gives key i / 2 + (i % 2) * 4. Then a score tile's accumulator
//    (keys t, t + 4 of rows g, g + 8) is exactly P's A fragment for the 8
//    keys in their order, and P never leaves registers: it is split (or
//    rounded) to tf32 in place;
//  * V's B fragment (keys t and t + 4 of column g) is two 32-bit shared
//    loads: ldmatrix has no 32-bit transpose. V's rows are padded to 8 or
//    24 words mod 32, so the 32 loads hit 32 banks.
// Q's A fragments are read from shared memory per key tile (ldmatrix.x4)
// and split there: kept in registers, big and small halves of a 64-wide
// head would take 64 registers.
//
// Requires: D, DV multiples of 8 up to 128; each matrix's rows 16-byte
// aligned (row strides and offsets multiples of 4 elements); blockDim.x ==
// kThreads; kSmemBytes of shared memory at `smem`, 16-byte aligned.
#ifndef FUSEC_ATTENTION_TF32_H
#define FUSEC_ATTENTION_TF32_H

#include "fusec_attention_mma.h"

/// The fragments of FusecAttentionMma with f32 operands (mma.m16n8k8 tf32,
/// Passes products).
template <int Passes, int D, int DV, int BlockN> struct FusecAttentionFragments<FusecTf32Step<Passes>, D, DV, BlockN> {
  using Step = FusecTf32Step<Passes>;
  static_assert(D % 8 == 0 && DV % 8 == 0, "head dimensions are whole k8 steps and n8 tiles");
  static_assert(D <= 128 && DV <= 128, "the warp's output accumulators stay in registers");
  /// Keys per tile (the config's block N): 32, or 16 for heads above 64,
  /// whose f32 tiles would not fit the shared memory a block may have.
  static_assert(BlockN == 16 || BlockN == 32, "16 or 32 keys per tile: whole 8-key score tiles");
  // Q and K rows: D + 4 words, an odd multiple of 4 mod 32 for any D that is
  // a multiple of 8, so ldmatrix's 8 row addresses cover the banks once.
  // V rows: 8 or 24 words mod 32 (see above).
  static constexpr int kQStride = D + 4, kKStride = D + 4, kVStride = DV + 8 + ((DV + 8) % 16 == 0 ? 8 : 0);
  static constexpr int kScoreTiles = BlockN / 8, kOutputTiles = DV / 8;

  /// This lane's ldmatrix rows: Q's A fragment (x4: matrix lane / 8 is rows
  /// (lane / 8 % 2) * 8.. by columns (lane / 16) * 4..), and K's B fragment
  /// (x2: matrix lane / 8 % 2 is columns 0-3 / 4-7 of the 8 keys, key slot
  /// lane % 8 holding key (lane % 8) / 2 + (lane % 8 % 2) * 4). Q's
  /// fragments are read per key tile (kept, big and small halves of a
  /// 64-wide head would take 64 registers).
  struct Query {
    const float *qFragment;
    int kFragment;
    __device__ __forceinline__ Query(const float *qTile, int lane, int warp)
        : qFragment(qTile + (warp * 16 + lane / 8 % 2 * 8 + lane % 8) * kQStride + lane / 16 * 4),
          kFragment((lane % 8 / 2 + lane % 8 % 2 * 4) * kKStride + lane / 8 % 2 * 4) {}
    __device__ __forceinline__ void load(const float *, int, int) {}
  };

  /// S = Q Kᵀ, score tile j's columns 2t, 2t + 1 being keys t, t + 4.
  static __device__ __forceinline__ void scores(float (&s)[kScoreTiles][4], const Query &query, const float *kStage,
                                                int) {
#pragma unroll
    for (int kk = 0; kk < D; kk += 8) {
      unsigned aBig[4], aSmall[4];
      fusec_ldmatrix<4, false>(aBig, query.qFragment + kk);
      fusec_split_tf32<Passes>(aBig, aSmall);
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j) {
        unsigned bBig[2], bSmall[2];
        fusec_ldmatrix<2, false>(bBig, kStage + query.kFragment + j * 8 * kKStride + kk);
        fusec_split_tf32<Passes>(bBig, bSmall);
        Step::mma(s[j], aBig, aSmall, bBig, bSmall);
      }
    }
  }

  /// Element r of score tile j is key j * 8 + t (+ 4 for odd r).
  static __device__ __forceinline__ int keyOf(int j, int r, int t) { return j * 8 + t + r % 2 * 4; }

  /// P in place: score tile j is the A fragment of k8 step j (a0, a1 = rows
  /// g, g + 8 of key t; a2, a3 of key t + 4).
  struct Probabilities {
    unsigned big[kScoreTiles][4], small[kScoreTiles][4];
  };
  static __device__ __forceinline__ void operand(const float (&s)[kScoreTiles][4], Probabilities &p,
                                                 float (&rowSum)[2]) {
#pragma unroll
    for (int j = 0; j < kScoreTiles; ++j) {
      p.big[j][0] = unsigned(__float_as_int(s[j][0]));
      p.big[j][1] = unsigned(__float_as_int(s[j][2]));
      p.big[j][2] = unsigned(__float_as_int(s[j][1]));
      p.big[j][3] = unsigned(__float_as_int(s[j][3]));
      fusec_split_tf32<Passes>(p.big[j], p.small[j]);
      // The sums add P as P V multiplies it: rounded to tf32 with one pass
      // (A fragment registers 0, 2 are row g, 1, 3 row g + 8), big + small
      // (within 2^-22 of it) with three. The output stays a convex
      // combination of V's rows.
#pragma unroll
      for (int r = 0; r < 4; ++r)
        rowSum[r % 2] += Passes == 3 ? s[j][r % 2 * 2 + r / 2] : __int_as_float(int(p.big[j][r]));
    }
  }

  /// O += P V: V's B fragment is keys t and t + 4 of column g.
  static __device__ __forceinline__ void accumulate(float (&o)[kOutputTiles][4], const Probabilities &p,
                                                    const float *vStage, int lane) {
    // Lane (g, t)'s first column; the others at constant distances from it.
    const float *const first = vStage + (lane % 4) * kVStride + lane / 4;
#pragma unroll
    for (int j = 0; j < kScoreTiles; ++j)
#pragma unroll
      for (int n = 0; n < kOutputTiles; ++n) {
        const float *column = first + (j * 8 * kVStride + n * 8);
        unsigned bBig[2] = {unsigned(__float_as_int(column[0])), unsigned(__float_as_int(column[4 * kVStride]))};
        unsigned bSmall[2];
        fusec_split_tf32<Passes>(bBig, bSmall);
        Step::mma(o[n], p.big[j], p.small[j], bBig, bSmall);
      }
  }
};

/// The f32 loop: Tile::kPasses = 3 (3xTF32) or 1 (tf32).
template <class Tile> using FusecAttentionTf32 = FusecAttentionMma<Tile, FusecTf32Step<Tile::kPasses>>;

#endif // FUSEC_ATTENTION_TF32_H
