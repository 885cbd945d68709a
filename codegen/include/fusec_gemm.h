// fusec_gemm.h - the tensor-core GEMM main loop, and its fp32 instantiation.
//
// FusecMmaGemm<..., Step> is the main loop of every MMA step of
// fusec_pipeline.h; FusecGemmTf32 is it with FusecTf32Step (below, fp32
// tensors), FusecGemmHalf (fusec_gemm_half.h) with FusecHalfStep.
//
// C = A B for row-major A (M x K, leading dimension lda) and a B operand
// that says how its tiles are copied to shared memory: FusecDenseB (a matrix
// K x N row-major, or N x K for ONNX Gemm's transB) or FusecIm2colB of
// fusec_conv.h (the im2col matrix of a convolution's input, gathered on the
// fly: the implicit GEMM). One thread block
// computes a BM x BN tile of C; its warps each a WM x WN sub-tile, as
// (WM / 16) x (WN / 8) accumulators of mma.m16n8k8 (tf32 in, f32 out).
//
//  * K advances BK at a time through FusecPipeline's ring of Stages
//    shared-memory stages filled by cp.async, Stages - 1 tiles ahead of the
//    one being multiplied: one __syncthreads per k-tile, and loads overlap
//    the tensor-core work.
//  * Global loads move Vec floats (16 bytes for Vec = 4) per cp.async;
//    ragged M, N and K tails read nothing past the tensors (src-size 0 or a
//    partial vector, zero-filled), so the loop needs no special last tile.
//  * A fragments, and B fragments when B is N x K, come from shared memory
//    through ldmatrix (a 32-bit element is two 16-bit halves, so an 8x8 b16
//    matrix is an 8 x 4 block of floats: exactly an m16n8k8 tf32 fragment).
//    Padded shared rows (BK + 4 or BN + 8 floats) keep ldmatrix and the
//    scalar B reads free of bank conflicts.
//  * Passes = 1 rounds A and B to tf32 (cvt.rna): one mma per product,
//    about 1e-3 relative error. Passes = 3 splits x = big + small (both
//    tf32) and adds small_a big_b + big_a small_b + big_a big_b in f32,
//    which keeps fp32 accuracy (about 1e-6) at three times the mma work.
//  * Index math is 64-bit once per block and 32-bit inside it: A's block
//    rows start at a 64-bit offset (blockRow * lda), offsets within the
//    block's BM rows (BM * lda) and within B (K * ldb / N * ldb) stay below
//    2^31, and so does M (the row coordinates the epilogue gets). It is
//    incremental: no division or 64-bit multiply inside the k-loop (the
//    im2col operand divides by compile-time constants only).
//
// The epilogue is the caller's: a functor called as
//   epilogue(row, col, value)
// once for every element of C in [0, M) x [0, N). Bias, activations,
// residual adds and several outputs are written there, fused. The tile
// reaches it through shared memory (FusecStagedEpilogue), in the order of
// the output's contiguous dimension, so its loads and stores are whole
// lines.
//
// With a FusecSplitK of slices > 1 (fusec_split_k.h) the block multiplies
// its slice's share of the k-tiles only; the tile's last block adds the
// slices' partial sums and alone calls the epilogue.
//
// Shared memory comes from the caller (kSmemBytes, 16-byte aligned), so a
// kernel can use a static array below 48 KiB or dynamic shared memory above.
// Requirements (static_asserts where they can be): WM % 16 == 0, WN % 8 ==
// 0, BK % 8 == 0, the tiles divisible into whole loads per thread; lda a
// multiple of Vec and A aligned to 4 Vec bytes (B: its operand's kVec).
#pragma once

#include "fusec_mma.h"
#include "fusec_pipeline.h"
#include "fusec_split_k.h"

/// Starts copying one vector of `Vec` elements to shared memory, of which
/// the first `bytes` are read (see fusec_cp_async_ca): 16-byte vectors
/// bypass L1, tiles are read once per block. cp.async moves 4, 8 or 16
/// bytes, so a single 16-bit element (a gather of the im2col operand, or a
/// matrix whose rows are not whole 4-byte pairs) is loaded to a register
/// and stored instead: it lands at once rather than at the wait, which the
/// pipeline allows (a stage is written only after the barrier that frees
/// it, and read only after a later one).
template <int Vec, typename Element = float>
__device__ __forceinline__ void fusec_copy_vector(Element *shared, const Element *global, unsigned bytes) {
  constexpr int kBytes = Vec * int(sizeof(Element));
  static_assert(kBytes == 2 || kBytes == 4 || kBytes == 8 || kBytes == 16, "a copy moves 2, 4, 8 or 16 bytes");
  if constexpr (kBytes == 16) {
    fusec_cp_async_cg(shared, global, bytes);
  } else if constexpr (kBytes >= 4) {
    fusec_cp_async_ca<kBytes>(shared, global, bytes);
  } else {
    const unsigned short bits = bytes ? __ldg(reinterpret_cast<const unsigned short *>(global)) : 0;
    *reinterpret_cast<unsigned short *>(shared) = bits;
  }
}

