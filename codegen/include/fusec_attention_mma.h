// fusec_attention_mma.h - the flash-attention loop on the tensor cores, for every MMA step.
//
// fuse.attention in the shape of FlashAttention-2: one block of 4 warps
// computes kBlockM = 64 query rows of one (batch, head) matrix, each warp 16
// of them, for the whole key sequence (or its split's share), walked
// kBlockN keys at a time. FusecAttentionMma<Tile, Step> is that
// loop for any MMA step of fusec_pipeline.h; FusecAttentionHalf
// (fusec_attention_half.h: FusecHalfStep, mma.m16n8k16) and
// FusecAttentionTf32 (fusec_attention_tf32.h: FusecTf32Step, mma.m16n8k8 in
// 3xTF32 or tf32) name its two instantiations.
//
//  * The key tiles run through FusecPipeline<2>: K and V tiles
//    double-buffered in shared memory, filled by 16-byte cp.async copies,
//    tile j + 1 in flight while tile j is multiplied, one barrier per key
//    tile. The query rows are copied once, in the first tile's group. Rows
//    past the sequences are zero-filled and read nothing (a zero V row times
//    a zero probability adds nothing).
//  * Per key tile: S = Q Kᵀ for the warp's rows, the online softmax in log2
//    units (FusecAttentionRows: scale and mask in one FMA, the rows' maxima
//    over the quad, one ex2 per score), P turned into the A fragments of the
//    next product in registers, and O += P V.
//  * Causal kernels stop at the block's last attended key; with a
//    FusecSplitK of slices > 1 a block walks its slice's share of the key
//    tiles and the tile's last block merges the slices (flash-decoding).
//
// What depends on the MMA step is FusecAttentionFragments<Step, D, DV,
// BlockN>, specialised beside each step's loop:
//   kQStride, kKStride, kVStride   shared row strides (padded for ldmatrix)
//   Query(qTile, lane, warp)       what a lane keeps of Q across key tiles;
//   query.load(qTile, lane, warp)  called on the first key tile, once Q has
//                                  landed
//   scores(s, query, kStage, lane) s += Q Kᵀ for the key tile in kStage
//   keyOf(j, r, t)                 the key (within the tile) of element r of
//                                  score tile j, for lane t = lane % 4
//   Probabilities, operand(s, p, rowSum)
//                                  P as the A fragments of P V; rowSum adds
//                                  P as that product multiplies it
//   accumulate(o, p, vStage, lane) o += P V for the key tile in vStage
//
// Requires: blockDim.x == kThreads; kSmemBytes of shared memory at `smem`,
// 16-byte aligned; each matrix's rows 16-byte aligned.
#ifndef FUSEC_ATTENTION_MMA_H
#define FUSEC_ATTENTION_MMA_H

#include "fusec_attention_rows.h"
#include "fusec_pipeline.h"

template <class Step, int D, int DV, int BlockN> struct FusecAttentionFragments;

/// Tile is an attention description (fusec_pipeline.h): kHeadDim (D of Q
/// and K), kValueDim (DV of V), kBlockN keys per tile, kPasses and Element,
/// read by name.
template <class Tile, class Step> struct FusecAttentionMma {
  using Element = typename Step::Element;
  static_assert(FusecCheckAttentionTile<Tile>::value, "a complete attention description");
  static_assert(sizeof(typename Tile::Element) == sizeof(Element), "the description's Element is the step's");
  static constexpr int D = Tile::kHeadDim, DV = Tile::kValueDim, BlockN = Tile::kBlockN;
  using Fragments = FusecAttentionFragments<Step, D, DV, BlockN>;
  static constexpr int kWarps = 4, kBlockM = 16 * kWarps, kThreads = 32 * kWarps;
  /// Keys per tile (the config's block N).
  static constexpr int kBlockN = BlockN;
  /// K and V tiles in flight: a double buffer.
  using Pipeline = FusecPipeline<2>;
  static constexpr int kQStride = Fragments::kQStride, kKStride = Fragments::kKStride, kVStride = Fragments::kVStride;
  static constexpr int kQElements = kBlockM * kQStride;
  static constexpr int kKStage = kBlockN * kKStride, kVStage = kBlockN * kVStride;
  static constexpr int kSmemBytes = (kQElements + Pipeline::kStages * (kKStage + kVStage)) * int(sizeof(Element));
  /// The same size in floats, for callers that declare float4 arrays.
  static constexpr int kSmemFloats = kSmemBytes / 4;
  static constexpr int kScoreTiles = kBlockN / 8, kOutputTiles = DV / 8;
  using Rows = FusecAttentionRows<kThreads, kBlockM, kBlockN, kOutputTiles>;
  static constexpr int kSplitFloats = Rows::kSplitFloats;

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
    Element *const vTiles = kTiles + Pipeline::kStages * kKStage;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int t = lane % 4;
    const float scaleLog2 = scale * 1.4426950408889634f;
    int firstTile, endTile;
    Rows::keyTiles(S, SK, causal, row0, split, firstTile, endTile);

    // Q's copies join the first key tile's cp.async group.
    Rows::template loadRows<kBlockM, D>(qTile, kQStride, Q, ldq, row0, S);

    // This lane's rows: g and g + 8 of the warp's 16.
    const long long rows[2] = {row0 + warp * 16 + lane / 4, row0 + warp * 16 + lane / 4 + 8};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    float o[kOutputTiles][4];
    Rows::zero(o);
    typename Fragments::Query query(qTile, lane, warp);

    auto loadTile = [&](int stage, int tile) {
      Rows::template loadKeyTile<D, DV>(kTiles, kKStride, vTiles, kVStride, K, ldk, V, ldv, SK, tile, stage);
    };
    auto multiplyTile = [&](int stage, int tile) {
      if (tile == firstTile)
        query.load(qTile, lane, warp);
      const Element *kStage = kTiles + stage * kKStage;
      const Element *vStage = vTiles + stage * kVStage;

      // S = Q Kᵀ for the warp's 16 rows and the tile's keys.
      float s[kScoreTiles][4];
      Rows::zero(s);
      Fragments::scores(s, query, kStage, lane);

      float alpha[2];
      Rows::probabilities(s, m, alpha, rows, S, SK, causal, (long long)tile * kBlockN, scaleLog2, mask,
                          [t](int j, int r) { return Fragments::keyOf(j, r, t); });

      // P, in registers, as the A fragments of P V.
      typename Fragments::Probabilities p;
      float rowSum[2] = {0.0f, 0.0f};
      Fragments::operand(s, p, rowSum);
      Rows::rescale(l, o, alpha, rowSum);

      // O += P V.
      Fragments::accumulate(o, p, vStage, lane);
    };
    Pipeline::run(firstTile, endTile - firstTile, loadTile, multiplyTile);

    if (split.slices > 1 && !Rows::mergeSlices(m, l, o, split, static_cast<unsigned *>(smem)))
      return;
    Rows::store(l, o, rows, S, t, epilogue);
  }
};

#endif // FUSEC_ATTENTION_MMA_H
