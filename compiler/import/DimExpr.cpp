//===- DimExpr.cpp - Symbolic sizes of shape arithmetic -------------------===//
#include "compiler/import/DimExpr.h"

#include "support/CheckedMath.h"

#include <algorithm>
#include <limits>

namespace fusec::import {
namespace {

/// Symbols of a product: the union of both multisets, sorted.
std::vector<std::string> multiplySymbols(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  std::vector<std::string> product;
  product.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(product));
  return product;
}

/// `whole` without the symbols of `part`, if `part` is a sub-multiset.
std::optional<std::vector<std::string>> divideSymbols(const std::vector<std::string> &whole,
                                                      const std::vector<std::string> &part) {
  if (!std::includes(whole.begin(), whole.end(), part.begin(), part.end()))
    return std::nullopt;
  std::vector<std::string> rest;
  std::set_difference(whole.begin(), whole.end(), part.begin(), part.end(), std::back_inserter(rest));
  return rest;
}

/// The remainder of `a` by `m` (m != 0) with the divisor's sign, as
/// Python's % and ONNX Mod with fmod = 0.
int64_t floorMod(int64_t a, int64_t m) {
  if (m == -1)
    return 0; // INT64_MIN % -1 traps in C++
  int64_t r = a % m;
  if (r != 0 && ((r < 0) != (m < 0)))
    r += m;
  return r;
}

/// c / d when d divides c exactly; nullopt otherwise and for the one
/// quotient beyond int64 (INT64_MIN / -1).
std::optional<int64_t> exactQuotient(int64_t c, int64_t d) {
  if (d == 0 || (c == std::numeric_limits<int64_t>::min() && d == -1))
    return std::nullopt;
  if (d == -1 || c % d != 0)
    return d == -1 ? std::optional<int64_t>(-c) : std::nullopt;
  return c / d;
}

} // namespace

DimExpr DimExpr::symbol(std::string name) {
  DimExpr expr;
  expr.terms_.push_back({{std::move(name)}, 1});
  return expr;
}

std::optional<DimExpr> DimExpr::canonical(int64_t constant, std::vector<Term> terms) {
  // Shape arithmetic needs a few low-degree terms; repeated squaring in a
  // hostile model would otherwise grow them exponentially.
  if (terms.size() > kMaxTerms)
    return std::nullopt;
  for (const Term &term : terms)
    if (term.symbols.size() > kMaxDegree)
      return std::nullopt;
  std::sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) { return a.symbols < b.symbols; });
  DimExpr expr(constant);
  for (Term &term : terms) {
    if (!expr.terms_.empty() && expr.terms_.back().symbols == term.symbols) {
      std::optional<int64_t> sum = checkedAdd(expr.terms_.back().coefficient, term.coefficient);
      if (!sum)
        return std::nullopt;
      expr.terms_.back().coefficient = *sum;
    } else {
      expr.terms_.push_back(std::move(term));
    }
  }
  expr.terms_.erase(
      std::remove_if(expr.terms_.begin(), expr.terms_.end(), [](const Term &term) { return term.coefficient == 0; }),
      expr.terms_.end());
  return expr;
}

bool DimExpr::mentions(const std::string &name) const {
  return std::any_of(terms_.begin(), terms_.end(), [&](const Term &term) {
    return std::find(term.symbols.begin(), term.symbols.end(), name) != term.symbols.end();
  });
}

std::optional<std::pair<int64_t, int64_t>> DimExpr::linearIn(const std::string &name) const {
  if (terms_.empty())
    return std::make_pair(constant_, int64_t(0));
  if (terms_.size() == 1 && terms_[0].symbols == std::vector<std::string>{name})
    return std::make_pair(constant_, terms_[0].coefficient);
  return std::nullopt;
}

std::optional<DimExpr> DimExpr::add(const DimExpr &a, const DimExpr &b) {
  std::optional<int64_t> constant = checkedAdd(a.constant_, b.constant_);
  if (!constant)
    return std::nullopt;
  std::vector<Term> terms = a.terms_;
  terms.insert(terms.end(), b.terms_.begin(), b.terms_.end());
  return canonical(*constant, std::move(terms));
}

