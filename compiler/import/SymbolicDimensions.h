//===- SymbolicDimensions.h - Named dimensions of a model's inputs -*- C++ -*-===//
//
// Both importers meet named dimensions in a model's input shapes (ONNX
// dim_params, strings in fusec JSON). A plan has one dynamic dimension, the
// batch, so a model with more (a transformer exported with dynamic batch and
// sequence axes) compiles once sizes are given for the others: `fusec --dim
// seq=128` (ONNX Runtime's "free dimension override"). This class applies
// those sizes, finds the batch symbol and words the errors the same way for
// both formats.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_SYMBOLICDIMENSIONS_H
#define FUSEC_COMPILER_IMPORT_SYMBOLICDIMENSIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fusec::import {

/// What a named dimension is given: a static size (min == max), or a range
/// the plan runs over (fusec --dim seq=1:128:512, min:opt:max): one plan for
/// every size in it, its tiles chosen for `opt`.
struct DimensionSize {
  int64_t min = 1;
  int64_t opt = 1;
  int64_t max = 1;

  DimensionSize() = default;
  /// A static size.
  DimensionSize(int64_t size) : min(size), opt(size), max(size) {} // NOLINT: sizes read as ints
  static DimensionSize range(int64_t min, int64_t opt, int64_t max) {
    DimensionSize size;
    size.min = min;
    size.opt = opt;
    size.max = max;
    return size;
  }
  bool isRange() const { return min != max; }
  /// "128" or "1:128:512".
  std::string str() const;
  friend bool operator==(const DimensionSize &a, const DimensionSize &b) {
    return a.min == b.min && a.opt == b.opt && a.max == b.max;
  }
  friend bool operator!=(const DimensionSize &a, const DimensionSize &b) { return !(a == b); }
};

/// Sizes for named dimensions: a dimension named NAME is read as the static
/// size SIZE, or as a dimension known at run time within a range. Every name
/// must name a dimension of the model's inputs.
using DimensionSizes = std::map<std::string, DimensionSize>;

/// "seq=1:8:16, width=32" for messages.
std::string formatSizes(const DimensionSizes &sizes);
/// The static sizes of `sizes` (a plan's `dims`).
std::map<std::string, int64_t> fixedSizes(const DimensionSizes &sizes);
/// The names of the ranges of `sizes`, in order: range i is rangeDim(i).
std::vector<std::string> rangeNames(const DimensionSizes &sizes);

class SymbolicDimensions {
public:
  explicit SymbolicDimensions(DimensionSizes sizes = {}) : sizes_(std::move(sizes)) {}

  /// What the dimension `name` is: its given size, rangeDim(i) for the i-th
  /// range (rangeNames order), else the batch (kBatchDim)
  /// if no other name was the batch before. Otherwise nullopt, with the
  /// reason in `error` ("symbolic dimension 'seq', but the batch is 'batch'
  /// (...)").
  std::optional<int64_t> resolve(const std::string &name, std::string &error);

  /// "" when every given size named a dimension met by resolve, else the
  /// error naming the first that did not, and the names the model has.
  std::string unusedSizes() const;

  /// The batch symbol ("" if no dimension is dynamic).
  const std::string &batchSymbol() const { return batchSymbol_; }
  /// The given static size of `name` or its range code, if any (for shapes
  /// met after the inputs, such as ONNX value_info).
  std::optional<int64_t> sizeOf(const std::string &name) const;
  /// `shape` with each range code replaced by the range's maximum, the size
  /// the plan is planned for.
  std::vector<int64_t> atRangeMaximum(std::vector<int64_t> shape) const;
  /// The names of the ranged dimensions: range i is rangeDim(i).
  std::vector<std::string> rangeNames() const { return import::rangeNames(sizes_); }

private:
  DimensionSizes sizes_;
  std::string batchSymbol_;
  std::set<std::string> seen_;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_SYMBOLICDIMENSIONS_H
