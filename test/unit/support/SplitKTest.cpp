//===- SplitKTest.cpp - The k-slices a split-K launch runs with -----------===//
#include "support/SplitK.h"

#include <catch2/catch.hpp>

using fusec::splitKSlices;

TEST_CASE("split-K splits only grids that leave half the SMs idle", "[support]") {
  // 66 tiles on 132 SMs give half of them a block: 2 slices fit; 67 do not.
  CHECK(splitKSlices(66, 64, 16, 132) == 2);
  CHECK(splitKSlices(67, 64, 16, 132) == 1);
  CHECK(splitKSlices(200, 288, 16, 132) == 1);
}

TEST_CASE("split-K keeps the grid within one block per SM and 4 k-tiles per slice", "[support]") {
  // ResNet-50's 3x3 conv on 7x7 maps: 8 tiles, 288 k-tiles: 16 slices (the
  // kernel's most) at batch 1, then fewer as the tiles grow with the batch.
  CHECK(splitKSlices(8, 288, 16, 132) == 16);
  CHECK(splitKSlices(16, 288, 16, 132) == 8);
  CHECK(splitKSlices(56, 288, 16, 132) == 2);
  // The same kernel on a GPU of 108 SMs splits less.
  CHECK(splitKSlices(16, 288, 16, 108) == 6);
  // Short reductions: 20 k-tiles allow 5 slices of 4; 7 allow no split.
  CHECK(splitKSlices(1, 20, 16, 132) == 5);
  CHECK(splitKSlices(1, 7, 16, 132) == 1);
}

TEST_CASE("split-K never exceeds the kernel's maximum, and a kernel that cannot split never does", "[support]") {
  CHECK(splitKSlices(1, 1000, 4, 132) == 4);
  CHECK(splitKSlices(1, 1000, 1, 132) == 1);
  CHECK(splitKSlices(0, 1000, 16, 132) == 1);
  CHECK(splitKSlices(1, 1000, 16, 0) == 1); // no SMs known
}
