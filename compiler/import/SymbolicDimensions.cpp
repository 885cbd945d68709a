//===- SymbolicDimensions.cpp - Named dimensions of a model's inputs ------===//
#include "compiler/import/SymbolicDimensions.h"
#include "compiler/import/Graph.h"

#include <algorithm>

namespace fusec::import {

std::optional<int64_t> SymbolicDimensions::resolve(const std::string &name, std::string &error) {
  seen_.insert(name);
  if (std::optional<int64_t> size = sizeOf(name))
    return size;
  if (batchSymbol_.empty())
    batchSymbol_ = name;
  if (name == batchSymbol_)
    return kBatchDim;
  error = "symbolic dimension '" + name + "', but the batch is '" + batchSymbol_ +
          "' (a plan has one dynamic dimension, the batch: give the others a size or a range, e.g. fusec --dim " +
          name + "=SIZE or --dim " + name + "=MIN:MAX)";
  return std::nullopt;
}

std::string SymbolicDimensions::unusedSizes() const {
  for (const auto &[name, size] : sizes_) {
    if (seen_.count(name))
      continue;
    std::string names;
    for (const std::string &symbol : seen_)
      names += (names.empty() ? "'" : ", '") + symbol + "'";
    return "a size is given for dimension '" + name + "', which no graph input has (" +
           (names.empty() ? std::string("they have no named dimensions") : "they have " + names) + ")";
  }
  return "";
}

std::optional<int64_t> SymbolicDimensions::sizeOf(const std::string &name) const {
  auto it = sizes_.find(name);
  if (it == sizes_.end())
    return std::nullopt;
  if (!it->second.isRange())
    return it->second.min;
  const std::vector<std::string> ranges = rangeNames();
  return rangeDim(static_cast<size_t>(std::find(ranges.begin(), ranges.end(), name) - ranges.begin()));
}

std::vector<int64_t> SymbolicDimensions::atRangeMaximum(std::vector<int64_t> shape) const {
  const std::vector<std::string> ranges = rangeNames();
  for (int64_t &dim : shape)
    if (std::optional<size_t> range = rangeIndexOf(dim); range && *range < ranges.size())
      dim = sizes_.at(ranges[*range]).max;
  return shape;
}

std::string DimensionSize::str() const {
  if (!isRange())
    return std::to_string(min);
  return std::to_string(min) + ":" + std::to_string(opt) + ":" + std::to_string(max);
}

std::string formatSizes(const DimensionSizes &sizes) {
  std::string text;
  for (const auto &[name, size] : sizes)
    text += (text.empty() ? "" : ", ") + name + "=" + size.str();
  return text;
}

std::map<std::string, int64_t> fixedSizes(const DimensionSizes &sizes) {
  std::map<std::string, int64_t> fixed;
  for (const auto &[name, size] : sizes)
    if (!size.isRange())
      fixed[name] = size.min;
  return fixed;
}

std::vector<std::string> rangeNames(const DimensionSizes &sizes) {
  std::vector<std::string> names;
  for (const auto &[name, size] : sizes)
    if (size.isRange())
      names.push_back(name);
  return names;
}

} // namespace fusec::import
