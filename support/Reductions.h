//===- Reductions.h - The Reduce* ops, one definition -----------*- C++ -*-===//
//
// ONNX's Reduce* ops differ only in an initial value, how an element joins
// the running value, how two partial values combine and a final map. The
// CPU backend computes them from these definitions and codegen emits the
// same arithmetic as C expressions, so the two agree by construction.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_REDUCTIONS_H
#define FUSEC_RUNTIME_SUPPORT_REDUCTIONS_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace fusec::reductions {

enum class Kind { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum };

/// ArgMax / ArgMin: whether `candidate` at `candidateIndex` replaces the
/// running choice `current` at `currentIndex` (-1: nothing chosen yet).
/// NaN beats every number (numpy's argmax and argmin return the first NaN);
/// ties go to the lower index, or the higher with `last`
/// (select_last_index). Associative and commutative, so partial choices
/// combine in any order. Codegen emits the same test (argPrefersExpression).
inline bool argPrefers(bool largest, bool last, double candidate, int64_t candidateIndex, double current,
                       int64_t currentIndex) {
  if (currentIndex < 0)
    return candidateIndex >= 0;
  if (candidateIndex < 0)
    return false;
  const bool laterWins = last ? candidateIndex > currentIndex : candidateIndex < currentIndex;
  if (std::isnan(candidate) || std::isnan(current))
    return std::isnan(candidate) && (!std::isnan(current) || laterWins);
  if (candidate != current)
    return largest ? candidate > current : candidate < current;
  return laterWins;
}

/// argPrefers as a C expression over the names given (NaN tested as x != x,
/// which needs no math header).
inline std::string argPrefersExpression(bool largest, bool last, const std::string &candidate,
                                        const std::string &candidateIndex, const std::string &current,
                                        const std::string &currentIndex) {
  const std::string laterWins = "(" + candidateIndex + (last ? " > " : " < ") + currentIndex + ")";
  const std::string candidateNaN = "(" + candidate + " != " + candidate + ")";
  const std::string currentNaN = "(" + current + " != " + current + ")";
  return "(" + currentIndex + " < 0 ? " + candidateIndex + " >= 0 : " + candidateIndex + " < 0 ? false : (" +
         candidateNaN + " || " + currentNaN + ") ? (" + candidateNaN + " && (!" + currentNaN + " || " + laterWins +
         ")) : " + candidate + " != " + current + " ? " + candidate + (largest ? " > " : " < ") + current + " : " +
         laterWins + ")";
}

/// The kind of the ONNX op `name` (ReduceSum, ...), if it is one.
inline std::optional<Kind> kindOf(const std::string &name) {
  if (name == "ReduceSum")
    return Kind::Sum;
  if (name == "ReduceMean")
    return Kind::Mean;
  if (name == "ReduceMax")
    return Kind::Max;
  if (name == "ReduceMin")
    return Kind::Min;
  if (name == "ReduceProd")
    return Kind::Prod;
  if (name == "ReduceSumSquare")
    return Kind::SumSquare;
  if (name == "ReduceL1")
    return Kind::L1;
  if (name == "ReduceL2")
    return Kind::L2;
  if (name == "ReduceLogSum")
    return Kind::LogSum;
  return std::nullopt;
}

/// The running value before any element.
inline double initial(Kind kind) {
  switch (kind) {
  case Kind::Max:
    return -std::numeric_limits<double>::infinity();
  case Kind::Min:
    return std::numeric_limits<double>::infinity();
  case Kind::Prod:
    return 1.0;
  default:
    return 0.0;
  }
}

/// Max and Min propagate NaN, as numpy's (ONNX's reference) do.
inline double combine(Kind kind, double a, double b) {
  switch (kind) {
  case Kind::Max:
    return (a > b || std::isnan(a)) ? a : b;
  case Kind::Min:
    return (a < b || std::isnan(a)) ? a : b;
  case Kind::Prod:
    return a * b;
  default:
    return a + b;
  }
}

/// What element `x` contributes before it is combined.
inline double contribution(Kind kind, double x) {
  switch (kind) {
  case Kind::SumSquare:
  case Kind::L2:
    return x * x;
  case Kind::L1:
    return std::fabs(x);
  default:
    return x;
  }
}

/// The result from the combined value of `count` elements.
inline double finish(Kind kind, double value, double count) {
  switch (kind) {
  case Kind::Mean:
    return value / count;
  case Kind::L2:
    return std::sqrt(value);
  case Kind::LogSum:
    return std::log(value);
  default:
    return value;
  }
}

/// The same definitions as C expressions over floats, for generated CUDA:
/// the initial value, a combine of `a` and `b`, the contribution of `x` and
/// the final map of `v` over `count` elements.
inline std::string initialExpression(Kind kind) {
  switch (kind) {
  case Kind::Max:
    return "(-INFINITY)";
  case Kind::Min:
    return "INFINITY";
  case Kind::Prod:
    return "1.0f";
  default:
    return "0.0f";
  }
}
inline std::string combineExpression(Kind kind, const std::string &a, const std::string &b) {
  switch (kind) {
  case Kind::Max:
    return "fusec_max(" + a + ", " + b + ")";
  case Kind::Min:
    return "fusec_min(" + a + ", " + b + ")";
  case Kind::Prod:
    return "(" + a + ") * (" + b + ")";
  default:
    return "(" + a + ") + (" + b + ")";
  }
}
inline std::string contributionExpression(Kind kind, const std::string &x) {
  switch (kind) {
  case Kind::SumSquare:
  case Kind::L2:
    return "(" + x + ") * (" + x + ")";
  case Kind::L1:
    return "fabsf(" + x + ")";
  default:
    return x;
  }
}
inline std::string finishExpression(Kind kind, const std::string &v, const std::string &count) {
  switch (kind) {
  case Kind::Mean:
    return v + " / (float)" + count;
  case Kind::L2:
    return "sqrtf(" + v + ")";
  case Kind::LogSum:
    return "logf(" + v + ")";
  default:
    return v;
  }
}

} // namespace fusec::reductions

#endif // FUSEC_RUNTIME_SUPPORT_REDUCTIONS_H
