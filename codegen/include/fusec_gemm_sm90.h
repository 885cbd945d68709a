// fusec_gemm_sm90.h - the Hopper GEMM: TMA, an mbarrier pipeline and wgmma.
//
// C = A B for f16 or bf16 A (M x K, K-major) and B stored N x K (K-major:
// a Linear's weight as stored) or, with BNMajor, K x N (N-major: a MatMul's
// right operand), f32 accumulation, the caller's epilogue on every element.
// One block computes a BM x BN tile, BM = 64 x ConsumerGroups, BN = BlockN.
// FusecGemmSm90<Tile> reads them from its tile description by name
// (fusec_pipeline.h's names; FusecCheckSm90Tile below): kBlockM = BM (64
// rows per consumer warpgroup), kBlockN = BlockN, kBlockK (64), the warp
// tile kWarpM x kWarpN (a consumer warpgroup's 64 x BlockN), kStages,
// Element (fusec_f16 or fusec_bf16) and B's layout kBNMajor:
//
//  * Warp specialization: warpgroup 0 is the producer, the others the
//    consumers (each 64 rows of the tile). The producer gives back registers
//    (setmaxnreg.dec to 40) and one of its threads issues, per k-tile of 64,
//    one TMA load of A's BM x 64 box and one of B's BN x 64 box (N-major:
//    BN / 64 boxes of 64 N by 64 K, 8 KiB apart) into a stage of shared
//    memory; the consumers take registers (setmaxnreg.inc
//    to 232) for their BN/2 accumulators.
//  * Stages form a ring guarded by two mbarriers each: `full` (one arrival,
//    the producer's expect_tx, plus the TMA's bytes) and `empty` (one
//    arrival per consumer thread, each after its own wait_group: no thread
//    releases a stage another may still read). The producer waits for `empty` of the
//    round before (parity ((kt / Stages) & 1) ^ 1: the first round passes),
//    consumers for `full` of this round.
//  * Each k-tile is four wgmma m64nBNk16 per consumer warpgroup, operands
//    read straight from the 128-byte-swizzled stage (no ldmatrix, no
//    registers for A or B); one commit group per k-tile, and wait_group 1
//    keeps one k-tile in flight while the next is issued, so the stage of
//    k-tile kt-1 is released (its `empty` arrival) once kt's wgmmas are
//    queued.
//  * Ragged M, N and K: TMA fills elements outside the tensors with zeros,
//    so a K tail adds nothing and rows or columns past M or N are computed
//    on zeros and never passed to the epilogue.
//
// The epilogue is called as epilogue(row, col, value) with the f32
// accumulator for every element of C in [0, M) x [0, N), by the consumer
// thread holding it (fusec_sm90.h's accumulator layout).
//
// Launch: kThreads threads, grid ceil(N / BN) x ceil(M / BM) (blockIdx.x
// along N, so neighbouring blocks share A's rows in L2), kSmemBytes of
// dynamic shared memory (above 48 KiB: the function attribute
// MAX_DYNAMIC_SHARED_SIZE_BYTES must allow it). The tensor maps: A with
// global dims {K, M}, box {64, BM}; B {K, N}, box {64, BN} (N-major: dims
// {N, K}, box {64, 64}); rows 16-byte multiples (K, or N for an N-major B,
// a multiple of 8); CU_TENSOR_MAP_SWIZZLE_128B, zero fill.
#pragma once

#include "fusec_sm90.h"

/// What the Hopper GEMM reads of its tile description, each member checked
/// by name.
template <class Tile> struct FusecCheckSm90Tile {
  static_assert(FusecTileHas_kBlockM<Tile>::value, "the Hopper tile description has no kBlockM");
  static_assert(FusecTileHas_kBlockN<Tile>::value, "the Hopper tile description has no kBlockN");
  static_assert(FusecTileHas_kBlockK<Tile>::value, "the Hopper tile description has no kBlockK");
  static_assert(FusecTileHas_kWarpM<Tile>::value, "the Hopper tile description has no kWarpM");
  static_assert(FusecTileHas_kWarpN<Tile>::value, "the Hopper tile description has no kWarpN");
  static_assert(FusecTileHas_kStages<Tile>::value, "the Hopper tile description has no kStages");
  static_assert(FusecTileHas_kBNMajor<Tile>::value, "the Hopper tile description has no kBNMajor");
  static_assert(FusecTileHasElement<Tile>::value, "the Hopper tile description has no Element");
  static constexpr bool value = true;
};

