//===- OutputCheck.cpp - Compare an output with the CPU backend's -----------===//

#include "tools/fuserun/OutputCheck.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace fusec::fuserun {

OutputComparison compareOutputs(const runtime::Tensor &actual, const runtime::Tensor &reference, double rtol,
                                double atol) {
  OutputComparison comparison;
  const std::vector<double> gotValues = actual.toDoubles(), wantValues = reference.toDoubles();
  comparison.elements = wantValues.size();
  // Integers must be equal: no tolerance applies to them.
  const bool exact = !runtime::isFloatElementType(reference.elementType());
  if (actual.elementType() != reference.elementType() || gotValues.size() != wantValues.size()) {
    comparison.mismatches = comparison.elements;
    comparison.maxAbsError = INFINITY;
    return comparison;
  }
  for (size_t i = 0; i < comparison.elements; ++i) {
    const double got = gotValues[i];
    const double want = wantValues[i];
    if (std::isnan(got) || std::isnan(want) || std::isinf(got) || std::isinf(want)) {
      // Equal infinities and NaN against NaN agree; anything else does not.
      const bool agree = (std::isnan(got) && std::isnan(want)) || got == want;
      if (!agree) {
        ++comparison.mismatches;
        comparison.maxAbsError = INFINITY;
      }
      continue;
    }
    const double error = std::abs(got - want);
    comparison.maxAbsError = std::max(comparison.maxAbsError, error);
    if (std::abs(want) > atol)
      comparison.maxRelError = std::max(comparison.maxRelError, error / std::abs(want));
    if (exact ? error != 0.0 : error > atol + rtol * std::abs(want))
      ++comparison.mismatches;
  }
  return comparison;
}

std::string formatComparison(const OutputComparison &comparison) {
  std::ostringstream out;
  out << "max abs error " << comparison.maxAbsError << ", max rel error " << comparison.maxRelError << ": ";
  if (comparison.mismatches == 0)
    out << "ok";
  else
    out << comparison.mismatches << " of " << comparison.elements << " elements differ beyond tolerance";
  return out.str();
}

} // namespace fusec::fuserun
