// fusec_attention_rows.h - what the tensor-core attention loop does on its rows.
//
// FusecAttentionMma (fusec_attention_mma.h), in both its instantiations
// (FusecAttentionHalf: f16/bf16, mma.m16n8k16; FusecAttentionTf32: f32,
// mma.m16n8k8), has 4 warps of 16 query rows, and lane (g = lane / 4, t =
// lane % 4) holds rows g and g + 8 of every accumulator tile (mma's C
// layout). Everything it does on those rows is independent of the products'
// operand types, and lives here:
//  * the key tiles a block walks (the causal diagonal, its split's share);
//  * 16-byte cp.async copies of K, V and Q rows into shared tiles;
//  * the online softmax of a score tile, in log2 units: scale, mask, the
//    rows' new maxima (over the quad's lanes) and the probabilities;
//  * the merge of a split's slices and the final division and epilogue.
// What differs between the MMA steps is their FusecAttentionFragments:
// fragment loads, the mmas, and how the probabilities become the next
// product's A fragments.
#ifndef FUSEC_ATTENTION_ROWS_H
#define FUSEC_ATTENTION_ROWS_H

#include "fusec_mma.h"
#include "fusec_split_k.h"

template <int Threads, int BlockM, int BlockN, int OutputTiles> struct FusecAttentionRows {
  /// A split's partials per thread: the output tiles, then (m, m, l, l) of
  /// the lane's two rows; per block (a tile's slice), kSplitFloats floats.
  static constexpr int kSplitVectors = OutputTiles + 1, kSplitFloats = kSplitVectors * 4 * Threads;

  /// The key tiles [first, end) the block of query rows row0 .. row0 +
  /// BlockM - 1 walks: up to its last attended key (row i attends to keys
  /// j <= i + SK - S when causal), all of them or its slice's share.
  static __device__ __forceinline__ void keyTiles(long long S, long long SK, bool causal, long long row0,
                                                  const FusecSplitK &split, int &first, int &end) {
    long long keyEnd = SK;
    if (causal && row0 + BlockM + (SK - S) < keyEnd)
      keyEnd = row0 + BlockM + (SK - S);
    first = 0;
    end = keyEnd > 0 ? int((keyEnd + BlockN - 1) / BlockN) : 0;
    if (split.slices > 1)
      fusec_split_k_range(end, split, first, end);
  }

  /// Issues the 16-byte copies of rows first .. first + Rows - 1 of a
  /// matrix of `count` rows, Columns elements each, `ld` apart, into `tile`
  /// (rows `stride` apart); rows from `count` on are zero-filled.
  template <int Rows, int Columns, typename Element>
  static __device__ __forceinline__ void loadRows(Element *tile, int stride, const Element *matrix, long long ld,
                                                  long long first, long long count) {
    constexpr int kPerVector = 16 / int(sizeof(Element));
    constexpr int kVectorsPerRow = Columns / kPerVector, kVectors = Rows * kVectorsPerRow;
    static_assert(Columns % kPerVector == 0, "rows are whole 16-byte vectors");
#pragma unroll
    for (int i = 0; i < (kVectors + Threads - 1) / Threads; ++i) {
      const int v = int(threadIdx.x) + i * Threads;
      if (kVectors % Threads != 0 && v >= kVectors)
        break;
      const int row = v / kVectorsPerRow, column = v % kVectorsPerRow * kPerVector;
      const bool inside = first + row < count;
      fusec_cp_async_cg(tile + row * stride + column, inside ? matrix + (first + row) * ld + column : matrix,
                        inside ? 16u : 0u);
    }
  }

  /// Starts copying key tile `tile`'s rows of K (D columns) and V (DV) into
  /// stage `stage` of their double buffers (BlockN rows `kStride` and
  /// `vStride` apart per stage).
  template <int D, int DV, typename Element>
  static __device__ __forceinline__ void loadKeyTile(Element *kTiles, int kStride, Element *vTiles, int vStride,
                                                     const Element *K, long long ldk, const Element *V, long long ldv,
                                                     long long SK, int tile, int stage) {
    const long long key0 = (long long)tile * BlockN;
    loadRows<BlockN, D>(kTiles + stage * BlockN * kStride, kStride, K, ldk, key0, SK);
    loadRows<BlockN, DV>(vTiles + stage * BlockN * vStride, vStride, V, ldv, key0, SK);
  }

  template <int Tiles> static __device__ __forceinline__ void zero(float (&accumulators)[Tiles][4]) {
#pragma unroll
    for (int j = 0; j < Tiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        accumulators[j][r] = 0.0f;
  }

  /// Turns the scores `s` of the key tile at key0 into probabilities, in
  /// place: scaled (scaleLog2 = scale log2(e)) and masked (mask(row, key),
  /// additive; keys past a row's limit - the sequence's end, the diagonal
  /// for causal kernels - are -inf) in log2 units, the rows' maxima m
  /// raised (over the quad's lanes), then exp2(x - m), 0 for -inf. `alpha`
  /// is what the rows' sums and outputs are rescaled by (exp2 of the old
  /// maximum minus the new). keyOf(j, r) is the key within the tile of
  /// element r of score tile j. Rows past S are computed on zero queries and
  /// never stored; their mask reads stay on row S - 1.
  template <int ScoreTiles, typename Mask, typename KeyOf>
  static __device__ __forceinline__ void
  probabilities(float (&s)[ScoreTiles][4], float (&m)[2], float (&alpha)[2], const long long (&rows)[2], long long S,
                long long SK, bool causal, long long key0, float scaleLog2, Mask &mask, KeyOf keyOf) {
    constexpr float kLog2e = 1.4426950408889634f;
    int limit[2];
    long long maskRow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      long long end = SK;
      if (causal && rows[h] + (SK - S) + 1 < end)
        end = rows[h] + (SK - S) + 1;
      limit[h] = end - key0 <= 0 ? 0 : end - key0 >= BlockN ? BlockN : int(end - key0);
      maskRow[h] = rows[h] < S ? rows[h] : S - 1;
    }
    float tileMax[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int key = keyOf(j, r);
        const float x =
            key < limit[r / 2] ? fmaf(s[j][r], scaleLog2, mask(maskRow[r / 2], key0 + key) * kLog2e) : -INFINITY;
        s[j][r] = x;
        tileMax[r / 2] = fmaxf(tileMax[r / 2], x);
      }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      tileMax[h] = fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], 1));
      tileMax[h] = fmaxf(tileMax[h], __shfl_xor_sync(0xffffffffu, tileMax[h], 2));
      const float mNew = fmaxf(m[h], tileMax[h]);
      // A row with no finite score yet has nothing to rescale; exp of
      // -inf - -inf would be NaN.
      alpha[h] = m[h] == -INFINITY ? 0.0f : exp2f(m[h] - mNew);
      m[h] = mNew;
    }
