// fusec_gemm_half.h - the tensor-core GEMM main loop for f16 and bf16 tensors.
//
// C = A B as in fusec_gemm.h (row-major A, M x K; B from a B operand:
// FusecDenseB or FusecIm2colB with Element = fusec_f16 or fusec_bf16), with
// mma.m16n8k16 (f16 or bf16 in, f32 accumulators): products of 16-bit
// operands are exact in f32 and are added in f32, so C is the f32 sum of the
// exact products; the epilogue rounds it to the result's type.
//
//  * The same pipeline as FusecGemmTf32: K advances BK (a multiple of 16) at
//    a time through Stages shared-memory stages filled by cp.async, one
//    __syncthreads per k-tile. A copy moves Vec elements: 16 bytes for Vec
//    = 8; a single element (Vec = 1: rows of an odd length, the gathered
//    im2col operand) is a register load and store (see fusec_copy_vector).
//    Ragged M, N and K tails read nothing past the tensors.
//  * Fragments come from shared memory through ldmatrix, 8x8 matrices of
//    16-bit elements: A with x4 (rows 0-7 / 8-15 by k 0-7 / 8-15: exactly
//    a[0..3] of m16n8k16), B as N x K with x2 (n 0-7 by k 0-7 / 8-15), B as
//    K x N row-major with x2.trans (k 0-7 / 8-15 by n 0-7, transposed into
//    b[0], b[1]).
//  * Shared rows are padded by 8 elements (16 bytes): A and N x K B as
//    [rows][BK + 8], K x N B as [BK][BN + 8]. The 8 row addresses of one
//    ldmatrix are then (BK + 8) / 2 words apart, 4 words modulo 32 for BK =
//    32 (20 words), 64 (36) or 128: the 8 rows of 16 bytes cover all 32
//    banks once, no conflict; the same holds for BN + 8.
//  * Index math is 32-bit and incremental, as in fusec_gemm.h.
//
// The epilogue is the caller's functor, called as epilogue(row, col, value)
// with the f32 accumulator, once for every element of C in [0, M) x [0, N),
// by the lane holding it (the fragment layout of fusec_gemm.h).
// Shared memory: kSmemBytes from the caller, 16-byte aligned.
#pragma once

#include "fusec_gemm.h"

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