/// How the `Threads` threads of a block share the copies of a tile of Rows
/// x Cols elements: Count vectors of Width each, thread t's i-th at
/// (firstRow(t) + row(i), firstColumn(t) + column(i)), where row(i) and
/// column(i) are constants once the loop over i is unrolled, so each
/// load's address is a base plus an immediate.
template <int Threads, int Rows, int Cols, int Width> struct FusecTileLoads {
  static constexpr int kVectorsPerRow = Cols / Width;
  static constexpr int kCount = Rows * kVectorsPerRow / Threads;
  // Threads cover whole rows per pass, or a row takes whole passes.
  static constexpr bool kWholeRowsPerPass = Threads % kVectorsPerRow == 0;
  static_assert(Cols % Width == 0, "tile rows are whole vectors");
  static_assert(kCount >= 1 && kCount * Threads == Rows * kVectorsPerRow, "a tile loads evenly over the threads");
  static_assert(kWholeRowsPerPass || kVectorsPerRow % Threads == 0, "threads cover whole rows, or rows whole passes");
  /// Rows between a thread's copies when threads cover whole rows per pass.
  static constexpr int kRowsPerPass = kWholeRowsPerPass ? Threads / kVectorsPerRow : 0;
  static __device__ __forceinline__ int firstRow(int thread) { return thread / kVectorsPerRow; }
  static __device__ __forceinline__ int firstColumn(int thread) { return thread % kVectorsPerRow * Width; }
  static __device__ __forceinline__ int row(int i) {
    return kWholeRowsPerPass ? i * (Threads / kVectorsPerRow) : i / (kVectorsPerRow / Threads);
  }
  static __device__ __forceinline__ int column(int i) {
    return kWholeRowsPerPass ? 0 : i % (kVectorsPerRow / Threads) * Threads * Width;
  }
};

/// Whether operand B's per-row state (kRows rows kRowStep apart, as
/// FusecIm2colNhwcB keeps; operands without kRows keep none) is where the
/// main loop's tile loads `Loads` put each thread's copies.
template <class Operand, class Loads, class = void> struct FusecOperandRowsMatch {
  static constexpr bool value = true;
};
template <class Operand, class Loads>
struct FusecOperandRowsMatch<Operand, Loads, fusec_void_t<decltype(Operand::kRows)>> {
  static constexpr bool value = Operand::kTransposed && Loads::kWholeRowsPerPass && Operand::kRows == Loads::kCount &&
                                Operand::kRowStep == Loads::kRowsPerPass;
};

/// Operand B as a matrix in memory: K x N row-major (B(k, n) = b[k * ldb +
/// n]) or, Transposed, N x K row-major (B(k, n) = b[n * ldb + k], ONNX
/// Gemm's transB). Vec elements per copy along the contiguous dimension;
/// Element is float, or fusec_f16 / fusec_bf16 for FusecGemmHalf
/// (fusec_gemm_half.h).
///
/// The B-operand interface the main loop uses (FusecIm2colB in
/// fusec_conv.h is the other implementation):
///   kTransposed   shared layout: [BN][BK] (k contiguous) or [BK][BN]
///   Element       the element type (float, fusec_f16, fusec_bf16)
///   kVec          elements per copy
///   kFixedColumn  the operand keeps per-thread state for one column n, so
///                 each thread's copies must all be in that column
///   begin(k, n)   once per thread: its first vector's (k, n) at k-tile 0
///   copy(shared, k, n, k0, dk, dn, kCount, nCount)
///                 copies the vector at (k, n) = (first k + k0 + dk, first
///                 n + dn); dk and dn are constants once the loops are
///                 unrolled; what lies outside kCount x nCount is zero-filled
///                 and never read.
/// Whether a B operand's products store their outputs contiguous along
/// the tile's rows (an NHWC convolution: output channels, the rows, are
/// innermost) rather than along its columns (a row-major C; an NCHW
/// convolution's pixels). Operands say so with kOutputAlongRows.
template <class Operand, class = void> struct FusecOutputAlongRows {
  static constexpr bool value = false;
};
template <class Operand> struct FusecOutputAlongRows<Operand, fusec_void_t<decltype(Operand::kOutputAlongRows)>> {
  static constexpr bool value = Operand::kOutputAlongRows;
};