/// A Hopper tile description from positional arguments, for hand-written
/// kernels (the emulation and NVRTC tests). Generated kernels never use it:
/// they define their description by name.
template <int BlockN, int Stages, typename ElementType, int ConsumerGroups = 2, bool BNMajor = false>
struct FusecSm90TileOf {
  static constexpr int kBlockM = 64 * ConsumerGroups, kBlockN = BlockN, kBlockK = 64;
  static constexpr int kWarpM = 64, kWarpN = BlockN, kStages = Stages;
  static constexpr bool kBNMajor = BNMajor;
  using Element = ElementType;
};

/// The warp-specialized pipeline the Hopper GEMM and conv share: the
/// producer's TMA copies into a ring of stages, the consumers' wgmmas on
/// them, and the accumulator handed to an epilogue. What a k-tile's copies
/// are is the caller's (`produce`), so a GEMM's 2-D boxes and a conv's
/// image boxes (one filter tap, one block of channels) drive one loop.
/// NarrowA: A's tile is the K-major layout without swizzle, 8 columns of
/// core matrices (one per 8 k, kBlockM rows of 16 bytes each, the columns
/// kBlockM x 16 bytes apart), as 16-byte-wide TMA boxes write it
/// (fusec_conv_sm90.h's 8-channel taps); otherwise the 128-byte-swizzled
/// K-major tile of 64-column boxes.
template <class Tile, bool NarrowA = false> struct FusecSm90Mainloop {
  static_assert(FusecCheckSm90Tile<Tile>::value, "a complete Hopper tile description");
  static constexpr int BlockN = Tile::kBlockN, Stages = Tile::kStages, ConsumerGroups = Tile::kBlockM / 64;
  static constexpr bool BNMajor = Tile::kBNMajor;
  static constexpr bool Bf16 = FusecSameType<typename Tile::Element, fusec_bf16>::value;
  static_assert(Bf16 || FusecSameType<typename Tile::Element, fusec_f16>::value,
                "Element: wgmma multiplies fusec_f16 or fusec_bf16");
  static_assert(BlockN % 8 == 0 && BlockN >= 64 && BlockN <= 256,
                "kBlockN: wgmma tiles have N a multiple of 8 up to 256");
  static_assert(!BNMajor || BlockN % 64 == 0, "kBNMajor: an N-major B tile is made of 64-wide N blocks of kBlockN");
  static_assert(Tile::kBlockM == 64 || Tile::kBlockM == 128, "kBlockM: a tile has 64 or 128 rows");
  static_assert(Tile::kBlockK == 64, "kBlockK: one 128-byte swizzle row of 16-bit elements, 64");
  static_assert(Tile::kWarpM == 64 && Tile::kWarpN == BlockN,
                "kWarpM x kWarpN: a consumer warpgroup's 64 rows by kBlockN");
  static_assert(Stages >= 2, "kStages: the pipeline needs at least two stages");

  static constexpr int kBlockM = 64 * ConsumerGroups;
  static constexpr int kBlockN = BlockN;
  static constexpr int kBlockK = 64; // one 128-byte swizzle row of 16-bit elements
  static constexpr int kThreads = 128 * (ConsumerGroups + 1);
  static constexpr int kTileABytes = kBlockM * kBlockK * 2;
  static constexpr int kTileBBytes = kBlockN * kBlockK * 2;
  static constexpr int kStageBytes = kTileABytes + kTileBBytes;
  static_assert(kTileABytes % 1024 == 0 && kTileBBytes % 1024 == 0, "every tile starts 1024-byte aligned");
  // The stages, then the 2 x Stages mbarriers.
  static constexpr int kSmemBytes = Stages * kStageBytes + 2 * Stages * 8;
  static_assert(kSmemBytes <= 227 * 1024, "a Hopper block has at most 227 KiB of shared memory");
  static constexpr int kAccumulators = BlockN / 2;
  /// An N-major B's 64-wide N block: 64 K rows of 128 bytes.
  static constexpr int kNBlockBytes = 64 * kBlockK * 2;

  /// Runs `kTiles` k-tiles. For each, one producer thread waits for the
  /// stage to be free, expects `tileBytes` on its `full` barrier and calls
  /// produce(a, b, full, kt): TMA copies of the k-tile's A (kBlockM rows of
  /// 64) to `a` and B to `b`. Every accumulator element then goes to
  /// epilogue(row, col, value), row and col within the block's tile.
  template <class Produce, class Epilogue>
  static __device__ __forceinline__ void run(int kTiles, unsigned tileBytes, Produce &produce, Epilogue &epilogue) {
    unsigned char *smem = fusec_dynamic_shared();
    unsigned long long *full = reinterpret_cast<unsigned long long *>(smem + Stages * kStageBytes);
    unsigned long long *empty = full + Stages;
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
      for (int s = 0; s < Stages; ++s) {
        fusec_mbarrier_init(&full[s], 1);
        fusec_mbarrier_init(&empty[s], 128 * ConsumerGroups);
      }
      fusec_mbarrier_init_fence();
    }
    __syncthreads();

    if (warpgroup == 0) {
      fusec_setmaxnreg_dec<40>();
      if (threadIdx.x == 0)
        for (int kt = 0; kt < kTiles; ++kt) {
          const int s = kt % Stages;
          fusec_mbarrier_wait(&empty[s], ((kt / Stages) & 1) ^ 1);
          unsigned char *stage = smem + s * kStageBytes;
          fusec_mbarrier_arrive_expect_tx(&full[s], tileBytes);
          produce(stage, stage + kTileABytes, &full[s], kt);
        }
      return;
    }

    fusec_setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    float acc[kAccumulators];
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i)
      acc[i] = 0.0f;
    for (int kt = 0; kt < kTiles; ++kt) {
      const int s = kt % Stages;
      fusec_mbarrier_wait(&full[s], (kt / Stages) & 1);
      unsigned char *stage = smem + s * kStageBytes;
      // A consumer's 64 rows: 8 KiB on in the swizzled tile, 64 rows of 16
      // bytes on in each core-matrix column of the narrow one.
      const unsigned long long descA =
          NarrowA ? fusec_wgmma_descriptor_interleaved(fusec_sm90_shared_address(stage + consumer * 64 * 16),
                                                       kBlockM * 16, 128)
                  : fusec_wgmma_descriptor(fusec_sm90_shared_address(stage + consumer * 64 * kBlockK * 2));
      // A k16 step: 32 bytes along a swizzled row, two core-matrix columns
      // of the narrow tile; the address field counts 16 bytes.
      constexpr unsigned long long kStepA = NarrowA ? 2 * kBlockM * 16 / 16 : 32 / 16;
      const unsigned bAddress = fusec_sm90_shared_address(stage + kTileABytes);
      const unsigned long long descB =
          BNMajor ? fusec_wgmma_descriptor_mn(bAddress, kNBlockBytes) : fusec_wgmma_descriptor(bAddress);
      // A k16 step: 32 bytes along a K-major row, 16 rows (2048 bytes) of an
      // N-major tile; the address field counts 16 bytes.
      constexpr unsigned long long kStepB = BNMajor ? 2048 / 16 : 32 / 16;
      fusec_wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockK / 16; ++kk)
        fusec_wgmma<BlockN, Bf16, BNMajor>(acc, descA + kStepA * kk, descB + kStepB * kk, 1);
      fusec_wgmma_commit();
      // k-tile kt-1's wgmmas are done once at most kt's are in flight: its
      // stage goes back to the producer.
      fusec_wgmma_wait<1>();
      if (kt > 0)
        fusec_mbarrier_arrive(&empty[(kt - 1) % Stages]);
    }
    fusec_wgmma_wait<0>();
    fusec_wgmma_fence_operands(acc);

    const int thread = threadIdx.x % 128, warp = thread / 32, lane = thread % 32;
    const int rowBase = consumer * 64 + 16 * warp + lane / 4;
    const int colBase = 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i)
      epilogue(rowBase + 8 * ((i / 2) % 2), colBase + 8 * (i / 4) + i % 2, acc[i]);
  }
};

