//===- BatchLinearTest.cpp - Quantities linear in the batch size -----------===//
#include "support/BatchLinear.h"

#include <catch2/catch.hpp>

#include <limits>

using fusec::BatchLinear;
using fusec::GridDim;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
}

TEST_CASE("a batch-linear quantity is perBatch * batch + fixed") {
  CHECK(BatchLinear{64, 16}.at(0) == 16);
  CHECK(BatchLinear{64, 16}.at(3) == 208);
  CHECK(BatchLinear{0, 16}.isFixed());
  CHECK_FALSE(BatchLinear{1, 0}.isFixed());
  CHECK(BatchLinear{2, 3} == BatchLinear{2, 3});
  CHECK(BatchLinear{2, 3} != BatchLinear{3, 2});
}

TEST_CASE("a batch-linear quantity saturates instead of overflowing") {
  CHECK(BatchLinear{int64_t(1) << 40, 0}.at(int64_t(1) << 30) == kMax);
  CHECK(BatchLinear{1, kMax}.at(1) == kMax);
  CHECK(BatchLinear{1, kMax - 1}.at(1) == kMax);
}

TEST_CASE("a grid dimension is ceil(work / divisor), at least 1") {
  CHECK(GridDim{{4, 0}, 64}.at(1) == 1);
  CHECK(GridDim{{4, 0}, 64}.at(16) == 1);
  CHECK(GridDim{{4, 0}, 64}.at(17) == 2);
  CHECK(GridDim{{256, 16}, 16}.at(3) == 49);
  CHECK(GridDim{{0, 0}, 1}.at(5) == 1);
  // Near INT64_MAX the rounding must not overflow either.
  CHECK(GridDim{{0, kMax}, 2}.at(1) == kMax / 2 + 1);
  CHECK(GridDim{{int64_t(1) << 52, 0}, 1}.at(int64_t(1) << 40) == kMax);
  CHECK(GridDim{{1, 2}, 3} == GridDim{{1, 2}, 3});
}