std::optional<DimExpr> DimExpr::sub(const DimExpr &a, const DimExpr &b) {
  std::optional<DimExpr> negated = mul(b, DimExpr(-1));
  return negated ? add(a, *negated) : std::nullopt;
}

std::optional<DimExpr> DimExpr::mul(const DimExpr &a, const DimExpr &b) {
  std::optional<int64_t> constant = checkedMul(a.constant_, b.constant_);
  if (!constant)
    return std::nullopt;
  std::vector<Term> terms;
  // (c_a + sum_i t_i) * (c_b + sum_j u_j), term by term.
  auto scaled = [&](const std::vector<Term> &from, int64_t factor) {
    for (const Term &term : from) {
      std::optional<int64_t> coefficient = checkedMul(term.coefficient, factor);
      if (!coefficient)
        return false;
      terms.push_back({term.symbols, *coefficient});
    }
    return true;
  };
  if (!scaled(a.terms_, b.constant_) || !scaled(b.terms_, a.constant_))
    return std::nullopt;
  for (const Term &x : a.terms_) {
    for (const Term &y : b.terms_) {
      std::optional<int64_t> coefficient = checkedMul(x.coefficient, y.coefficient);
      if (!coefficient)
        return std::nullopt;
      terms.push_back({multiplySymbols(x.symbols, y.symbols), *coefficient});
    }
  }
  return canonical(*constant, std::move(terms));
}

std::optional<DimExpr> DimExpr::div(const DimExpr &a, const DimExpr &b) {
  if (std::optional<int64_t> divisor = b.constant()) {
    if (*divisor == 0 || (a.constant_ == std::numeric_limits<int64_t>::min() && *divisor == -1))
      return std::nullopt;
    if (a.isConstant())
      return DimExpr(a.constant_ / *divisor);
    // Exact division only: a symbolic remainder has no polynomial quotient.
    std::optional<int64_t> constant = exactQuotient(a.constant_, *divisor);
    if (!constant)
      return std::nullopt;
    std::vector<Term> terms;
    for (const Term &term : a.terms_) {
      std::optional<int64_t> coefficient = exactQuotient(term.coefficient, *divisor);
      if (!coefficient)
        return std::nullopt;
      terms.push_back({term.symbols, *coefficient});
    }
    return canonical(*constant, std::move(terms));
  }
  if (a == b && compare(a, DimExpr(0)).value_or(0) != 0)
    return DimExpr(1);
  // A monomial divisor (3*seq): every term of a must hold it.
  if (b.constant_ != 0 || b.terms_.size() != 1 || a.constant_ != 0)
    return std::nullopt;
  const Term &divisor = b.terms_[0];
  std::vector<Term> terms;
  for (const Term &term : a.terms_) {
    std::optional<std::vector<std::string>> rest = divideSymbols(term.symbols, divisor.symbols);
    std::optional<int64_t> coefficient = exactQuotient(term.coefficient, divisor.coefficient);
    if (!rest || !coefficient)
      return std::nullopt;
    terms.push_back({std::move(*rest), *coefficient});
  }
  // Terms left without symbols are constants.
  int64_t constant = 0;
  std::vector<Term> symbolic;
  for (Term &term : terms) {
    if (!term.symbols.empty()) {
      symbolic.push_back(std::move(term));
      continue;
    }
    std::optional<int64_t> sum = checkedAdd(constant, term.coefficient);
    if (!sum)
      return std::nullopt;
    constant = *sum;
  }
  return canonical(constant, std::move(symbolic));
}

