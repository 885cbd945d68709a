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
  /// A split's partials per thread: the output tiles, then (m, m, l, l) of
  /// the lane's two rows; per block (a tile's slice), kSplitFloats floats.
  static constexpr int kSplitVectors = kOutputTiles + 1, kSplitFloats = kSplitVectors * 4 * kThreads;

  /// Issues the 16-byte copies of rows first .. first + Rows - 1 of a
  /// matrix of `count` rows, Columns elements each, `ld` apart, into
  /// `tile` (rows `stride` apart); rows from `count` on are zero-filled.
  template <int Rows, int Columns>
  static __device__ __forceinline__ void loadRows(Element *tile, int stride, const Element *matrix, long long ld,
                                                  long long first, long long count) {
    constexpr int kVectorsPerRow = Columns / 8, kVectors = Rows * kVectorsPerRow;
#pragma unroll
    for (int i = 0; i < (kVectors + kThreads - 1) / kThreads; ++i) {
      const int v = int(threadIdx.x) + i * kThreads;
      if (kVectors % kThreads != 0 && v >= kVectors)
        break;
      const int row = v / kVectorsPerRow, column = v % kVectorsPerRow * 8;
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

  /// Publishes this slice's rows (m, l: the lane's partial sums, o) and,
  /// in the tile's last block, replaces them by the merge of every slice;
  /// returns whether this block is that one. m is in log2 units, the same
  /// across a quad's lanes, so each lane merges its own partial sums.
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
        o[j][0] = o[j][0] * keep[0] + v.x * add[0];
        o[j][1] = o[j][1] * keep[0] + v.y * add[0];
        o[j][2] = o[j][2] * keep[1] + v.z * add[1];
        o[j][3] = o[j][3] * keep[1] + v.w * add[1];
      }
    }
    return true;
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
    // This block's key tiles: all of them, or its slice's share.
    int firstTile = 0, endTile = keyTiles;
    if (split.slices > 1)
      fusec_split_k_range(keyTiles, split, firstTile, endTile);

    loadRows<kBlockM, D>(qTile, kQStride, Q, ldq, row0, S);
    if (endTile > firstTile) {
      loadRows<kBlockN, D>(kTiles, kKStride, K, ldk, (long long)firstTile * kBlockN, SK);
      loadRows<kBlockN, DV>(vTiles, kVStride, V, ldv, (long long)firstTile * kBlockN, SK);
    }
    fusec_cp_async_commit();

    // This lane's rows: g and g + 8 of the warp's 16.
    const long long rows[2] = {row0 + warp * 16 + g, row0 + warp * 16 + g + 8};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    float o[kOutputTiles][4];
    zero(o);
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
      if (tile + 1 < endTile) {
        const int stage = (tile + 1 - firstTile) % 2;
        const long long key0 = (long long)(tile + 1) * kBlockN;
        loadRows<kBlockN, D>(kTiles + stage * kKStage, kKStride, K, ldk, key0, SK);
        loadRows<kBlockN, DV>(vTiles + stage * kVStage, kVStride, V, ldv, key0, SK);
      }
      fusec_cp_async_commit();
      const Element *kStage = kTiles + (tile - firstTile) % 2 * kKStage;
      const Element *vStage = vTiles + (tile - firstTile) % 2 * kVStage;

      // S = Q Kᵀ for the warp's 16 rows and the tile's keys. K as N x K,
      // x4: matrices (keys j * 8.., d 0-7 / 8-15), then keys (j + 1) * 8...
      float s[kScoreTiles][4];
      zero(s);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
        for (int j = 0; j < kScoreTiles; j += 2) {
          unsigned b[4];
          fusec_ldmatrix<4, false>(b,
                                   kStage + (j * 8 + lane / 16 * 8 + lane % 8) * kKStride + kk * 16 + lane / 8 % 2 * 8);
          mmaPair(s[j], s[j + 1], q[kk], b);
        }

      // Scale, mask, and the rows' new maxima (over the quad's lanes), in
      // log2 units: exp(x - m) = exp2(x log2(e) - m log2(e)), one ex2 each.
      // A row attends to the tile's keys below its limit (the sequence's
      // end, the diagonal for causal kernels): one 32-bit compare per
      // score. Rows past S are computed on zero queries and never stored;
      // their mask reads stay on row S - 1.
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
          const int key = j * 8 + 2 * t + r % 2;
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
        // A row with no finite score yet has nothing to rescale; exp of
        // -inf - -inf would be NaN.
        alpha[h] = m[h] == -INFINITY ? 0.0f : exp2f(m[h] - mNew);
        m[h] = mNew;
      }

      // P, rounded and packed into the A fragments of P V: k16 step c is
      // score tiles 2c (columns 2t, 2t + 1) and 2c + 1 (2t + 8, 2t + 9).
      unsigned p[kBlockN / 16][4];
      float rowSum[2] = {0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < kScoreTiles; ++j) {
        float e[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          e[r] = s[j][r] == -INFINITY ? 0.0f : exp2f(s[j][r] - m[r / 2]);
        p[j / 2][j % 2 * 2] = pack(e[0], e[1], rowSum[0]);
        p[j / 2][j % 2 * 2 + 1] = pack(e[2], e[3], rowSum[1]);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
        l[h] = l[h] * alpha[h] + rowSum[h];
#pragma unroll
      for (int j = 0; j < kOutputTiles; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          o[j][r] *= alpha[r / 2];

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
    if (split.slices > 1 && !mergeSlices(m, l, o, split, static_cast<unsigned *>(smem)))
      return;

#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
      l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
#pragma unroll
    for (int j = 0; j < kOutputTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        if (rows[r / 2] < S)
          epilogue(rows[r / 2], (long long)(j * 8 + 2 * t + r % 2), o[j][r] / l[r / 2]);
  }
};

#endif // FUSEC_ATTENTION_HALF_H
