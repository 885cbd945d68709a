//===- ScalarOps.h - ONNX's float semantics of a few binary ops -*- C++ -*-===//
//
// The CPU backend computes these ops element by element and the ONNX
// importer folds them on constants; both must give the same value, NaN and
// the sign of a zero included.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_SCALAROPS_H
#define FUSEC_RUNTIME_SUPPORT_SCALAROPS_H

#include <cmath>

namespace fusec::scalar {

/// Max and Min: a NaN operand on the left propagates.
inline float max(float a, float b) { return (a > b || std::isnan(a)) ? a : b; }
inline float min(float a, float b) { return (a < b || std::isnan(a)) ? a : b; }

/// Mod: with `fmod` the remainder has the dividend's sign (C); without, the
/// divisor's (Python; Mod-28 spells it out: a zero result too).
inline float mod(float a, float b, bool fmod) {
  float r = std::fmod(a, b);
  if (!fmod && r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
    r += b;
  else if (!fmod && r == 0.0f)
    r = std::copysign(0.0f, b);
  return r;
}

} // namespace fusec::scalar

#endif // FUSEC_RUNTIME_SUPPORT_SCALAROPS_H
