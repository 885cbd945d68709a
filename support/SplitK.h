//===- SplitK.h - How many k-slices a split-K launch runs with --*- C++ -*-===//
//
// A split-K kernel (codegen/include/fusec_split_k.h) reads its slice count
// from gridDim.z, so one compiled kernel serves every batch: the runtime
// picks the slices per launch, from the output tiles at the run's batch and
// the device's SM count, and the compiler applies the same rule to decide
// which kernels are worth compiling split-capable and to price them. One
// rule in one place keeps the two in step.
//
// Plain C++ with no dependencies: part of fusec_support.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_SPLITK_H
#define FUSEC_RUNTIME_SUPPORT_SPLITK_H

#include <algorithm>
#include <cstdint>

namespace fusec {

/// A slice multiplies at least this many k-tiles: fewer would not fill the
/// main loop's cp.async pipeline (3-4 stages).
inline constexpr int64_t kMinKTilesPerSlice = 4;

/// The k-slices a launch of `tiles` output tiles with `kTiles` k-tiles
/// runs with on a GPU of `smCount` SMs, at most `maxSlices`:
///  * 1 when the tiles already give at least half the SMs a block (a split
///    would only add partial-sum traffic);
///  * else the most slices that keep the grid within one block per SM and
///    give every slice at least kMinKTilesPerSlice k-tiles, or 1 if that is
///    fewer than 2.
inline int64_t splitKSlices(int64_t tiles, int64_t kTiles, int64_t maxSlices, int64_t smCount) {
  if (maxSlices < 2 || tiles <= 0 || 2 * tiles > smCount)
    return 1;
  const int64_t slices = std::min({maxSlices, smCount / tiles, kTiles / kMinKTilesPerSlice});
  return slices >= 2 ? slices : 1;
}

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_SPLITK_H
