//===- OutputCheck.h - Compare an output with the CPU backend's -------------===//
#ifndef FUSEC_TOOLS_FUSERUN_OUTPUTCHECK_H
#define FUSEC_TOOLS_FUSERUN_OUTPUTCHECK_H

#include "runtime/Tensor.h"

#include <string>

namespace fusec::fuserun {

struct OutputComparison {
  /// max |actual - reference|.
  double maxAbsError = 0.0;
  /// max |actual - reference| / |reference| over the elements whose
  /// reference exceeds atol in magnitude (the others are atol's business;
  /// relative errors against values near zero say nothing).
  double maxRelError = 0.0;
  /// Elements outside |actual - reference| <= atol + rtol * |reference|
  /// (numpy.allclose), NaN where the other is not NaN, and infinities that
  /// differ.
  size_t mismatches = 0;
  size_t elements = 0;
};

/// The two tensors must have the same shape. Float outputs compare within
/// the tolerances; integer outputs (i64, i32, i1, i8, u8) must be equal. Tensors of
/// different element types differ everywhere.
OutputComparison compareOutputs(const runtime::Tensor &actual, const runtime::Tensor &reference, double rtol,
                                double atol);

/// "max abs error 1e-07, max rel error 2e-07: ok" or "...: 3 of 96
/// elements differ beyond tolerance".
std::string formatComparison(const OutputComparison &comparison);

} // namespace fusec::fuserun

#endif // FUSEC_TOOLS_FUSERUN_OUTPUTCHECK_H
