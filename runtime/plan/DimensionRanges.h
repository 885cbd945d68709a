//===- DimensionRanges.h - Named dimensions a plan runs over a range -*- C++ -*-===//
//
// `fusec --dim seq=1:128:512` compiles one plan that runs every sequence
// length from 1 to 512. Its manifest lists the range (`"ranges"`, format
// 7.1), and its shapes write the ranged dimension as a negative code:
// kBatchDim (-1) is the batch, rangeDimCode(i) (-2 - i) the i-th range.
//
// The memory planner laid the arena out for every range's maximum. A
// buffer's bytes grow with each dimension, so a layout whose buffers fit and
// do not overlap at the maximum fits and does not overlap at every smaller
// size: verifying the plan specialized at the bounds covers the range, and the
// runtime verifies each size it specializes the plan for before running it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_DIMENSIONRANGES_H
#define FUSEC_RUNTIME_PLAN_DIMENSIONRANGES_H

#include "runtime/Tensor.h"
#include "runtime/plan/PlanFormat.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime {

struct PlanManifest;

/// A named dimension the plan runs at any size in [min, max]; `opt` is the
/// size the compiler chose tiles for (TensorRT's optimization profile).
struct DimensionRange {
  std::string name;
  int64_t min = 1;
  int64_t opt = 1;
  int64_t max = 1;

  bool contains(int64_t size) const { return size >= min && size <= max; }
  friend bool operator==(const DimensionRange &a, const DimensionRange &b) {
    return a.name == b.name && a.min == b.min && a.opt == b.opt && a.max == b.max;
  }
};

/// "seq=1:128:512, len=8:8:64" for messages and `fuserun --info`.
std::string formatRanges(const std::vector<DimensionRange> &ranges);

/// `shape` with range codes written by name: "[batch, seq, 32]".
std::string formatShape(const Shape &shape, const std::vector<DimensionRange> &ranges);

/// Checks the ranges themselves: names non-empty and unique, not among the
/// fixed `dims`, 1 <= min <= opt <= max. Throws Error naming `sourceName`.
void verifyRanges(const std::vector<DimensionRange> &ranges, const std::map<std::string, int64_t> &dims,
                  const std::string &sourceName);

/// `manifest` with each range's dimension replaced by `sizes[name]`: the
/// plan for those sizes, with no ranges and the sizes added to `dims`. Every
/// range needs a size inside it (Error otherwise).
PlanManifest specializeManifest(const PlanManifest &manifest, const std::map<std::string, int64_t> &sizes);

/// The sizes of each range at its minimum (or maximum).
std::map<std::string, int64_t> rangeMinimums(const std::vector<DimensionRange> &ranges);
std::map<std::string, int64_t> rangeMaximums(const std::vector<DimensionRange> &ranges);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_DIMENSIONRANGES_H
