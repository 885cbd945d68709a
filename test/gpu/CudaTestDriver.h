//===- CudaTestDriver.h - Which CUDA driver the GPU tests use ---*- C++ -*-===//
//
// The GPU tests run twice: fusec-gpu-runtime on the machine's driver
// (libcuda.so.1; skipped without a GPU) and fusec-cuda-host-double on the
// CPU-hosted test double of the driver (HostCudaDriver.cpp), which runs
// everywhere. Each binary's main sets the driver; tests start from
// cudaTestOptions() instead of DeviceOptions().
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_GPU_CUDATESTDRIVER_H
#define FUSEC_TEST_GPU_CUDATESTDRIVER_H

#include "runtime/Device.h"

namespace fusec::test {

/// DeviceOptions whose cudaDriver is the driver under test.
runtime::DeviceOptions cudaTestOptions();

/// True when the driver under test is the host double.
bool onHostCudaDouble();

} // namespace fusec::test

#endif // FUSEC_TEST_GPU_CUDATESTDRIVER_H
