//===- BatchGroup.cpp - The batch merged with other dimensions ------------===//
#include "compiler/import/BatchGroup.h"
#include "compiler/import/Graph.h"

#include <algorithm>

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

/// a / b when it divides exactly (DimExpr::div truncates constants, as
/// ONNX's Div does).
std::optional<DimExpr> exactDiv(const DimExpr &a, const DimExpr &b) {
  std::optional<DimExpr> quotient = DimExpr::div(a, b);
  if (!quotient)
    return std::nullopt;
  std::optional<DimExpr> back = DimExpr::mul(*quotient, b);
  return back && *back == a ? quotient : std::nullopt;
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
  return expandShape(logical, ShapeSymbols{batch, {}}, {{batch, DimExpr(beforeBatch)}}, error);
}

DimExpr ShapeSymbols::exprOf(int64_t dim) const {
  if (dim == kBatchDim)
    return DimExpr::symbol(batch);
  if (std::optional<size_t> range = rangeIndexOf(dim); range && *range < ranges.size())
    return DimExpr::symbol(ranges[*range]);
  return DimExpr(dim);
}

std::optional<int64_t> ShapeSymbols::codeOf(const std::string &name) const {
  if (name == batch)
    return kBatchDim;
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i] == name)
      return rangeDim(i);
  return std::nullopt;
}

std::map<std::string, DimExpr> ShapeSymbols::elementsBefore(llvm::ArrayRef<int64_t> dims) const {
  std::map<std::string, DimExpr> before;
  DimExpr elements(1);
  for (int64_t dim : dims) {
    DimExpr expr = exprOf(dim);
    if (!expr.isConstant())
      before.emplace(expr.terms().front().symbols.front(), elements);
    elements = DimExpr::mul(elements, expr).value_or(DimExpr(0));
  }
  return before;
}

std::optional<ExpandedShape> expandShape(llvm::ArrayRef<DimExpr> logical, const ShapeSymbols &symbols,
                                         const std::map<std::string, DimExpr> &before, std::string &error) {
  ExpandedShape expanded;
  DimExpr elements(1); // the elements of the logical dimensions so far
  for (size_t i = 0; i < logical.size(); ++i) {
    const DimExpr &dim = logical[i];
    std::optional<DimExpr> next = DimExpr::mul(elements, dim);
    if (!next) {
      error = "the element count overflows 64-bit integers";
      return std::nullopt;
    }
    if (dim.isConstant()) {
      expanded.dims.push_back(dim.constantTerm());
      elements = *next;
      continue;
    }
    const bool monomial = dim.terms().size() == 1 && dim.constantTerm() == 0 && dim.terms()[0].coefficient > 0;
    const std::vector<std::string> names = monomial ? dim.terms()[0].symbols : std::vector<std::string>{};
    const bool distinct = std::adjacent_find(names.begin(), names.end()) == names.end();
    if (!monomial || !distinct) {
      error = "dimension " + std::to_string(i) + " is " + dim.str() +
              ", which is neither a size nor a size times distinct run-time dimensions";
      return std::nullopt;
    }
    // Each symbol's place inside the dimension: the elements before it that
    // lie inside this dimension, in memory order.
    std::vector<std::pair<DimExpr, std::string>> inside;
    for (const std::string &name : names) {
      auto it = before.find(name);
      std::optional<DimExpr> within = it == before.end() ? std::nullopt : exactDiv(it->second, elements);
      if (!symbols.codeOf(name) || !within) {
        error = "dimension " + std::to_string(i) + " (" + dim.str() + ") does not keep " + name + " whole: " +
                (it == before.end() ? std::string("the input has no such dimension")
                                    : it->second.str() + " elements lie before it in memory");
        return std::nullopt;
      }
      inside.emplace_back(*within, name);
    }
    // A symbol later in memory has every earlier one among its elements.
    std::sort(inside.begin(), inside.end(), [](const auto &a, const auto &b) {
      return a.first.terms().size() + (a.first.terms().empty() ? 0 : a.first.terms()[0].symbols.size()) <
             b.first.terms().size() + (b.first.terms().empty() ? 0 : b.first.terms()[0].symbols.size());
    });
    std::vector<int64_t> factors;
    DimExpr covered(1);
    for (const auto &[within, name] : inside) {
      std::optional<DimExpr> gap = exactDiv(within, covered);
      if (!gap || !gap->isConstant() || gap->constantTerm() < 1) {
        error = "dimension " + std::to_string(i) + " (" + dim.str() + ") does not keep " + name +
                " whole: " + within.str() + " of its elements lie before it in memory";
        return std::nullopt;
      }
      if (gap->constantTerm() != 1)
        factors.push_back(gap->constantTerm());
      factors.push_back(*symbols.codeOf(name));
      covered = DimExpr::mul(within, DimExpr::symbol(name)).value_or(DimExpr(0));
    }
    std::optional<DimExpr> rest = exactDiv(dim, covered);
    if (!rest || !rest->isConstant() || rest->constantTerm() < 1) {
      error = "dimension " + std::to_string(i) + " (" + dim.str() + ") does not split around its run-time dimensions";
      return std::nullopt;
    }
    if (rest->constantTerm() != 1)
      factors.push_back(rest->constantTerm());
    if (factors.size() > 1) {
      if (expanded.group) {
        error = "dimensions " + std::to_string(expanded.group->axis) + " and " + std::to_string(i) +
                " both merge run-time dimensions with others";
        return std::nullopt;
      }
      // The dimensions before are one fuse axis each: logical axis i begins
      // at fuse axis i.
      expanded.group = BatchGroup{static_cast<int64_t>(i), static_cast<int64_t>(factors.size())};
    }
    expanded.dims.insert(expanded.dims.end(), factors.begin(), factors.end());
    elements = *next;
  }
  return expanded;
}

std::vector<DimExpr> logicalShape(llvm::ArrayRef<int64_t> expanded, const std::optional<BatchGroup> &group,
                                  const std::string &batch) {
  return logicalShape(expanded, group, ShapeSymbols{batch, {}});
}

std::vector<DimExpr> logicalShape(llvm::ArrayRef<int64_t> expanded, const std::optional<BatchGroup> &group,
                                  const ShapeSymbols &symbols) {
  std::vector<DimExpr> logical;
  for (size_t i = 0; i < expanded.size(); ++i) {
    DimExpr dim = symbols.exprOf(expanded[i]);
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
    if (target[i] == kBatchDim || rangeIndexOf(target[i]))
      target[i] = i < from.size() && from[i] == target[i] ? 0 : -1;
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
