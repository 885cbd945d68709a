// fusec_attention.h - flash-attention main loop for fuse.attention (SIMT).
//
// One block of 4 warps computes a tile of kBlockM = 16 query rows of one
// (batch, head) matrix; each warp owns 4 rows. The key sequence is walked in
// tiles of kBlockN = 32 keys, staged (widened to float) in shared memory
// with Q's tile, and each row keeps an online softmax: its running maximum
// m, running sum l and an output accumulator that is rescaled by
// exp(m_old - m_new) whenever the maximum grows. The S x Sk scores live only
// in registers (one key per lane) and in a 32-float row of shared memory per
// warp row (for the P V product), so global memory sees Q, K, V, the mask
// and O only. Causal kernels stop at the block's last attended key: the key
// tiles above the diagonal are never loaded.
//
// With a FusecSplitK of slices > 1, the block walks its slice's share of
// the key tiles and the tile's last block merges the slices' rows (running
// maximum, sum, unnormalised output) in slice order, as
// fusec_attention_half.h does.
//
// Everything accumulates in float whatever T is; the caller's epilogue
// rounds and stores. Requires blockDim.x == kThreads.
#ifndef FUSEC_ATTENTION_H
#define FUSEC_ATTENTION_H

#include "fusec_split_k.h"

/// Tile is an attention description (fusec_pipeline.h's names): this loop
/// reads kHeadDim (D of Q and K) and kValueDim (DV of V); its tile is fixed.
template <class Tile> struct FusecAttention {
  static constexpr int D = Tile::kHeadDim, DV = Tile::kValueDim;
  static constexpr int kWarps = 4, kRows = 4, kBlockM = kWarps * kRows, kBlockN = FUSEC_WARP_SIZE;
  static constexpr int kThreads = kWarps * FUSEC_WARP_SIZE;
  /// Output columns per lane: column lane + 32 c for c < kColChunks.
  static constexpr int kColChunks = (DV + FUSEC_WARP_SIZE - 1) / FUSEC_WARP_SIZE;
  /// The score loop reads Q and K as float4 when D allows: one 16-byte
  /// shared load per 4 FMAs instead of one per FMA.
  static constexpr bool kVectorQK = D % 4 == 0;
  /// K's row stride. Lane j reads row j: scalar reads need an odd stride, and
  /// float4 reads (served 8 lanes at a time) a stride of an odd number of
  /// float4s, for the lanes to hit distinct banks.
  static constexpr int kKStride = !kVectorQK ? D + 1 : (D / 4) % 2 == 0 ? D + 4 : D + 8;
  /// A split's partials per thread: column chunk c of the warp's 4 rows,
  /// then their maxima and their sums; per block, kSplitFloats floats.
  static constexpr int kSplitVectors = kColChunks + 2, kSplitFloats = kSplitVectors * 4 * kThreads;
  static_assert(kRows == 4, "a float4 holds one value of each of the warp's rows");

  struct Shared {
    alignas(16) float q[kBlockM][D];
    alignas(16) float k[kBlockN][kKStride];
    alignas(16) float v[kBlockN][DV];
    alignas(16) float p[kWarps][kRows][kBlockN];
  };

  /// The rows' state before any key: no maximum, nothing summed.
  static __device__ __forceinline__ void start(float (&m)[kRows], float (&l)[kRows], float (&acc)[kRows][kColChunks]) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      m[r] = -INFINITY;
      l[r] = 0.0f;
#pragma unroll
      for (int c = 0; c < kColChunks; ++c)
        acc[r][c] = 0.0f;
    }
  }

  /// Publishes this slice's rows and, in the tile's last block, replaces
  /// them by the merge of every slice; returns whether this block is that
  /// one. m and l are the same in every lane of the warp.
  static __device__ __forceinline__ bool mergeSlices(float (&m)[kRows], float (&l)[kRows],
                                                     float (&acc)[kRows][kColChunks], const FusecSplitK &split,
                                                     unsigned *last) {
    auto value = [&](int q) {
      return q < kColChunks    ? make_float4(acc[0][q], acc[1][q], acc[2][q], acc[3][q])
             : q == kColChunks ? make_float4(m[0], m[1], m[2], m[3])
                               : make_float4(l[0], l[1], l[2], l[3]);
    };
    if (!fusec_split_k_publish<kThreads, kSplitVectors>(value, split, last))
      return false;
    start(m, l, acc);
#pragma unroll 1
    for (int s = 0; s < split.slices; ++s) {
      const float4 maxima = fusec_split_k_partial<kThreads, kSplitVectors>(split, s, kColChunks);
      const float4 sums = fusec_split_k_partial<kThreads, kSplitVectors>(split, s, kColChunks + 1);
      const float sliceMax[kRows] = {maxima.x, maxima.y, maxima.z, maxima.w};
      const float sliceSum[kRows] = {sums.x, sums.y, sums.z, sums.w};
      float keep[kRows], add[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        fusec_merge_softmax_row<false>(m[r], l[r], sliceMax[r], sliceSum[r], keep[r], add[r]);
#pragma unroll
      for (int c = 0; c < kColChunks; ++c) {
        const float4 v = fusec_split_k_partial<kThreads, kSplitVectors>(split, s, c);
        const float values[kRows] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int r = 0; r < kRows; ++r)
          acc[r][c] = acc[r][c] * keep[r] + values[r] * add[r];
      }
    }
    return true;
  }

  /// Q [S, D], K [SK, D], V [SK, DV] of one matrix, each row contiguous and
  /// ldq, ldk, ldv elements after the one before (views of a fused QKV
  /// projection's output have rows 3 E apart); rows row0 .. row0 + 15.
  /// mask(row, key) is the additive mask (0 without one); epilogue(row, col,
  /// value) stores O[row, col] for row < S and col < DV. With `split`,
  /// the block walks its slice of the key tiles and only the tile's last
  /// block stores.
  template <typename T, typename Mask, typename Epilogue>
  static __device__ __forceinline__ void run(const T *Q, long long ldq, const T *K, long long ldk, const T *V,
                                             long long ldv, long long S, long long SK, float scale, bool causal,
                                             long long row0, Shared &sh, Mask mask, Epilogue epilogue,
                                             const FusecSplitK &split = FusecSplitK()) {
    const int lane = threadIdx.x % FUSEC_WARP_SIZE, warp = threadIdx.x / FUSEC_WARP_SIZE;
    for (int e = threadIdx.x; e < kBlockM * D; e += kThreads) {
      const int r = e / D, d = e % D;
      sh.q[r][d] = row0 + r < S ? fusec_ld(&Q[(row0 + r) * ldq + d]) : 0.0f;
    }
    float m[kRows], l[kRows], acc[kRows][kColChunks];
    start(m, l, acc);
    // Row i attends to keys j <= i + (SK - S): the block's last row bounds
    // the keys any of its rows needs.
    const long long offset = SK - S;
    long long keyEnd = SK;
    if (causal && row0 + kBlockM + offset < keyEnd)
      keyEnd = row0 + kBlockM + offset;
    // This block's key tiles: all of them, or its slice's share.
    int firstTile = 0, endTile = keyEnd > 0 ? int((keyEnd + kBlockN - 1) / kBlockN) : 0;
    if (split.slices > 1)
      fusec_split_k_range(endTile, split, firstTile, endTile);
    const long long keyStop = (long long)endTile * kBlockN < keyEnd ? (long long)endTile * kBlockN : keyEnd;
    for (long long key0 = (long long)firstTile * kBlockN; key0 < keyStop; key0 += kBlockN) {
      __syncthreads(); // the last tile is consumed (and Q's tile is written)
      for (int e = threadIdx.x; e < kBlockN * D; e += kThreads) {
        const int j = e / D, d = e % D;
        sh.k[j][d] = key0 + j < SK ? fusec_ld(&K[(key0 + j) * ldk + d]) : 0.0f;
      }
      for (int e = threadIdx.x; e < kBlockN * DV; e += kThreads) {
        const int j = e / DV, c = e % DV;
        sh.v[j][c] = key0 + j < SK ? fusec_ld(&V[(key0 + j) * ldv + c]) : 0.0f;
      }
      __syncthreads();
      // Scores of this lane's key for the warp's rows.
      float s[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        s[r] = 0.0f;
      if constexpr (kVectorQK) {
#pragma unroll 4
        for (int d = 0; d < D; d += 4) {
          const float4 kd = *reinterpret_cast<const float4 *>(&sh.k[lane][d]);
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const float4 qd = *reinterpret_cast<const float4 *>(&sh.q[warp * kRows + r][d]);
            s[r] = fmaf(qd.x, kd.x, s[r]);
            s[r] = fmaf(qd.y, kd.y, s[r]);
            s[r] = fmaf(qd.z, kd.z, s[r]);
            s[r] = fmaf(qd.w, kd.w, s[r]);
          }
        }
      } else {
#pragma unroll 8
        for (int d = 0; d < D; ++d) {
          const float kd = sh.k[lane][d];
#pragma unroll
          for (int r = 0; r < kRows; ++r)
            s[r] = fmaf(sh.q[warp * kRows + r][d], kd, s[r]);
        }
      }
      const long long key = key0 + lane;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const long long row = row0 + warp * kRows + r;
        const bool attended = row < S && key < SK && (!causal || key <= row + offset);
        const float x = attended ? s[r] * scale + mask(row, key) : -INFINITY;
        const float mNew = fmaxf(m[r], fusec_warp_max(x));
        // A row with no finite score yet has nothing to rescale; exp of
        // -inf - -inf would be NaN.
        const float alpha = m[r] == -INFINITY ? 0.0f : expf(m[r] - mNew);
        const float p = x == -INFINITY ? 0.0f : expf(x - mNew);
        l[r] = l[r] * alpha + fusec_warp_sum(p);
        m[r] = mNew;
        sh.p[warp][r][lane] = p;
#pragma unroll
        for (int c = 0; c < kColChunks; ++c)
          acc[r][c] *= alpha;
      }
      __syncwarp();
      // Keys past Sk have p = 0 and zero V rows: the loop may round up to
      // whole float4s of probabilities.
      const int keys = SK - key0 < kBlockN ? int(SK - key0) : kBlockN;
      for (int j = 0; j < keys; j += 4) {
        float4 p4[kRows];
#pragma unroll
        for (int r = 0; r < kRows; ++r)
          p4[r] = *reinterpret_cast<const float4 *>(&sh.p[warp][r][j]);
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
          float v[kColChunks];
#pragma unroll
          for (int c = 0; c < kColChunks; ++c)
            v[c] = lane + c * FUSEC_WARP_SIZE < DV ? sh.v[j + jj][lane + c * FUSEC_WARP_SIZE] : 0.0f;
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const float p = jj == 0 ? p4[r].x : jj == 1 ? p4[r].y : jj == 2 ? p4[r].z : p4[r].w;
#pragma unroll
            for (int c = 0; c < kColChunks; ++c)
              acc[r][c] = fmaf(p, v[c], acc[r][c]);
          }
        }
      }
    }
    if (split.slices > 1 && !mergeSlices(m, l, acc, split, reinterpret_cast<unsigned *>(&sh.p[0][0][0])))
      return;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const long long row = row0 + warp * kRows + r;
      if (row >= S)
        continue;
#pragma unroll
      for (int c = 0; c < kColChunks; ++c) {
        const int col = lane + c * FUSEC_WARP_SIZE;
        if (col < DV)
          epilogue(row, (long long)col, acc[r][c] / l[r]);
      }
    }
  }
};

#endif // FUSEC_ATTENTION_H
