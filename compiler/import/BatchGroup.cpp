//===- BatchGroup.cpp - The batch merged with other dimensions ------------===//
#include "compiler/import/BatchGroup.h"
#include "compiler/import/Graph.h"

namespace fusec::import {
namespace {

/// The product of `dims`; nullopt on overflow.
std::optional<DimExpr> product(llvm::ArrayRef<DimExpr> dims) {
  std::optional<DimExpr> result = DimExpr(1);
  for (const DimExpr &dim : dims)
    if (result)
      result = DimExpr::mul(*result, dim);
  return result;
}

} // namespace

std::optional<std::vector<DimExpr>> resolveReshape(llvm::ArrayRef<DimExpr> input, llvm::ArrayRef<DimExpr> target,
                                                   bool allowZero, std::string &error) {
  std::vector<DimExpr> output;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < target.size(); ++i) {
    const DimExpr &dim = target[i];
    if (dim == DimExpr(-1)) {
      if (inferred) {
        error = "the new shape " + shapeString(target) + " infers more than one dimension (-1)";
        return std::nullopt;
      }
      inferred = i;
    } else if (dim == DimExpr(0) && !allowZero) {
      if (i >= input.size()) {
        error = "entry " + std::to_string(i) + " of the new shape copies an input dimension (0), but the input " +
                shapeString(input) + " has rank " + std::to_string(input.size());
        return std::nullopt;
      }
      output.push_back(input[i]);
      continue;
    } else if (DimExpr::compare(dim, 0).value_or(-1) < 0) {
      error = "the new shape " + shapeString(target) + " has the size " + dim.str();
      return std::nullopt;
    }
    output.push_back(dim);
  }
  std::optional<DimExpr> total = product(input);
  if (!total) {
    error = "the element count of " + shapeString(input) + " overflows 64-bit integers";
    return std::nullopt;
  }
  if (inferred) {
    output[*inferred] = DimExpr(1);
    std::optional<DimExpr> known = product(output);
    std::optional<DimExpr> rest = known ? DimExpr::div(*total, *known) : std::nullopt;
    if (!rest) {
      error = "the new shape " + shapeString(target) + " leaves " + total->str() + " / " +
              (known ? known->str() : std::string("?")) + " elements to its -1, which is not a whole size";
      return std::nullopt;
    }
    output[*inferred] = *rest;
  }
  std::optional<DimExpr> count = product(output);
  if (!count || *count != *total) {
    error = "the new shape " + shapeString(output) + " holds " + (count ? count->str() : std::string("too many")) +
            " elements, the input " + shapeString(input) + " " + total->str();
    return std::nullopt;
  }
  return output;
}

std::optional<ExpandedShape> expandShape(llvm::ArrayRef<DimExpr> logical, const std::string &batch, int64_t beforeBatch,
                                         std::string &error) {
  ExpandedShape expanded;
  std::optional<size_t> batchAxis;
  int64_t multiple = 0, staticBefore = 1;
  for (size_t i = 0; i < logical.size(); ++i) {
    std::optional<std::pair<int64_t, int64_t>> linear = logical[i].linearIn(batch);
    const bool isMultiple = linear && linear->first == 0 && linear->second > 0;
    if (!linear || (linear->second != 0 && !isMultiple)) {
      error = "dimension " + std::to_string(i) + " is " + logical[i].str() +
              ", which is neither a size nor a multiple of the batch size";
      return std::nullopt;
    }
    if (!isMultiple) {
      if (!batchAxis)
        staticBefore *= linear->first;
      continue;
    }
    if (batchAxis) {
      error = "the batch size appears in dimensions " + std::to_string(*batchAxis) + " and " + std::to_string(i);
      return std::nullopt;
    }
    batchAxis = i;
    multiple = linear->second;
  }
  if (!batchAxis) {
    for (const DimExpr &dim : logical)
      expanded.dims.push_back(dim.constantTerm());
    return expanded;
  }
  // The dimensions before the batch's hold staticBefore of the elements
  // before the batch; the batch's dimension holds the rest (left) and what
  // lies between the batch and the next dimension (right).
  if (staticBefore <= 0 || beforeBatch % staticBefore != 0 || multiple % (beforeBatch / staticBefore) != 0) {
    error = "dimension " + std::to_string(*batchAxis) + " (" + logical[*batchAxis].str() +
            ") does not keep the batch size whole: " + std::to_string(beforeBatch) +
            " elements lie before it in memory";
    return std::nullopt;
  }
  const int64_t left = beforeBatch / staticBefore, right = multiple / left;
  for (size_t i = 0; i < logical.size(); ++i) {
    if (i != *batchAxis) {
      expanded.dims.push_back(logical[i].constantTerm());
      continue;
    }
    if (left != 1)
      expanded.dims.push_back(left);
    expanded.dims.push_back(kBatchDim);
    if (right != 1)
      expanded.dims.push_back(right);
  }
  const int64_t size = 1 + (left != 1) + (right != 1);
  if (size > 1)
    expanded.group = BatchGroup{static_cast<int64_t>(*batchAxis), size};
  return expanded;
}

std::vector<DimExpr> logicalShape(llvm::ArrayRef<int64_t> expanded, const std::optional<BatchGroup> &group,
                                  const std::string &batch) {
  std::vector<DimExpr> logical;
  for (size_t i = 0; i < expanded.size(); ++i) {
    DimExpr dim = expanded[i] == kBatchDim ? DimExpr::symbol(batch) : DimExpr(expanded[i]);
    const bool merges =
        group && static_cast<int64_t>(i) > group->axis && static_cast<int64_t>(i) < group->axis + group->size;
    if (merges)
      logical.back() = DimExpr::mul(logical.back(), dim).value_or(DimExpr(0));
    else
      logical.push_back(std::move(dim));
  }
  return logical;
}

std::vector<int64_t> reshapeTargetFor(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  std::vector<int64_t> target(to.begin(), to.end());
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] == kBatchDim)
      target[i] = i < from.size() && from[i] == kBatchDim ? 0 : -1;
  return target;
}

std::pair<std::vector<int64_t>, std::optional<BatchGroup>> expandPermutation(llvm::ArrayRef<int64_t> perm,
                                                                             const std::optional<BatchGroup> &group) {
  std::vector<int64_t> expanded;
  std::optional<BatchGroup> result;
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t axis = perm[i];
    const int64_t size = group && axis == group->axis ? group->size : 1;
    if (size > 1)
      result = BatchGroup{static_cast<int64_t>(i), size};
    for (int64_t k = 0; k < size; ++k)
      expanded.push_back(expandedAxis(group, axis) + k);
  }
  return {expanded, result};
}

} // namespace fusec::import
