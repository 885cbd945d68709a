//===- CudaFallbackTest.cpp - What happens where CUDA cannot be used --------===//
//
// These run everywhere, GPU or not: they point the driver loader at
// libraries that are not a working CUDA driver.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "test/unit/TestSkip.h"

#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/KernelModules.h"

#include <iostream>
#include <sstream>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

/// Collects what is written to std::cerr while it lives.
class CerrCapture {
public:
  CerrCapture() : saved_(std::cerr.rdbuf(captured_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(saved_); }
  std::string text() const { return captured_.str(); }

private:
  std::ostringstream captured_;
  std::streambuf *saved_;
};

DeviceOptions driver(const std::string &library) {
  DeviceOptions options;
  options.cudaDriver = library;
  return options;
}

size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("a missing driver library makes CUDA unavailable") {
  CHECK_THROWS_AS(cuda::DriverApi::load("/nonexistent/libcuda.so.1"), cuda::CudaUnavailable);
  CHECK_THROWS_WITH(cuda::DriverApi::load("/nonexistent/libcuda.so.1"), Contains("cannot load the CUDA driver "
                                                                                 "'/nonexistent/libcuda.so.1': "));
  // A library that loads but is not a CUDA driver.
  CHECK_THROWS_WITH(cuda::DriverApi::load("libm.so.6"), Contains("the CUDA driver 'libm.so.6' does not export "
                                                                 "cuInit (the driver is too old)"));
}

TEST_CASE("Device::Auto falls back to the CPU once, saying why") {
  const std::string library = "/nonexistent/auto-test/libcuda.so.1";
  CerrCapture capture;
  Session first(test::hostStepPlan(), Device::Auto, driver(library));
  Session second(test::hostStepPlan(), Device::Auto, driver(library));
  CHECK(first.device() == "cpu");
  CHECK(second.device() == "cpu");
  const std::string note = "fusec: CUDA is unavailable (cannot load the CUDA "
                           "driver '" +
                           library + "': ";
  CHECK_THAT(capture.text(), Contains(note));
  CHECK_THAT(capture.text(), Contains("); running on the CPU\n"));
  CHECK(count(capture.text(), note) == 1);

  // The fallback runs the plan, host step included.
  const Tensor x = test::iota({2, 4});
  test::requireTensor(first.run(2, {{"x", x}}).at("y"), {2, 4}, test::hostStepPlanY(x.values()), 1e-6f);
}

TEST_CASE("Device::Auto runs a CPU plan on the CPU and says so") {
  CerrCapture capture;
  Session session(std::make_shared<const Plan>(Plan::fromBytes(test::smallPlanBytes(), "auto-cpu.plan")), Device::Auto);
  CHECK(session.device() == "cpu");
  CHECK_THAT(capture.text(), Contains("fusec: plan 'auto-cpu.plan' has no GPU kernels "
                                      "(target 'cpu'); running on the CPU"));
}

TEST_CASE("Device::Cuda without a driver fails with a clear error") {
  CHECK_THROWS_WITH(Session(test::hostStepPlan(), Device::Cuda, driver("/nonexistent/libcuda.so.1")),
                    Contains("cannot run on cuda: cannot load the CUDA driver "
                             "'/nonexistent/libcuda.so.1'"));
  CHECK_THROWS_WITH(Session(test::hostStepPlan(), Device::Cuda, driver("libm.so.6")),
                    Contains("cannot run on cuda: the CUDA driver 'libm.so.6' "
                             "does not export cuInit"));
}

// The toolkit's stub libcuda exports every entry point, and every call
// fails with CUDA_ERROR_STUB_LIBRARY: the symbol table resolves against a
// real driver's names, and initialization failure is "unavailable".
TEST_CASE("the toolkit's stub driver resolves every symbol, then fails") {
#ifndef FUSEC_CUDA_STUB_DRIVER
  FUSEC_SKIP_TEST("no CUDA toolkit stub libcuda was found at configure time");
#else
  std::shared_ptr<const cuda::DriverApi> api;
  REQUIRE_NOTHROW(api = cuda::DriverApi::load(FUSEC_CUDA_STUB_DRIVER));
  CHECK_THROWS_AS(cuda::CudaDevice(api, 0), cuda::CudaUnavailable);
  CHECK_THROWS_WITH(cuda::CudaDevice(api, 0), Contains("' failed to initialize: "));
  CerrCapture capture;
  Session session(test::hostStepPlan(), Device::Auto, driver(FUSEC_CUDA_STUB_DRIVER));
  CHECK(session.device() == "cpu");
  CHECK_THROWS_WITH(Session(test::hostStepPlan(), Device::Cuda, driver(FUSEC_CUDA_STUB_DRIVER)),
                    Contains("cannot run on cuda: the CUDA driver '"));
#endif
}

TEST_CASE("a CUBIN is only used on the architecture it was built for") {
  CHECK(cuda::cubinMatchesDevice("sm_90", 90));
  CHECK(cuda::cubinMatchesDevice("sm_90a", 90));
  CHECK_FALSE(cuda::cubinMatchesDevice("sm_90", 80));
  CHECK_FALSE(cuda::cubinMatchesDevice("sm_80", 86));
  CHECK_FALSE(cuda::cubinMatchesDevice("sm_100", 10));
  CHECK_FALSE(cuda::cubinMatchesDevice("sm_9", 90));
  CHECK_FALSE(cuda::cubinMatchesDevice("compute_90", 90));
  CHECK_FALSE(cuda::cubinMatchesDevice("sm_90ab", 90));
}