#pragma unroll
    for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        s[j][r] = s[j][r] == -INFINITY ? 0.0f : exp2f(s[j][r] - m[r / 2]);
  }

  /// The rows' sums and outputs rescaled by `alpha`, the tile's
  /// probabilities `rowSum` added.
  static __device__ __forceinline__ void rescale(float (&l)[2], float (&o)[OutputTiles][4], const float (&alpha)[2],
                                                 const float (&rowSum)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h)
      l[h] = l[h] * alpha[h] + rowSum[h];
#pragma unroll
    for (int j = 0; j < OutputTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        o[j][r] *= alpha[r / 2];
  }

  /// Publishes this slice's rows (m, l: the lane's partial sums, o) and,
  /// in the tile's last block, replaces them by the merge of every slice in
  /// slice order; returns whether this block is that one. m is in log2
  /// units, the same across a quad's lanes, so each lane merges its own
  /// partial sums.
  static __device__ __forceinline__ bool mergeSlices(float (&m)[2], float (&l)[2], float (&o)[OutputTiles][4],
                                                     const FusecSplitK &split, unsigned *last) {
    auto value = [&](int q) {
      return q < OutputTiles ? make_float4(o[q][0], o[q][1], o[q][2], o[q][3]) : make_float4(m[0], m[1], l[0], l[1]);
    };
    if (!fusec_split_k_publish<Threads, kSplitVectors>(value, split, last))
      return false;
    zero(o);
#pragma unroll
    for (int h = 0; h < 2; ++h)
      m[h] = -INFINITY, l[h] = 0.0f;
#pragma unroll 1
    for (int s = 0; s < split.slices; ++s) {
      const float4 rows = fusec_split_k_partial<Threads, kSplitVectors>(split, s, OutputTiles);
      const float sliceMax[2] = {rows.x, rows.y}, sliceSum[2] = {rows.z, rows.w};
      float keep[2], add[2];
#pragma unroll
      for (int h = 0; h < 2; ++h)
        fusec_merge_softmax_row<true>(m[h], l[h], sliceMax[h], sliceSum[h], keep[h], add[h]);
#pragma unroll
      for (int j = 0; j < OutputTiles; ++j) {
        const float4 v = fusec_split_k_partial<Threads, kSplitVectors>(split, s, j);
        o[j][0] = o[j][0] * keep[0] + v.x * add[0];
        o[j][1] = o[j][1] * keep[0] + v.y * add[0];
        o[j][2] = o[j][2] * keep[1] + v.z * add[1];
        o[j][3] = o[j][3] * keep[1] + v.w * add[1];
      }
    }
    return true;
  }

  /// The rows' sums reduced over the quad, and O = o / l handed to
  /// epilogue(row, col, value) for rows below S (columns 2t, 2t + 1 of
  /// each n8 output tile).
  template <typename Epilogue>
  static __device__ __forceinline__ void store(float (&l)[2], const float (&o)[OutputTiles][4],
                                               const long long (&rows)[2], long long S, int t, Epilogue &epilogue) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
#pragma unroll
    for (int j = 0; j < OutputTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        if (rows[r / 2] < S)
          epilogue(rows[r / 2], (long long)(j * 8 + 2 * t + r % 2), o[j][r] / l[r / 2]);
  }
};

#endif // FUSEC_ATTENTION_ROWS_H