/// Hands a block's BM x BN tile of f32 accumulators to `epilogue` through
/// shared memory, so that the epilogue's loads and stores are coalesced:
/// consecutive lanes take consecutive elements along the output's
/// contiguous dimension (columns, or rows where AlongRows), so a warp's 32
/// f32 stores fill a whole 128-byte line where a fragment-order store (8
/// rows x 4 lanes x 2 columns) touches 8 lines. The whole tile is staged at
/// once, so the accumulators are dead before the epilogue's own registers
/// are needed. The epilogue sees (row, col) in [0, m) x [0, n) once each.
///
/// Shared layouts, both free of bank conflicts for BM and BN multiples of 32
/// (with g = lane / 4, t = lane % 4, lane l holds C(g, 2t), C(g, 2t + 1),
/// C(g + 8, 2t), C(g + 8, 2t + 1) of each m16n8 tile):
///  * along columns, row-major [BM][BN + 8]: float2 writes of the column
///    pairs, bank (8g + 2t) mod 32 for a half warp's 16 lanes (g < 4): each
///    8-byte access two distinct banks; reads along a row are consecutive;
///  * along rows, column-major [BN][BM + 4]: scalar writes, bank (8t + g)
///    mod 32 (+4 for the odd column, +8 for the lower rows): 32 distinct;
///    reads down a column are consecutive. (Row-major reads down a column
///    would be BN + 8 = 8 mod 32 words apart: 8-way conflicts.)
/// Two adjacent accumulators as one 8-byte store (ints as their bits).
__device__ __forceinline__ float2 fusec_accumulator_pair(float x, float y) { return make_float2(x, y); }
__device__ __forceinline__ float2 fusec_accumulator_pair(int x, int y) {
  return make_float2(__int_as_float(x), __int_as_float(y));
}

template <int BM, int BN, int WM, int WN, int Threads, bool AlongRows> struct FusecStagedEpilogue {
  static constexpr int kRowStride = BN + 8, kColumnStride = BM + 4;
  /// The larger of the two layouts: shared memory does not depend on the
  /// output's layout (KernelConfig::sharedBytes computes the same).
  static constexpr int kSmemBytes = 4 * (BM * kRowStride > BN * kColumnStride ? BM * kRowStride : BN * kColumnStride);
  static constexpr int kMmaM = WM / 16, kMmaN = WN / 8;
  static constexpr int kElements = BM * BN;
  static_assert(kElements % Threads == 0, "the tile's elements spread evenly over the threads");

  static __device__ __forceinline__ int offset(int r, int c) {
    return AlongRows ? c * kColumnStride + r : r * kRowStride + c;
  }

  /// `Value`: the accumulators' type, f32 or s32 (the 8-bit step's), which
  /// the epilogue receives as it is.
  template <typename Value, typename Epilogue>
  static __device__ __forceinline__ void run(const Value (&accumulator)[kMmaM][kMmaN][4], Value *smem, int blockRow,
                                             int blockCol, int warpRow, int warpCol, int m, int n, Epilogue &epilogue) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    // Every warp is done with the pipeline's stages.
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < kMmaN; ++j) {
        const int r = warpRow + i * 16 + g, c = warpCol + j * 8 + 2 * t;
        if constexpr (AlongRows) {
          smem[offset(r, c)] = accumulator[i][j][0];
          smem[offset(r, c + 1)] = accumulator[i][j][1];
          smem[offset(r + 8, c)] = accumulator[i][j][2];
          smem[offset(r + 8, c + 1)] = accumulator[i][j][3];
        } else {
          *reinterpret_cast<float2 *>(smem + offset(r, c)) =
              fusec_accumulator_pair(accumulator[i][j][0], accumulator[i][j][1]);
          *reinterpret_cast<float2 *>(smem + offset(r + 8, c)) =
              fusec_accumulator_pair(accumulator[i][j][2], accumulator[i][j][3]);
        }
      }
    __syncthreads();
#pragma unroll 4
    for (int e = threadIdx.x; e < kElements; e += Threads) {
      const int r = AlongRows ? e % BM : e / BN, c = AlongRows ? e / BM : e % BN;
      const int row = blockRow + r, col = blockCol + c;
      if (row < m && col < n)
        epilogue(row, col, smem[offset(r, c)]);
    }
  }
};

