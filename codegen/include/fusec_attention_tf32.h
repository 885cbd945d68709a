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
  /// A split's partials per thread: the output tiles, then (m, m, l, l) of
  /// the lane's two rows; per block, kSplitFloats floats.
  static constexpr int kSplitVectors = kOutputTiles + 1, kSplitFloats = kSplitVectors * 4 * kThreads;

  /// Issues the 16-byte copies of rows first .. first + Rows - 1 of a
  /// matrix of `count` rows, Columns floats each, `ld` apart, into `tile`
  /// (rows `stride` apart); rows from `count` on are zero-filled.
  template <int Rows, int Columns>
  static __device__ __forceinline__ void loadRows(float *tile, int stride, const float *matrix, long long ld,
                                                  long long first, long long count) {
    constexpr int kVectorsPerRow = Columns / 4, kVectors = Rows * kVectorsPerRow;
#pragma unroll
    for (int i = 0; i < (kVectors + kThreads - 1) / kThreads; ++i) {
      const int v = int(threadIdx.x) + i * kThreads;
      if (kVectors % kThreads != 0 && v >= kVectors)
        break;
      const int row = v / kVectorsPerRow, column = v % kVectorsPerRow * 4;
      const bool inside = first + row < count;
      fusec_cp_async_cg(tile + row * stride + column, inside ? matrix + (first + row) * ld + column : matrix,
                        inside ? 16u : 0u);
    }
  }

  template <int Tiles> static __device__ __forceinline__ void zero(float (&accumulators)[Tiles][4]) {
#pragma unroll
    for (int j = 0; j < Tiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        accumulators[j][r] = 0.0f;
  }

  /// f32 values (as raw bits in `big`) to tf32 operands: `big` rounded in
  /// place and, for 3 passes, `small` = the rounded remainder x - big.
  template <int N> static __device__ __forceinline__ void toTf32(unsigned (&big)[N], unsigned (&small)[N]) {
#pragma unroll
    for (int r = 0; r < N; ++r) {
      const float x = __int_as_float(int(big[r]));
      big[r] = fusec_cvt_rna_tf32(x);
      if constexpr (Passes == 3)
        small[r] = fusec_cvt_rna_tf32(x - __int_as_float(int(big[r])));
    }
  }

  /// d += a b with the passes' products.
  static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&aBig)[4], const unsigned (&aSmall)[4],
                                             const unsigned (&bBig)[2], const unsigned (&bSmall)[2]) {
    if constexpr (Passes == 3) {
      fusec_mma_m16n8k8_tf32(d, aSmall, bBig, d);
      fusec_mma_m16n8k8_tf32(d, aBig, bSmall, d);
    }
    fusec_mma_m16n8k8_tf32(d, aBig, bBig, d);
  }

  /// As FusecAttentionHalf::mergeSlices (m in log2 units, the same across
  /// a quad's lanes; each lane merges its own partial sums).
  static __device__ __forceinline__ bool mergeSlices(float (&m)[2], float (&l)[2], float (&o)[kOutputTiles][4],
                                                     const FusecSplitK &split, unsigned *last) {
    auto value = [&](int q) {
      return q < kOutputTiles ? make_float4(o[q][0], o[q][1], o[q][2], o[q][3]) : make_float4(m[0], m[1], l[0], l[1]);
    };
    if (!fusec_split_k_publish<kThreads, kSplitVectors>(value, split, last))
      return false;
    zero(o);
#pragma unroll
    for (int h = 0; h < 2; ++h)
      m[h] = -INFINITY, l[h] = 0.0f;
#pragma unroll 1
    for (int s = 0; s < split.slices; ++s) {
      const float4 rows = fusec_split_k_partial<kThreads, kSplitVectors>(split, s, kOutputTiles);
      const float sliceMax[2] = {rows.x, rows.y}, sliceSum[2] = {rows.z, rows.w};
      float keep[2], add[2];
#pragma unroll
      for (int h = 0; h < 2; ++h)
        fusec_merge_softmax_row<true>(m[h], l[h], sliceMax[h], sliceSum[h], keep[h], add[h]);
#pragma unroll
      for (int j = 0; j < kOutputTiles; ++j) {
        const float4 v = fusec_split_k_partial<kThreads, kSplitVectors>(split, s, j);
        const float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int r = 0; r < 4; ++r)
          o[j][r] = o[j][r] * keep[r / 2] + values[r] * add[r / 2];
      }
    }
    return true;
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
    constexpr float kLog2e = 1.4426950408889634f;
    const float scaleLog2 = scale * kLog2e;

    // Row i attends to keys j <= i + (SK - S): the block's last row bounds
    // the keys any of its rows needs.
    const long long offset = SK - S;
    long long keyEnd = SK;
    if (causal && row0 + kBlockM + offset < keyEnd)
      keyEnd = row0 + kBlockM + offset;
    const int keyTiles = keyEnd > 0 ? int((keyEnd + kBlockN - 1) / kBlockN) : 0;
    int firstTile = 0, endTile = keyTiles;
    if (split.slices > 1)
      fusec_split_k_range(keyTiles, split, firstTile, endTile);

    loadRows<kBlockM, D>(qTile, kQStride, Q, ldq, row0, S);
    if (endTile > firstTile) {
      loadRows<kBlockN, D>(kTiles, kKStride, K, ldk, (long long)firstTile * kBlockN, SK);
      loadRows<kBlockN, DV>(vTiles, kVStride, V, ldv, (long long)firstTile * kBlockN, SK);
    }
    fusec_cp_async_commit();

    const long long rows[2] = {row0 + warp * 16 + g, row0 + warp * 16 + g + 8};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    float o[kOutputTiles][4];
    zero(o);
    // This lane's ldmatrix rows: Q's A fragment (x4: matrix lane / 8 is
    // rows (lane / 8 % 2) * 8.. by columns (lane / 16) * 4..), and K's B
    // fragment (x2: matrix lane / 8 % 2 is columns 0-3 / 4-7 of the 8 keys,
    // key slot lane % 8 holding key (lane % 8) / 2 + (lane % 8 % 2) * 4).
    const float *const qFragment = qTile + (warp * 16 + lane / 8 % 2 * 8 + lane % 8) * kQStride + lane / 16 * 4;
    const int kFragment = (lane % 8 / 2 + lane % 8 % 2 * 4) * kKStride + lane / 8 % 2 * 4;

    for (int tile = firstTile; tile < endTile; ++tile) {
      fusec_cp_async_wait<0>();
      __syncthreads();
      if (tile + 1 < endTile) {
        const int stage = (tile + 1 - firstTile) % 2;
        const long long key0 = (long long)(tile + 1) * kBlockN;
        loadRows<kBlockN, D>(kTiles + stage * kKStage, kKStride, K, ldk, key0, SK);
        loadRows<kBlockN, DV>(vTiles + stage * kVStage, kVStride, V, ldv, key0, SK);
      }
      fusec_cp_async_commit();
      const float *kStage = kTiles + (tile - firstTile) % 2 * kKStage;
      const float *vStage = vTiles + (tile - firstTile) % 2 * kVStage;

      // S = Q Kᵀ, score tile j's columns 2t, 2t + 1 being keys t, t + 4.
      float s[kScoreTiles][4];
      zero(s);
#pragma unroll
      for (int kk = 0; kk < D; kk += 8) {
        unsigned aBig[4], aSmall[4];
        fusec_ldmatrix<4, false>(aBig, qFragment + kk);
        toTf32(aBig, aSmall);
#pragma unroll
        for (int j = 0; j < kScoreTiles; ++j) {
          unsigned bBig[2], bSmall[2];
          fusec_ldmatrix<2, false>(bBig, kStage + kFragment + j * 8 * kKStride + kk);
          toTf32(bBig, bSmall);
          mma(s[j], aBig, aSmall, bBig, bSmall);
        }
      }

      // Scale, mask and the rows' new maxima in log2 units, as the f16 loop
      // does; element r of score tile j is key j * 8 + t (+ 4 for odd r).
      const long long key0 = (long long)tile * kBlockN;
      int limit[2];
      long long maskRow[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        long long end = SK;
        if (causal && rows[h] + offset + 1 < end)
          end = rows[h] + offset + 1;
        limit[h] = end - key0 <= 0 ? 0 : end - key0 >= kBlockN ? kBlockN : int(end - key0);
        maskRow[h] = rows[h] < S ? rows[h] : S - 1;
      }
      float tileMax[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int key = j * 8 + t + r % 2 * 4;
          const float x =
              key < limit[r / 2] ? fmaf(s[j][r], scaleLog2, mask(maskRow[r / 2], key0 + key) * kLog2e) : -INFINITY;
          s[j][r] = x;
          tileMax[r / 2] = fmaxf(tileMax[r / 2], x);
        }
      float alpha[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        tileMax[h] = fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], 1));
        tileMax[h] = fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], 2));
        const float mNew = fmaxf(m[h], tileMax[h]);
        alpha[h] = m[h] == -INFINITY ? 0.0f : exp2f(m[h] - mNew);
        m[h] = mNew;
      }

      // P in place: score tile j is the A fragment of k8 step j (a0, a1 =
      // rows g, g + 8 of key t; a2, a3 of key t + 4).
      unsigned pBig[kScoreTiles][4], pSmall[kScoreTiles][4];
      float rowSum[2] = {0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j) {
        float e[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          e[r] = s[j][r] == -INFINITY ? 0.0f : exp2f(s[j][r] - m[r / 2]);
          rowSum[r / 2] += e[r];
        }
        pBig[j][0] = unsigned(__float_as_int(e[0]));
        pBig[j][1] = unsigned(__float_as_int(e[2]));
        pBig[j][2] = unsigned(__float_as_int(e[1]));
        pBig[j][3] = unsigned(__float_as_int(e[3]));
        toTf32(pBig[j], pSmall[j]);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
        l[h] = l[h] * alpha[h] + rowSum[h];
#pragma unroll
      for (int n = 0; n < kOutputTiles; ++n)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          o[n][r] *= alpha[r / 2];

      // O += P V: V's B fragment is keys t and t + 4 of column g.
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j)
#pragma unroll
        for (int n = 0; n < kOutputTiles; ++n) {
          const float *column = vStage + (j * 8 + t) * kVStride + n * 8 + g;
          unsigned bBig[2] = {unsigned(__float_as_int(column[0])), unsigned(__float_as_int(column[4 * kVStride]))};
          unsigned bSmall[2];
          toTf32(bBig, bSmall);
          mma(o[n], pBig[j], pSmall[j], bBig, bSmall);
        }
    }
    fusec_cp_async_wait<0>();
    if (split.slices > 1 && !mergeSlices(m, l, o, split, static_cast<unsigned *>(smem)))
      return;

#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
#pragma unroll
    for (int n = 0; n < kOutputTiles; ++n)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        if (rows[r / 2] < S)
          epilogue(rows[r / 2], (long long)(n * 8 + 2 * t + r % 2), o[n][r] / l[r / 2]);
  }
};

#endif // FUSEC_ATTENTION_TF32_H