template <int BM, int BN, int BK, int WM, int WN, int Stages, int Vec, class BOperand> struct FusecGemmHalf {
  using Element = typename BOperand::Element;
  static_assert(sizeof(Element) == 2, "FusecGemmHalf multiplies f16 or bf16 tensors");
  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is made of whole warp tiles");
  static_assert(WM % 16 == 0 && WN % 8 == 0, "warp tiles are made of m16n8 mma tiles");
  static_assert(BK % 16 == 0, "BK is made of k16 mma steps");
  static_assert(Stages >= 2, "the pipeline needs at least two stages");
  static_assert(Vec == 1 || Vec == 2 || Vec == 4 || Vec == 8, "copies move 1, 2, 4 or 8 elements");
  static_assert(BOperand::kVec == 1 || BOperand::kVec == 2 || BOperand::kVec == 4 || BOperand::kVec == 8,
                "copies move 1, 2, 4 or 8 elements");
  static constexpr bool BTransposed = BOperand::kTransposed;
  using Operand = BOperand;

  static constexpr int kBlockM = BM;
  static constexpr int kBlockN = BN;
  static constexpr int kWarpsM = BM / WM;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kMmaM = WM / 16;
  static constexpr int kMmaN = WN / 8;

  // Shared layout per stage, in elements: A as [BM][BK + 8]; B as
  // [BN][BK + 8] when N x K, else [BK][BN + 8].
  static constexpr int kAStride = BK + 8;
  static constexpr int kAStage = BM * kAStride;
  static constexpr int kBStride = BTransposed ? BK + 8 : BN + 8;
  static constexpr int kBStage = (BTransposed ? BN : BK) * kBStride;
  // The pipeline's stages, and after the main loop the staged f32 output
  // tile.
  using StagedEpilogue =
      FusecStagedEpilogue<BM, BN, WM, WN, 32 * (BM / WM) * (BN / WN), FusecOutputAlongRows<BOperand>::value>;
  static constexpr int kPipelineBytes = Stages * (kAStage + kBStage) * 2;
  static_assert(kPipelineBytes % 16 == 0, "stages are whole 16-byte vectors");
  static constexpr int kSmemBytes =
      kPipelineBytes > StagedEpilogue::kSmemBytes ? kPipelineBytes : StagedEpilogue::kSmemBytes;
  /// The same size in floats, for callers that declare float4 arrays.
  static constexpr int kSmemFloats = kSmemBytes / 4;

  using ALoads = FusecTileLoads<kThreads, BM, BK, Vec>;
  // B's tile rows are n when B is N x K, else k.
  using BLoads = FusecTileLoads<kThreads, BTransposed ? BN : BK, BTransposed ? BK : BN, BOperand::kVec>;
  static_assert(!BOperand::kFixedColumn || (!BTransposed && BLoads::kWholeRowsPerPass),
                "an operand with per-column state needs each thread's copies in one column");
  static_assert(FusecOperandRowsMatch<BOperand, BLoads>::value,
                "an operand with per-row state needs each thread's copies in its rows");

  /// Computes the tile of C at (blockRow, blockCol) and hands it to
  /// `epilogue`. Every thread of the block (kThreads, 1-D) calls it.
  template <typename Epilogue>
  static __device__ __forceinline__ void run(const Element *__restrict__ a, int lda, BOperand &bOperand, int m, int n,
                                             int k, int blockRow, int blockCol, void *smem, Epilogue &epilogue,
                                             const FusecSplitK &splitK = FusecSplitK()) {
    const int thread = threadIdx.x;
    const int lane = thread % 32, warp = thread / 32;
    const int warpRow = (warp / kWarpsN) * WM, warpCol = (warp % kWarpsN) * WN;
    Element *const aTiles = static_cast<Element *>(smem);
    Element *const bTiles = aTiles + Stages * kAStage;

    // A's block rows start at a 64-bit offset (the rows of a product grow
    // with the batch: blockRow * lda passes 2^31 in a BERT-sized layer at
    // batch 2^16); offsets inside the block's BM rows stay 32-bit.
    const Element *const aBlock = a + static_cast<long long>(blockRow) * lda;
    const int aRow = ALoads::firstRow(thread), aColumn = ALoads::firstColumn(thread);
    const int aGlobal = aRow * lda + aColumn, aShared = aRow * kAStride + aColumn;
    const int bRow = BLoads::firstRow(thread), bColumn = BLoads::firstColumn(thread);
    const int bFirstK = BTransposed ? bColumn : bRow, bFirstN = blockCol + (BTransposed ? bRow : bColumn);
    const int bShared = bRow * kBStride + bColumn;
    bOperand.begin(bFirstK, bFirstN);

    // Issues the copies of k-tile `kTile` into stage `stage`; what lies
    // outside the tensors is zero-filled and not read.
    auto loadTile = [&](int stage, int kTile) {
      const int k0 = kTile * BK;
#pragma unroll
      for (int i = 0; i < ALoads::kCount; ++i) {
        const int row = ALoads::row(i), column = ALoads::column(i);
        const int left = k - (k0 + aColumn + column);
        const unsigned bytes = blockRow + aRow + row < m && left > 0 ? 2u * (left < Vec ? left : Vec) : 0u;
        fusec_copy_vector<Vec, Element>(aTiles + stage * kAStage + aShared + row * kAStride + column,
                                        bytes ? aBlock + aGlobal + row * lda + column + k0 : a, bytes);
      }
#pragma unroll
      for (int i = 0; i < BLoads::kCount; ++i) {
        const int row = BLoads::row(i), column = BLoads::column(i);
        const int dk = BTransposed ? column : row, dn = BTransposed ? row : column;
        bOperand.copy(bTiles + stage * kBStage + bShared + row * kBStride + column, bFirstK + k0 + dk, bFirstN + dn, k0,
                      dk, dn, k, n);
      }
    };

    // This lane's ldmatrix row address inside a stage, at kk = 0.
    // A, x4: matrix q = lane / 8 is rows (q % 2) * 8.. by k (q / 2) * 8..
    const int aFragment = (warpRow + (lane / 8) % 2 * 8 + lane % 8) * kAStride + lane / 8 / 2 * 8;
    // B as N x K, x2: matrix q = (lane / 8) % 2 is rows n 0..7 by k q * 8..;
    // B as K x N, x2.trans: lane l < 16 addresses row k = l (matrix l / 8).
    const int bFragment =
        BTransposed ? (warpCol + lane % 8) * kBStride + (lane / 8) % 2 * 8 : (lane % 16) * kBStride + warpCol;

    float accumulator[kMmaM][kMmaN][4];
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < kMmaN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          accumulator[i][j][r] = 0.0f;

    // This block's k-tiles: all of them, or its slice's share.
    int kBegin = 0, kEnd = (k + BK - 1) / BK;
    if (splitK.slices > 1)
      fusec_split_k_range(kEnd, splitK, kBegin, kEnd);
    const int kTiles = kEnd - kBegin;
#pragma unroll
    for (int stage = 0; stage < Stages - 1; ++stage) {
      if (stage < kTiles)
        loadTile(stage, kBegin + stage);
      fusec_cp_async_commit();
    }
    int readStage = 0, writeStage = Stages - 1;
    for (int kTile = 0; kTile < kTiles; ++kTile) {
      // Tile kTile has landed for this thread; the barrier makes every
      // thread's copies visible and frees the stage read in the last round.
      fusec_cp_async_wait<Stages - 2>();
      __syncthreads();
      if (kTile + Stages - 1 < kTiles)
        loadTile(writeStage, kBegin + kTile + Stages - 1);
      fusec_cp_async_commit();

      const Element *aStage = aTiles + readStage * kAStage;
      const Element *bStage = bTiles + readStage * kBStage;
#pragma unroll
      for (int kk = 0; kk < BK; kk += 16) {
        unsigned aFragments[kMmaM][4], bFragments[kMmaN][2];
#pragma unroll
        for (int i = 0; i < kMmaM; ++i)
          fusec_ldmatrix<4, false>(aFragments[i], aStage + aFragment + i * 16 * kAStride + kk);
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) {
          if constexpr (BTransposed)
            fusec_ldmatrix<2, false>(bFragments[j], bStage + bFragment + j * 8 * kBStride + kk);
          else
            fusec_ldmatrix<2, true>(bFragments[j], bStage + bFragment + kk * kBStride + j * 8);
        }
#pragma unroll
        for (int i = 0; i < kMmaM; ++i)
#pragma unroll
          for (int j = 0; j < kMmaN; ++j)
            FusecHalfMma<Element>::run(accumulator[i][j], aFragments[i], bFragments[j]);
      }
      readStage = readStage + 1 == Stages ? 0 : readStage + 1;
      writeStage = writeStage + 1 == Stages ? 0 : writeStage + 1;
    }
    fusec_cp_async_wait<0>();
    // Split: only the tile's last block goes on, with the whole sum.
    if (splitK.slices > 1 && !fusec_split_k_reduce<kThreads>(accumulator, splitK, static_cast<unsigned *>(smem)))
      return;

    StagedEpilogue::run(accumulator, static_cast<float *>(smem), blockRow, blockCol, warpRow, warpCol, m, n, epilogue);
  }
};
