//===- OccupancyTest.cpp - Blocks per SM and the wave model ---------------===//
//
// What limits the blocks an SM holds, and the share of the GPU a grid of a
// config keeps busy: the arithmetic both the tile choice and the cost model
// use (config/Occupancy.h).
//
//===----------------------------------------------------------------------===//
#include "config/Occupancy.h"

#include "ir/KernelConfig.h"

#include <catch2/catch.hpp>

using namespace fusec;

// Occupancy: what limits the blocks an SM holds (sm_80/sm_90: 2048
// threads, 32 blocks, 64K registers allocated per warp in units of 256).
TEST_CASE("blocks per SM count registers as well as threads and shared memory", "[occupancy]") {
  const int64_t shared = int64_t{227} * 1024;
  // 256 threads: 8 by threads alone; 64 registers leave 4, 138 leave 1
  // (138 rounds to 144 per thread, 4608 per warp, 14 warps).
  CHECK(config::blocksPerSm(256, 32, 0, shared) == 8);
  CHECK(config::blocksPerSm(256, 64, 0, shared) == 4);
  CHECK(config::blocksPerSm(256, 128, 0, shared) == 2);
  CHECK(config::blocksPerSm(256, 138, 0, shared) == 1);
  // 128 threads, 96 registers: 5 (21 warps of 3072 registers, 4 each).
  CHECK(config::blocksPerSm(128, 96, 0, shared) == 5);
  // Shared memory and the 32-block cap.
  CHECK(config::blocksPerSm(128, 32, 100 * 1024, shared) == 2);
  CHECK(config::blocksPerSm(32, 16, 0, shared) == 32);
}

TEST_CASE("the wave model gives a 128x128 3xTF32 tile one block per SM, by its registers", "[occupancy]") {
  fuse::KernelConfig config;
  config.kind = fuse::KernelTemplate::TensorCoreGemm;
  config.blockM = 128, config.blockN = 128, config.blockK = 16;
  config.warpM = 64, config.warpN = 32, config.stages = 3, config.passes = 3;
  config.aVector = config.bVector = 4;
  REQUIRE(config.threads() == 256);
  // 4 x 4 m16n8 accumulators (64 floats), 3xTF32 fragments (48), addresses.
  CHECK(config.estimatedRegisters() >= 128);
  const int64_t sharedPerSm = int64_t{227} * 1024;
  // 68 KB of shared memory (the pipeline's 55.5 KB, then the staged output
  // tile) alone would let 3 blocks share an SM, and its threads 8; its
  // registers leave room for one: 132 blocks are one full wave.
  REQUIRE(config.sharedBytes(false) == 128 * 136 * 4);
  REQUIRE(sharedPerSm / config.sharedBytes(false) >= 3);
  CHECK(config::blocksPerSm(config.threads(), config.estimatedRegisters(), config.sharedBytes(false), sharedPerSm) ==
        1);
  CHECK(config::waveUtilization(config, 132, 132, sharedPerSm) == Approx(1.0));
  // The 64x64 tile (4 warps of 32x32): 2 x 4 accumulators, fewer
  // registers, more blocks per SM.
  fuse::KernelConfig small = config;
  small.blockM = small.blockN = 64, small.warpM = small.warpN = 32, small.stages = 4;
  CHECK(small.estimatedRegisters() < 128);
  CHECK(config::blocksPerSm(small.threads(), small.estimatedRegisters(), small.sharedBytes(false), sharedPerSm) >= 3);
}
