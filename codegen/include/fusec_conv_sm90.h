// fusec_conv_sm90.h - the Hopper convolution: implicit GEMM over NHWC with
// one TMA box per filter tap.
//
// A channels-last group-1 conv (f16 or bf16, NHWC input, OHWI weights) as
// the product of output pixels (rows) by filters (columns) over the
// reduction (filter tap, channel), on FusecSm90Mainloop (fusec_gemm_sm90.h):
// the same producer warpgroup, mbarrier ring and consumer wgmmas as the
// Hopper GEMM; only the copies differ. A block computes kTileHeight x
// kTileWidth output pixels of one image (at most kBlockM of them, rows of
// the tile in that order) by kBlockN filters. Its k-tiles run over the
// taps (r, s) of the window and, within a tap, blocks of 64 channels; each
// is two TMA copies:
//
//  * A: a 4-D box of the input {64 channels, kTileWidth x kStrideW
//    columns, kTileHeight x kStrideH rows, 1 image} at (c, ow0 * kStrideW -
//    kPadLeft + s * kDilationW, oh0 * kStrideH - kPadTop + r * kDilationH,
//    image), the map's traversal strides {1, kStrideW, kStrideH, 1}. It
//    lands as kTileWidth * kTileHeight rows of 128 bytes, pixel (y, x) of
//    the tile in row y * kTileWidth + x: the K-major, 128-byte-swizzled A
//    tile wgmma reads. Padding needs no code: coordinates before the image
//    or past it read zeros. Rows past the tile's pixels (when it has fewer
//    than kBlockM) keep what the stage held; their accumulators are never
//    passed on.
//  * B: a 3-D box of the weights viewed {C, R * S, Co}: {64, 1, kBlockN} at
//    (c, r * S + s, first filter), kBlockN rows of 64 channels: the same
//    K-major B tile as the GEMM's. Channels past C read zeros in A and B.
//
// With 8, 16 or 24 channels (kNarrow), where 64-channel k-tiles would be
// mostly zeros, the reduction is cut into chunks of 8 channels instead,
// (tap, 8 channels) in the weights' order, and a k-tile is 8 chunks: 8
// boxes of the input 16 bytes wide, without swizzle, each landing as one
// column of the unswizzled K-major layout's core matrices (kBlockM rows of
// 16 bytes, the columns kBlockM x 16 bytes apart: FusecSm90Mainloop's
// NarrowA), and one 2-D box of the weights viewed as Co rows of
// KH * KW * C, whose 64 columns are the same 8 chunks. Chunks past the
// window read zeros.
//
// So the im2col matrix is never formed: each input pixel is fetched once
// per tap by the TMA unit into shared memory (R * S times per block, from
// L2 after the first), and the tensor cores see a plain GEMM.
//
// The epilogue is called as epilogue(image, oh, ow, co, value) for every
// output pixel of the tile inside the image and every filter below
// `filters`. Launch: kThreads threads; grid.x = kTilesPerImage x images
// (blockIdx.x = image * kTilesPerImage + tile, the tiles row-major over the
// output), grid.y = ceil(filters / kBlockN); kSmemBytes of dynamic shared
// memory.
#pragma once

#include "fusec_gemm_sm90.h"

/// What the Hopper conv reads of its tile description beyond the GEMM's.
template <class Tile> struct FusecCheckSm90ConvTile {
  static_assert(FusecTileHas_kStrideH<Tile>::value && FusecTileHas_kStrideW<Tile>::value,
                "the Hopper conv description has no kStrideH / kStrideW");
  static_assert(FusecTileHas_kPadTop<Tile>::value && FusecTileHas_kPadLeft<Tile>::value,
                "the Hopper conv description has no kPadTop / kPadLeft");
  static_assert(FusecTileHas_kDilationH<Tile>::value && FusecTileHas_kDilationW<Tile>::value,
                "the Hopper conv description has no kDilationH / kDilationW");
  static_assert(FusecTileHas_kTapsH<Tile>::value && FusecTileHas_kTapsW<Tile>::value,
                "the Hopper conv description has no kTapsH / kTapsW (the window)");
  static_assert(FusecTileHas_kChannels<Tile>::value, "the Hopper conv description has no kChannels");
  static_assert(FusecTileHas_kOutHeight<Tile>::value && FusecTileHas_kOutWidth<Tile>::value,
                "the Hopper conv description has no kOutHeight / kOutWidth");
  static_assert(FusecTileHas_kTileHeight<Tile>::value && FusecTileHas_kTileWidth<Tile>::value,
                "the Hopper conv description has no kTileHeight / kTileWidth");
  static constexpr bool value = true;
};

