// fusec_attention_tf32.h - flash-attention main loop on the tensor cores for f32 heads.
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

#include "fusec_attention_rows.h"
#include "fusec_gemm.h"

template <int D, int DV, int BlockN, int Passes> struct FusecAttentionTf32 {
  static_assert(D % 8 == 0 && DV % 8 == 0, "head dimensions are whole k8 steps and n8 tiles");
  static_assert(D <= 128 && DV <= 128, "the warp's output accumulators stay in registers");
  static_assert(Passes == 1 || Passes == 3, "1 (tf32) or 3 (3xTF32) products");
  static constexpr int kWarps = 4, kBlockM = 16 * kWarps, kThreads = 32 * kWarps;
  /// Keys per tile (the config's block N): 32, or 16 for heads above 64,
  /// whose f32 tiles would not fit the shared memory a block may have.
  static constexpr int kBlockN = BlockN;
  static_assert(BlockN == 16 || BlockN == 32, "16 or 32 keys per tile: whole 8-key score tiles");
  // Q and K rows: D + 4 words, an odd multiple of 4 mod 32 for any D that is
  // a multiple of 8, so ldmatrix's 8 row addresses cover the banks once.
  // V rows: 8 or 24 words mod 32 (see above).
  static constexpr int kQStride = D + 4, kKStride = D + 4, kVStride = DV + 8 + ((DV + 8) % 16 == 0 ? 8 : 0);
  static constexpr int kQElements = kBlockM * kQStride;
  static constexpr int kKStage = kBlockN * kKStride, kVStage = kBlockN * kVStride;
  static constexpr int kSmemBytes = (kQElements + 2 * (kKStage + kVStage)) * 4;
  static constexpr int kSmemFloats = kSmemBytes / 4;
  static constexpr int kScoreTiles = kBlockN / 8, kOutputTiles = DV / 8;
  using Rows = FusecAttentionRows<kThreads, kBlockM, kBlockN, kOutputTiles>;
  static constexpr int kSplitFloats = Rows::kSplitFloats;

  /// d += a b with the passes' products.
  static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&aBig)[4], const unsigned (&aSmall)[4],
                                             const unsigned (&bBig)[2], const unsigned (&bSmall)[2]) {
    if constexpr (Passes == 3) {
      fusec_mma_m16n8k8_tf32(d, aSmall, bBig, d);
      fusec_mma_m16n8k8_tf32(d, aBig, bSmall, d);
    }
    fusec_mma_m16n8k8_tf32(d, aBig, bBig, d);
  }

  /// As FusecAttentionHalf::run, for f32 heads.
  template <typename Mask, typename Epilogue>
  static __device__ __forceinline__ void run(const float *Q, long long ldq, const float *K, long long ldk,
                                             const float *V, long long ldv, long long S, long long SK, float scale,
                                             bool causal, long long row0, void *smem, Mask mask, Epilogue epilogue,
                                             const FusecSplitK &split = FusecSplitK()) {
    float *const qTile = static_cast<float *>(smem);
    float *const kTiles = qTile + kQElements;
    float *const vTiles = kTiles + 2 * kKStage;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, t = lane % 4;
    const float scaleLog2 = scale * 1.4426950408889634f;
    int firstTile, endTile;
    Rows::keyTiles(S, SK, causal, row0, split, firstTile, endTile);

    Rows::template loadRows<kBlockM, D>(qTile, kQStride, Q, ldq, row0, S);
    if (endTile > firstTile)
      Rows::template loadKeyTile<D, DV>(kTiles, kKStride, vTiles, kVStride, K, ldk, V, ldv, SK, firstTile, 0);
    fusec_cp_async_commit();

    const long long rows[2] = {row0 + warp * 16 + g, row0 + warp * 16 + g + 8};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    float o[kOutputTiles][4];
    Rows::zero(o);
    // This lane's ldmatrix rows: Q's A fragment (x4: matrix lane / 8 is
    // rows (lane / 8 % 2) * 8.. by columns (lane / 16) * 4..), and K's B
    // fragment (x2: matrix lane / 8 % 2 is columns 0-3 / 4-7 of the 8 keys,
    // key slot lane % 8 holding key (lane % 8) / 2 + (lane % 8 % 2) * 4).
    const float *const qFragment = qTile + (warp * 16 + lane / 8 % 2 * 8 + lane % 8) * kQStride + lane / 16 * 4;
    const int kFragment = (lane % 8 / 2 + lane % 8 % 2 * 4) * kKStride + lane / 8 % 2 * 4;

    for (int tile = firstTile; tile < endTile; ++tile) {
      fusec_cp_async_wait<0>();
      __syncthreads();
      if (tile + 1 < endTile)
        Rows::template loadKeyTile<D, DV>(kTiles, kKStride, vTiles, kVStride, K, ldk, V, ldv, SK, tile + 1,
                                          (tile + 1 - firstTile) % 2);
      fusec_cp_async_commit();
      const float *kStage = kTiles + (tile - firstTile) % 2 * kKStage;
      const float *vStage = vTiles + (tile - firstTile) % 2 * kVStage;

      // S = Q Kᵀ, score tile j's columns 2t, 2t + 1 being keys t, t + 4.
      float s[kScoreTiles][4];
      Rows::zero(s);
#pragma unroll
      for (int kk = 0; kk < D; kk += 8) {
        unsigned aBig[4], aSmall[4];
        fusec_ldmatrix<4, false>(aBig, qFragment + kk);
        fusec_split_tf32<Passes>(aBig, aSmall);
#pragma unroll
        for (int j = 0; j < kScoreTiles; ++j) {
          unsigned bBig[2], bSmall[2];
          fusec_ldmatrix<2, false>(bBig, kStage + kFragment + j * 8 * kKStride + kk);
          fusec_split_tf32<Passes>(bBig, bSmall);
          mma(s[j], aBig, aSmall, bBig, bSmall);
        }
      }

      // Element r of score tile j is key j * 8 + t (+ 4 for odd r).
      float alpha[2];
      Rows::probabilities(s, m, alpha, rows, S, SK, causal, (long long)tile * kBlockN, scaleLog2, mask,
                          [t](int j, int r) { return j * 8 + t + r % 2 * 4; });

      // P in place: score tile j is the A fragment of k8 step j (a0, a1 =
      // rows g, g + 8 of key t; a2, a3 of key t + 4).
      unsigned pBig[kScoreTiles][4], pSmall[kScoreTiles][4];
      float rowSum[2] = {0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j) {
        pBig[j][0] = unsigned(__float_as_int(s[j][0]));
        pBig[j][1] = unsigned(__float_as_int(s[j][2]));
        pBig[j][2] = unsigned(__float_as_int(s[j][1]));
        pBig[j][3] = unsigned(__float_as_int(s[j][3]));
        fusec_split_tf32<Passes>(pBig[j], pSmall[j]);
        // The sums add P as P V multiplies it: rounded to tf32 with one pass
        // (A fragment registers 0, 2 are row g, 1, 3 row g + 8), big + small
        // (within 2^-22 of it) with three. The output stays a convex
        // combination of V's rows.
#pragma unroll
        for (int r = 0; r < 4; ++r)
          rowSum[r % 2] += Passes == 3 ? s[j][r % 2 * 2 + r / 2] : __int_as_float(int(pBig[j][r]));
      }
      Rows::rescale(l, o, alpha, rowSum);

      // O += P V: V's B fragment is keys t and t + 4 of column g.
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j)
#pragma unroll
        for (int n = 0; n < kOutputTiles; ++n) {
          const float *column = vStage + (j * 8 + t) * kVStride + n * 8 + g;
          unsigned bBig[2] = {unsigned(__float_as_int(column[0])), unsigned(__float_as_int(column[4 * kVStride]))};
          unsigned bSmall[2];
          fusec_split_tf32<Passes>(bBig, bSmall);
          mma(o[n], pBig[j], pSmall[j], bBig, bSmall);
        }
    }
    fusec_cp_async_wait<0>();
    if (split.slices > 1 && !Rows::mergeSlices(m, l, o, split, static_cast<unsigned *>(smem)))
      return;
    Rows::store(l, o, rows, S, t, epilogue);
  }
};

#endif // FUSEC_ATTENTION_TF32_H
