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

namespace fusec::import {

/// Sizes for named dimensions: a dimension named NAME is read as the static
/// size SIZE. Every name must name a dimension of the model's inputs.
using DimensionSizes = std::map<std::string, int64_t>;

class SymbolicDimensions {
public:
  explicit SymbolicDimensions(DimensionSizes sizes = {}) : sizes_(std::move(sizes)) {}

  /// What the dimension `name` is: its given size, else the batch (kBatchDim)
  /// if no other name was the batch before. Otherwise nullopt, with the
  /// reason in `error` ("symbolic dimension 'seq', but the batch is 'batch'
  /// (...)").
  std::optional<int64_t> resolve(const std::string &name, std::string &error);

  /// "" when every given size named a dimension met by resolve, else the
  /// error naming the first that did not, and the names the model has.
  std::string unusedSizes() const;

  /// The batch symbol ("" if no dimension is dynamic).
  const std::string &batchSymbol() const { return batchSymbol_; }
  /// The given size of `name`, if any (for shapes met after the inputs, such
  /// as ONNX value_info).
  std::optional<int64_t> sizeOf(const std::string &name) const;

private:
  DimensionSizes sizes_;
  std::string batchSymbol_;
  std::set<std::string> seen_;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_SYMBOLICDIMENSIONS_H
