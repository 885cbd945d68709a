//===- DimExpr.h - Symbolic sizes of shape arithmetic -----------*- C++ -*-===//
//
// Exporters compute sizes from a model's inputs: `batch * heads` before a
// reshape to [seq, batch*heads, head_dim], `batch * seq` before a linear
// layer, `seq + 1` after a class token. The importer evaluates that shape
// arithmetic before run time, so an integer it cannot know (the batch size)
// is a symbol, and the sizes built from it are expressions over symbols.
//
// A DimExpr is an integer polynomial over named symbols in one canonical
// form: a sum of terms, each a nonzero coefficient times a sorted product of
// symbols, terms sorted, plus a constant. Equal expressions therefore
// compare equal, which is what Equal/Where on shapes and a Reshape's checks
// need. Division is exact division by a constant (what `hidden / heads`
// and `(batch*heads) / heads` are); an operation whose result is not such a
// polynomial returns nullopt and the caller names the node.
//
// Every symbol stands for a size, so it is at least 1: that decides
// comparisons like `batch == -1` (false) and `4*batch + 2 > 0` (true).
//
// No MLIR dependency (LLVM's ArrayRef only): the dialect's types and the
// plan will carry these expressions too.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_DIMEXPR_H
#define FUSEC_COMPILER_IMPORT_DIMEXPR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fusec::import {

class DimExpr {
public:
  /// Bounds on what arithmetic builds (an operation past them returns
  /// nullopt): shape graphs multiply a few sizes, not hundreds.
  static constexpr size_t kMaxTerms = 64;
  static constexpr size_t kMaxDegree = 8;

  /// `coefficient` times the product of `symbols` (sorted, not empty; a
  /// symbol repeats for a power).
  struct Term {
    std::vector<std::string> symbols;
    int64_t coefficient = 0;
    friend bool operator==(const Term &a, const Term &b) {
      return a.coefficient == b.coefficient && a.symbols == b.symbols;
    }
  };

  /// The constant `value`.
  DimExpr(int64_t value = 0) : constant_(value) {} // NOLINT(google-explicit-constructor): a number is an expression

  /// The symbol `name` (a size, so at least 1).
  static DimExpr symbol(std::string name);

  bool isConstant() const { return terms_.empty(); }
  /// The value of a constant expression; nullopt when a symbol appears.
  std::optional<int64_t> constant() const { return isConstant() ? std::optional<int64_t>(constant_) : std::nullopt; }
  /// The constant term (the whole value when isConstant()).
  int64_t constantTerm() const { return constant_; }
  const std::vector<Term> &terms() const { return terms_; }
  /// Whether `name` appears in some term.
  bool mentions(const std::string &name) const;

  /// a + b * `name` when the expression is that (b may be 0); nullopt when
  /// another symbol or a power appears.
  std::optional<std::pair<int64_t, int64_t>> linearIn(const std::string &name) const;

  /// The arithmetic ONNX shape graphs use, on 64-bit integers: nullopt on
  /// overflow of a coefficient.
  static std::optional<DimExpr> add(const DimExpr &a, const DimExpr &b);
  static std::optional<DimExpr> sub(const DimExpr &a, const DimExpr &b);
  static std::optional<DimExpr> mul(const DimExpr &a, const DimExpr &b);
  /// a / b rounded toward zero (ONNX's integer Div) when b is a nonzero
  /// constant dividing every coefficient of a, or a constant; a / a is 1.
  /// nullopt otherwise (including division by zero).
  static std::optional<DimExpr> div(const DimExpr &a, const DimExpr &b);
  /// ONNX's integer Mod: the remainder takes the divisor's sign (fmod = 0)
  /// or the dividend's (fmod = 1). Symbolic when every term's coefficient is
  /// a multiple of a constant divisor (4*batch + 6 mod 4 is 2).
  static std::optional<DimExpr> mod(const DimExpr &a, const DimExpr &b, bool fmod);

  /// The sign of a - b (-1, 0 or 1) when every value of the symbols
  /// (each >= 1) gives the same; nullopt when it depends on them.
  static std::optional<int> compare(const DimExpr &a, const DimExpr &b);
  /// Whether a >= b for every value of the symbols (each >= 1); false when
  /// that is not certain.
  static bool alwaysAtLeast(const DimExpr &a, const DimExpr &b);
  /// max and min: one of the operands when alwaysAtLeast decides, else
  /// nullopt.
  static std::optional<DimExpr> max(const DimExpr &a, const DimExpr &b);
  static std::optional<DimExpr> min(const DimExpr &a, const DimExpr &b);

  /// The value with each symbol replaced by `valueOf(symbol)`; nullopt on
  /// overflow.
  template <typename ValueOf> std::optional<int64_t> evaluate(ValueOf valueOf) const;

  /// "4*batch + 1", "batch*seq", "-2": symbols in a term joined by '*', a
  /// coefficient of 1 left out, the constant last.
  std::string str() const;

  friend bool operator==(const DimExpr &a, const DimExpr &b) {
    return a.constant_ == b.constant_ && a.terms_ == b.terms_;
  }
  friend bool operator!=(const DimExpr &a, const DimExpr &b) { return !(a == b); }

private:
  /// Sorts and merges terms, dropping zero coefficients; nullopt when a
  /// merged coefficient overflows.
  static std::optional<DimExpr> canonical(int64_t constant, std::vector<Term> terms);

  int64_t constant_ = 0;
  std::vector<Term> terms_;
};

/// "[batch, 4*batch, 8]": the first `limit` expressions, then "...".
std::string shapeString(llvm::ArrayRef<DimExpr> dims, size_t limit = std::numeric_limits<size_t>::max());

template <typename ValueOf> std::optional<int64_t> DimExpr::evaluate(ValueOf valueOf) const {
  __int128 total = constant_;
  for (const Term &term : terms_) {
    __int128 product = term.coefficient;
    for (const std::string &name : term.symbols) {
      product *= static_cast<int64_t>(valueOf(name));
      if (product > INT64_MAX || product < INT64_MIN)
        return std::nullopt;
    }
    total += product;
    if (total > INT64_MAX || total < INT64_MIN)
      return std::nullopt;
  }
  return static_cast<int64_t>(total);
}

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_DIMEXPR_H