std::optional<DimExpr> DimExpr::mod(const DimExpr &a, const DimExpr &b, bool fmod) {
  std::optional<int64_t> divisor = b.constant();
  if (!divisor) {
    // x mod x is 0 whatever x is (when it is not 0).
    if (a == b && compare(a, DimExpr(0)).value_or(0) != 0)
      return DimExpr(0);
    return std::nullopt;
  }
  if (*divisor == 0)
    return std::nullopt;
  for (const Term &term : a.terms_)
    if (!exactQuotient(term.coefficient, *divisor))
      return std::nullopt;
  // a is congruent to its constant term modulo the divisor.
  if (!fmod)
    return DimExpr(floorMod(a.constant_, *divisor));
  // fmod = 1: C's %, whose sign follows the dividend's.
  std::optional<int> sign = compare(a, DimExpr(0));
  if (!sign || *divisor == std::numeric_limits<int64_t>::min())
    return std::nullopt;
  const int64_t magnitude = *divisor < 0 ? -*divisor : *divisor;
  int64_t r = floorMod(a.constant_, magnitude); // in [0, |m|) for |m| > 0
  if (*sign < 0 && r != 0)
    r -= magnitude;
  return DimExpr(r);
}

std::optional<int> DimExpr::compare(const DimExpr &a, const DimExpr &b) {
  std::optional<DimExpr> difference = sub(a, b);
  if (!difference)
    return std::nullopt;
  if (std::optional<int64_t> value = difference->constant())
    return *value < 0 ? -1 : *value > 0 ? 1 : 0;
  // With every symbol >= 1, each product of symbols is >= 1: terms of one
  // sign bound the difference by their coefficients' sum on that side.
  bool allPositive = true, allNegative = true;
  __int128 bound = difference->constant_;
  for (const Term &term : difference->terms_) {
    allPositive &= term.coefficient > 0;
    allNegative &= term.coefficient < 0;
    bound += term.coefficient;
  }
  if (allPositive && bound > 0)
    return 1;
  if (allNegative && bound < 0)
    return -1;
  return std::nullopt;
}

bool DimExpr::alwaysAtLeast(const DimExpr &a, const DimExpr &b) {
  std::optional<DimExpr> difference = sub(a, b);
  if (!difference)
    return false;
  // Every product of symbols is >= 1: nonnegative coefficients whose sum
  // with the constant is >= 0 keep the difference >= 0.
  __int128 bound = difference->constant_;
  for (const Term &term : difference->terms_) {
    if (term.coefficient < 0)
      return false;
    bound += term.coefficient;
  }
  return bound >= 0;
}

std::optional<DimExpr> DimExpr::max(const DimExpr &a, const DimExpr &b) {
  if (alwaysAtLeast(a, b))
    return a;
  if (alwaysAtLeast(b, a))
    return b;
  return std::nullopt;
}

std::optional<DimExpr> DimExpr::min(const DimExpr &a, const DimExpr &b) {
  if (alwaysAtLeast(b, a))
    return a;
  if (alwaysAtLeast(a, b))
    return b;
  return std::nullopt;
}

std::string DimExpr::str() const {
  std::string text;
  auto append = [&](int64_t coefficient, const std::string &body) {
    // The magnitude as unsigned: -INT64_MIN does not fit int64.
    const uint64_t magnitude = coefficient < 0 ? uint64_t(0) - uint64_t(coefficient) : uint64_t(coefficient);
    if (text.empty())
      text = coefficient < 0 ? "-" : "";
    else
      text += coefficient < 0 ? " - " : " + ";
    if (body.empty())
      text += std::to_string(magnitude);
    else
      text += (magnitude == 1 ? "" : std::to_string(magnitude) + "*") + body;
  };
  for (const Term &term : terms_) {
    std::string body;
    for (const std::string &name : term.symbols)
      body += (body.empty() ? "" : "*") + name;
    append(term.coefficient, body);
  }
  if (constant_ != 0 || terms_.empty())
    append(constant_, "");
  return text;
}

std::string shapeString(llvm::ArrayRef<DimExpr> dims, size_t limit) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size() && i < limit; ++i)
    text += (i ? ", " : "") + dims[i].str();
  return text + (dims.size() > limit ? ", ...]" : "]");
}

} // namespace fusec::import