template <class Tile> struct FusecGemmSm90 {
  using Mainloop = FusecSm90Mainloop<Tile>;
  static constexpr int kBlockM = Mainloop::kBlockM, kBlockN = Mainloop::kBlockN, kBlockK = Mainloop::kBlockK;
  static constexpr int kThreads = Mainloop::kThreads, kSmemBytes = Mainloop::kSmemBytes;

  template <class Epilogue>
  static __device__ __forceinline__ void run(const FusecTensorMap *mapA, const FusecTensorMap *mapB, int m, int n,
                                             int k, int blockRow, int blockCol, Epilogue &epilogue) {
    auto produce = [&](unsigned char *a, unsigned char *b, unsigned long long *full, int kt) {
      fusec_tma_load_2d(a, mapA, full, kt * kBlockK, blockRow);
      if constexpr (Mainloop::BNMajor) {
#pragma unroll
        for (int j = 0; j < kBlockN / 64; ++j)
          fusec_tma_load_2d(b + j * Mainloop::kNBlockBytes, mapB, full, blockCol + 64 * j, kt * kBlockK);
      } else {
        fusec_tma_load_2d(b, mapB, full, kt * kBlockK, blockCol);
      }
    };
    auto inside = [&](int row, int col, float value) {
      row += blockRow;
      col += blockCol;
      if (row < m && col < n)
        epilogue(row, col, value);
    };
    Mainloop::run((k + kBlockK - 1) / kBlockK, Mainloop::kStageBytes, produce, inside);
  }
};