template <bool Transposed, int Vec, typename ElementType = float> struct FusecDenseB {
  using Element = ElementType;
  static constexpr bool kTransposed = Transposed;
  static constexpr int kVec = Vec;
  static constexpr bool kFixedColumn = false;

  const Element *b;
  int ldb;
  int first = 0;

  __device__ __forceinline__ FusecDenseB(const Element *matrix, int leadingDimension)
      : b(matrix), ldb(leadingDimension) {}

  __device__ __forceinline__ void begin(int k, int n) { first = Transposed ? n * ldb + k : k * ldb + n; }

  __device__ __forceinline__ void copy(Element *shared, int k, int n, int k0, int dk, int dn, int kCount,
                                       int nCount) const {
    const int left = Transposed ? kCount - k : nCount - n;
    const bool inside = (Transposed ? n < nCount : k < kCount) && left > 0;
    const unsigned bytes = inside ? unsigned(sizeof(Element)) * (left < Vec ? left : Vec) : 0u;
    const int offset = first + (Transposed ? dn * ldb + k0 + dk : (k0 + dk) * ldb + dn);
    fusec_copy_vector<Vec, Element>(shared, bytes ? b + offset : b, bytes);
  }
};

/// The tensor-core GEMM main loop of both precisions: FusecPipeline's
/// stages hold A as [BM][BK + kPad] and B as [BN][BK + kPad] (N x K) or
/// [BK][BN + 8] (K x N), in the step's elements; the copies, the ragged
/// tails, the split and the staged epilogue are this template's, the
/// fragment loads and mmas of each k-slice the MMA step's (fusec_pipeline.h).
/// FusecGemmTf32 and FusecGemmHalf (fusec_gemm_half.h) name its two steps.
///
/// Tile is a tile description (fusec_pipeline.h, FusecCheckMmaTile): the
/// block tile kBlockM x kBlockN x kBlockK, the warp tile kWarpM x kWarpN,
/// kStages, A's copy width kAVector, B's kBVector (the B operand's kVec)
/// and the operands' Element, each read by its name.
template <class Tile, class BOperand, class Step> struct FusecMmaGemm {
  using Element = typename Step::Element;
  /// B's own element type: A's, or for the 8-bit step s8 beside u8 A.
  using BElement = typename BOperand::Element;
  /// f32, or s32 for the 8-bit step (exact sums; no split-K).
  using Accumulator = typename Step::Accumulator;
  static_assert(FusecCheckMmaTile<Tile>::value, "a complete tile description");
  static constexpr int BM = Tile::kBlockM, BN = Tile::kBlockN, BK = Tile::kBlockK;
  static constexpr int WM = Tile::kWarpM, WN = Tile::kWarpN;
  static constexpr int Stages = Tile::kStages, Vec = Tile::kAVector;
  static_assert(sizeof(typename Tile::Element) == sizeof(Element), "the tile's Element is the step's element type");
  static_assert(sizeof(typename BOperand::Element) == sizeof(Element), "A and B have the step's element type");
  static_assert(BOperand::kVec == Tile::kBVector, "the B operand copies the tile's kBVector elements");
  static_assert(BM % WM == 0, "kWarpM divides kBlockM: the block tile is made of whole warp tiles");
  static_assert(BN % WN == 0, "kWarpN divides kBlockN: the block tile is made of whole warp tiles");
  static_assert(WM % 16 == 0 && WN % 8 == 0, "kWarpM and kWarpN make m16n8 mma tiles");
  static_assert(BK % Step::kK == 0, "kBlockK is made of whole mma k steps");
  static_assert(Stages >= 2, "kStages: the pipeline needs at least two stages");
  static_assert((Vec == 1 || Vec == 2 || Vec == 4 || Vec == 8 || Vec == 16) && Vec * sizeof(Element) <= 16,
                "kAVector: a copy moves 1, 2, 4, 8 or 16 elements, 16 bytes at most");
  static_assert((BOperand::kVec == 1 || BOperand::kVec == 2 || BOperand::kVec == 4 || BOperand::kVec == 8 ||
                 BOperand::kVec == 16) &&
                    BOperand::kVec * sizeof(Element) <= 16,
                "kBVector: a copy moves 1, 2, 4, 8 or 16 elements, 16 bytes at most");
  static constexpr bool BTransposed = BOperand::kTransposed;
  using Operand = BOperand;
  using Pipeline = FusecPipeline<Stages>;

  static constexpr int kBlockM = BM;
  static constexpr int kBlockN = BN;
  static constexpr int kWarpsM = BM / WM;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kMmaM = WM / 16;
  static constexpr int kMmaN = WN / 8;

  // Shared layout per stage, in elements: A as [BM][BK + kPad]; B as
  // [BN][BK + kPad] when N x K, else [BK][BN + 8].
  static constexpr int kAStride = BK + Step::kPad;
  static constexpr int kAStage = BM * kAStride;
  static constexpr int kBStride = BTransposed ? BK + Step::kPad : BN + 8;
  static constexpr int kBStage = (BTransposed ? BN : BK) * kBStride;
  // The pipeline's stages, and after the main loop the staged f32 output
  // tile.
  using StagedEpilogue =
      FusecStagedEpilogue<BM, BN, WM, WN, 32 * (BM / WM) * (BN / WN), FusecOutputAlongRows<BOperand>::value>;
  static constexpr int kPipelineBytes = Stages * (kAStage + kBStage) * int(sizeof(Element));
  static_assert(kPipelineBytes % 16 == 0, "stages are whole 16-byte vectors");
  static constexpr int kSmemBytes =
      kPipelineBytes > StagedEpilogue::kSmemBytes ? kPipelineBytes : StagedEpilogue::kSmemBytes;
  /// The same size in floats, for callers that declare float or float4
  /// arrays.
  static constexpr int kSmemFloats = kSmemBytes / 4;

  template <int Rows, int Cols, int Width> using TileLoads = FusecTileLoads<kThreads, Rows, Cols, Width>;
  using ALoads = TileLoads<BM, BK, Vec>;
  // B's tile rows are n when B is N x K, else k.
  using BLoads = TileLoads<BTransposed ? BN : BK, BTransposed ? BK : BN, BOperand::kVec>;
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
    BElement *const bTiles = reinterpret_cast<BElement *>(aTiles + Stages * kAStage);

    // This thread's first load of each tile, relative to the block's tile
    // and to k = 0; the others are at constant distances from it.
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

    // Issues the copies of k-tile `kTile` into stage `stage`. A vector
    // outside the tensor copies nothing from the tensor's first element;
    // one across its edge copies the part inside.
    auto loadTile = [&](int stage, int kTile) {
      const int k0 = kTile * BK;
#pragma unroll
      for (int i = 0; i < ALoads::kCount; ++i) {
        const int row = ALoads::row(i), column = ALoads::column(i);
        const int left = k - (k0 + aColumn + column);
        const unsigned bytes =
            blockRow + aRow + row < m && left > 0 ? unsigned(sizeof(Element)) * (left < Vec ? left : Vec) : 0u;
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

    // Where this lane's fragment reads start inside a stage, at kk = 0.
    const int aFragment = Step::aFragment(lane, warpRow, kAStride);
    const int bFragment = Step::template bFragment<BTransposed>(lane, warpCol, kBStride);

    Accumulator accumulator[kMmaM][kMmaN][4];
#pragma unroll
    for (int i = 0; i < kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < kMmaN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          accumulator[i][j][r] = Accumulator(0);

    // Multiplies the stage's k-tile, one mma k step at a time.
    auto multiplyTile = [&](int stage, int) {
      const Element *aStage = aTiles + stage * kAStage;
      const BElement *bStage = bTiles + stage * kBStage;
#pragma unroll
      for (int kk = 0; kk < BK; kk += Step::kK)
        Step::template multiply<BTransposed, kAStride, kBStride>(accumulator, aStage, aFragment, bStage, bFragment, kk);
    };

    // This block's k-tiles: all of them, or its slice's share.
    // (The 8-bit step's s32 sums are never split: kSplitK.)
    int kBegin = 0, kEnd = (k + BK - 1) / BK;
    if constexpr (Step::kSplitK)
      if (splitK.slices > 1)
        fusec_split_k_range(kEnd, splitK, kBegin, kEnd);
    Pipeline::run(kBegin, kEnd - kBegin, loadTile, multiplyTile);
    // Split: only the tile's last block goes on, with the whole sum.
    if constexpr (Step::kSplitK)
      if (splitK.slices > 1 && !fusec_split_k_reduce<kThreads>(accumulator, splitK, static_cast<unsigned *>(smem)))
        return;

    StagedEpilogue::run(accumulator, static_cast<Accumulator *>(smem), blockRow, blockCol, warpRow, warpCol, m, n,
                        epilogue);
  }
};

/// The main loop for f32 tensors: mma.m16n8k8 tf32, Tile::kPasses = 1
/// (tf32) or 3 (3xTF32).
template <class Tile, class BOperand> using FusecGemmTf32 = FusecMmaGemm<Tile, BOperand, FusecTf32Step<Tile::kPasses>>;
