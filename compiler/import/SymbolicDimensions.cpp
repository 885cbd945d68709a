//===- SymbolicDimensions.cpp - Named dimensions of a model's inputs ------===//
#include "compiler/import/SymbolicDimensions.h"
#include "compiler/import/Graph.h"

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
          "' (a plan has one dynamic dimension, the batch: give the others sizes, e.g. fusec --dim " + name + "=SIZE)";
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
  return it->second;
}

} // namespace fusec::import
