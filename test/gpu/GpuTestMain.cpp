//===- GpuTestMain.cpp - Run the GPU tests, or skip them visibly ------------===//
//
// ctest treats exit code 77 as "skipped" (SKIP_RETURN_CODE), so a machine
// without a GPU reports the GPU tests as skipped, with the reason in the
// test's output, rather than as passed or failed. Listing the test cases
// (how ctest registers them, one entry each) needs no GPU.
//
// Built twice: FUSEC_TEST_CUDA_DRIVER names the driver library the tests
// use (CudaTestDriver.h); the host double's build never skips.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "CudaTestDriver.h"

#include "runtime/Device.h"
#include "runtime/cuda/CudaDevice.h"

#include <iostream>

#ifndef FUSEC_TEST_CUDA_DRIVER
#define FUSEC_TEST_CUDA_DRIVER "libcuda.so.1"
#define FUSEC_TEST_CUDA_DRIVER_IS_DOUBLE false
#else
#define FUSEC_TEST_CUDA_DRIVER_IS_DOUBLE true
#endif

namespace fusec::test {

runtime::DeviceOptions cudaTestOptions() {
  runtime::DeviceOptions options;
  options.cudaDriver = FUSEC_TEST_CUDA_DRIVER;
  return options;
}

bool onHostCudaDouble() { return FUSEC_TEST_CUDA_DRIVER_IS_DOUBLE; }

} // namespace fusec::test

int main(int argc, char **argv) {
  Catch::Session session;
  if (const int status = session.applyCommandLine(argc, argv))
    return status;
  const Catch::ConfigData &config = session.configData();
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters;
  if (!listing && !config.showHelp) {
    try {
      const auto probe = fusec::runtime::cuda::CudaDevice::open(fusec::test::cudaTestOptions());
      std::cout << "running the GPU tests on " << probe->describeDevice() << "\n";
    } catch (const fusec::runtime::cuda::CudaUnavailable &unavailable) {
      std::cout << "SKIPPED: no usable CUDA device: " << unavailable.what() << "\n";
      return 77;
    }
  }
  return session.run();
}
