//===- FastDivisionTest.cpp - FusecDivisor against exact division ---------===//
//
// A shape-generic kernel divides by sizes it reads at run time through
// FusecDivisor (fusec_cuda_prelude.h), whose multiplier and shift codegen
// computes on the host (fastDivisor) and passes as scalar arguments. The
// kernel below divides through it, under emulation, for divisors from 1 to
// 2^31 - 1 and dividends near every multiple boundary up to 2^31 - 1, and
// checks that the prelude's own fusec_divisor (for the template tests)
// computes the same constants.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include "codegen/KernelBuilder.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

using namespace fusec;

namespace {

const char *const kKernels = R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void divide(const unsigned *n, unsigned *quotient, unsigned *constants, int count,
                                  FusecDivisor divisor) {
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    quotient[i] = divisor.divide(n[i]);
  if (threadIdx.x == 0) {
    const FusecDivisor own = fusec_divisor(divisor.divisor);
    constants[0] = own.multiplier;
    constants[1] = own.shift;
  }
}

#ifdef FUSEC_EMULATION
extern "C" void divide__emulated(void **args) {
  divide(static_cast<const unsigned *>(args[0]), static_cast<unsigned *>(args[1]), static_cast<unsigned *>(args[2]),
         *static_cast<int *>(args[3]), *static_cast<FusecDivisor *>(args[4]));
}
#endif
)cuda";

const test::EmulatedModule &kernels() {
  static const test::EmulatedModule module = test::EmulatedModule::compile(kKernels, "", {FUSEC_PRELUDE_DIR});
  return module;
}

} // namespace

TEST_CASE("FusecDivisor divides every dividend below 2^31 exactly", "[codegen][division]") {
  constexpr uint32_t kLargest = (1u << 31) - 1;
  std::vector<uint32_t> divisors = {
      1, 2, 3, 5, 7, 49, 56, 784, 3136, 7919, 12544, 65535, 65536, 1u << 30, (1u << 30) + 1, kLargest};
  std::mt19937 random(7);
  for (int i = 0; i < 16; ++i)
    divisors.push_back(std::uniform_int_distribution<uint32_t>(1, kLargest)(random));
  for (uint32_t d : divisors) {
    INFO("divisor " << d);
    std::vector<uint32_t> n;
    for (uint32_t i = 0; i < 300; ++i)
      n.push_back(i);
    // Around multiples of d, spread over the whole range, and the top.
    for (uint64_t step = 1; step < 64; ++step) {
      const uint64_t multiple = uint64_t(d) * ((uint64_t(kLargest) / d) * step / 63);
      for (int64_t delta = -2; delta <= 2; ++delta)
        if (int64_t(multiple) + delta >= 0 && int64_t(multiple) + delta <= kLargest)
          n.push_back(uint32_t(int64_t(multiple) + delta));
    }
    for (int i = 0; i < 200; ++i)
      n.push_back(std::uniform_int_distribution<uint32_t>(0, kLargest)(random));
    n.push_back(kLargest);

    const codegen::FastDivisor fast = codegen::fastDivisor(d);
    uint32_t divisor[3] = {d, fast.multiplier, fast.shift};
    std::vector<uint32_t> quotient(n.size(), 0xdeadbeefu), constants(2, 0);
    int count = int(n.size());
    kernels().launch("divide", {1}, {128}, {n.data(), quotient.data(), constants.data(), &count, divisor},
                     {n.size() * 4, quotient.size() * 4, constants.size() * 4});
    for (size_t i = 0; i < n.size(); ++i) {
      INFO("dividend " << n[i]);
      REQUIRE(quotient[i] == n[i] / d);
    }
    CHECK(constants[0] == fast.multiplier);
    CHECK(constants[1] == fast.shift);
  }
}
