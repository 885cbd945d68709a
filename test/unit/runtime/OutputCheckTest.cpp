//===- OutputCheckTest.cpp - fuserun --check's comparison -------------------===//

#include "TestSupport.h"

#include "tools/fuserun/OutputCheck.h"

#include <cmath>

using namespace fusec;
using runtime::Tensor;

namespace {

fuserun::OutputComparison compare(const std::vector<float> &actual, const std::vector<float> &reference,
                                  double rtol = 1e-4, double atol = 1e-4) {
  const runtime::Shape shape{static_cast<int64_t>(actual.size())};
  return fuserun::compareOutputs(Tensor(shape, actual), Tensor(shape, reference), rtol, atol);
}

} // namespace

TEST_CASE("outputs within rtol/atol pass, like numpy.allclose") {
  const auto same = compare({1, -2, 0}, {1, -2, 0});
  CHECK(same.mismatches == 0);
  CHECK(same.maxAbsError == 0);
  CHECK(fuserun::formatComparison(same) == "max abs error 0, max rel error 0: ok");

  // |1000.05 - 1000| = 0.05 <= 1e-4 + 1e-4 * 1000 = 0.1001.
  const auto relative = compare({1000.05f, 0.00005f}, {1000, 0});
  CHECK(relative.mismatches == 0);
  CHECK(relative.maxAbsError == Approx(0.05).epsilon(1e-3));
  CHECK(relative.maxRelError == Approx(5e-5).epsilon(1e-2));
}

TEST_CASE("outputs beyond tolerance are counted") {
  const auto off = compare({1.001f, 5, 0.001f}, {1, 5, 0});
  CHECK(off.mismatches == 2);
  CHECK(off.elements == 3);
  // The reference 0 is within atol of zero: no relative error for it.
  CHECK(off.maxRelError == Approx(1e-3).epsilon(1e-2));
  CHECK_THAT(fuserun::formatComparison(off), Catch::EndsWith(": 2 of 3 elements differ beyond tolerance"));
  CHECK(compare({1.001f}, {1}, /*rtol=*/1e-2, /*atol=*/0).mismatches == 0);
}

TEST_CASE("NaN and infinities agree only with themselves") {
  CHECK(compare({NAN, INFINITY, -INFINITY}, {NAN, INFINITY, -INFINITY}).mismatches == 0);
  const auto bad = compare({NAN, 1, INFINITY}, {1, NAN, -INFINITY});
  CHECK(bad.mismatches == 3);
  CHECK(std::isinf(bad.maxAbsError));
}

TEST_CASE("integer outputs must match exactly, whatever the tolerances") {
  const int32_t reference[3] = {1, -2, 1000}, close[3] = {1, -2, 1001};
  const auto tensor = [](const int32_t *values) {
    return Tensor::fromBytes({3}, runtime::ElementType::I32, values, 3 * sizeof(int32_t));
  };
  CHECK(fuserun::compareOutputs(tensor(reference), tensor(reference), 0.1, 10).mismatches == 0);
  // Within rtol 0.1 and atol 10 as floats, but not equal.
  const auto differs = fuserun::compareOutputs(tensor(close), tensor(reference), 0.1, 10);
  CHECK(differs.mismatches == 1);
  CHECK(differs.maxAbsError == 1);
  // A tensor of another type differs everywhere.
  CHECK(fuserun::compareOutputs(Tensor({3}), tensor(reference), 0.1, 10).mismatches == 3);
}