template <class Tile> struct FusecConvSm90 {
  static_assert(FusecCheckSm90ConvTile<Tile>::value, "a complete Hopper conv description");
  /// Fewer than 32 channels: a k-tile is 8 chunks of 8 channels
  /// (wgmmaConvTiling's `narrow`, ir/KernelConfig.cpp, makes the same cut).
  static constexpr bool kNarrow = Tile::kChannels < 32;
  static_assert(!kNarrow || Tile::kChannels % 8 == 0, "narrow k-tiles: whole 16-byte chunks of channels");
  static constexpr int kChunks = Tile::kChannels / 8; // a tap's chunks (narrow)
  using Mainloop = FusecSm90Mainloop<Tile, kNarrow>;
  static_assert(!Mainloop::BNMajor, "kBNMajor: the weights are K-major (OHWI)");
  static constexpr int kBlockM = Mainloop::kBlockM, kBlockN = Mainloop::kBlockN, kBlockK = Mainloop::kBlockK;
  static constexpr int kThreads = Mainloop::kThreads, kSmemBytes = Mainloop::kSmemBytes;

  static constexpr int kTileWidth = Tile::kTileWidth, kTileHeight = Tile::kTileHeight;
  static constexpr int kPixels = kTileWidth * kTileHeight;
  static_assert(kTileWidth >= 1 && kTileHeight >= 1 && kPixels <= kBlockM,
                "kTileHeight x kTileWidth: at most kBlockM output pixels a block");
  static_assert(kTileWidth * Tile::kStrideW <= 256 && kTileHeight * Tile::kStrideH <= 256,
                "a TMA box spans at most 256 elements a dimension");
  static_assert(Tile::kStrideW >= 1 && Tile::kStrideW <= 8 && Tile::kStrideH >= 1 && Tile::kStrideH <= 8,
                "TMA's traversal strides are 1 to 8");
  static constexpr int kTilesWide = (Tile::kOutWidth + kTileWidth - 1) / kTileWidth;
  static constexpr int kTilesPerImage = kTilesWide * ((Tile::kOutHeight + kTileHeight - 1) / kTileHeight);
  static constexpr int kTaps = Tile::kTapsH * Tile::kTapsW;
  static constexpr int kChannelBlocks = (Tile::kChannels + kBlockK - 1) / kBlockK;
  static constexpr int kKTiles = kNarrow ? (kTaps * kChunks + 7) / 8 : kTaps * kChannelBlocks;
  /// What a k-tile's boxes bring: the tile's pixels and the filters, 128
  /// bytes each (narrow: 8 boxes of 16 bytes a pixel).
  static constexpr unsigned kTileBytes = unsigned(kPixels + kBlockN) * kBlockK * 2;

  template <class Epilogue>
  static __device__ __forceinline__ void run(const FusecTensorMap *image, const FusecTensorMap *weights, int filters,
                                             unsigned block, int blockCol, Epilogue &epilogue) {
    const unsigned n = block / kTilesPerImage, tile = block - n * kTilesPerImage;
    const unsigned tileRow = tile / kTilesWide;
    const int oh0 = int(tileRow) * kTileHeight, ow0 = int(tile - tileRow * kTilesWide) * kTileWidth;
    const int ih0 = oh0 * Tile::kStrideH - Tile::kPadTop, iw0 = ow0 * Tile::kStrideW - Tile::kPadLeft;
    auto produce = [&](unsigned char *a, unsigned char *b, unsigned long long *full, int kt) {
      if constexpr (kNarrow) {
        // Chunks 8 kt .. 8 kt + 7, one 16-byte box each, kBlockM rows
        // apart; chunks past the window read an image that does not exist
        // (n = -1: zeros, their bytes still counted). B: the weights as Co
        // rows of KH * KW * C, K-major, 64 of them a k-tile.
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int chunk = kt * 8 + j, tap = chunk / kChunks, c = (chunk - tap * kChunks) * 8;
          const int r = tap / Tile::kTapsW, s = tap - r * Tile::kTapsW;
          if (tap < kTaps)
            fusec_tma_load_4d(a + j * kBlockM * 16, image, full, c, iw0 + s * Tile::kDilationW,
                              ih0 + r * Tile::kDilationH, int(n));
          else
            fusec_tma_load_4d(a + j * kBlockM * 16, image, full, 0, 0, 0, -1);
        }
        fusec_tma_load_2d(b, weights, full, kt * kBlockK, blockCol);
      } else {
        const int tap = kt / kChannelBlocks, c = (kt - tap * kChannelBlocks) * kBlockK;
        const int r = tap / Tile::kTapsW, s = tap - r * Tile::kTapsW;
        fusec_tma_load_4d(a, image, full, c, iw0 + s * Tile::kDilationW, ih0 + r * Tile::kDilationH, int(n));
        fusec_tma_load_3d(b, weights, full, c, tap, blockCol);
      }
    };
    auto inside = [&](int row, int col, float value) {
      const int y = row / kTileWidth, oh = oh0 + y, ow = ow0 + (row - y * kTileWidth), co = blockCol + col;
      if (row < kPixels && oh < Tile::kOutHeight && ow < Tile::kOutWidth && co < filters)
        epilogue(int(n), oh, ow, co, value);
    };
    Mainloop::run(kKTiles, kTileBytes, produce, inside);
  }
};
