//===- Backend.cpp - Choosing a backend for a device ------------------------===//

#include "runtime/Backend.h"

#include "runtime/Error.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/cuda/CudaBackend.h"

#include <iostream>
#include <mutex>
#include <set>

namespace fusec::runtime {

namespace {

/// Device::Auto explains a fall back to the CPU on stderr, once per process
/// and reason: a program that opens many sessions should not repeat it.
void noteOnce(const std::string &note) {
  static std::mutex mutex;
  static std::set<std::string> printed;
  std::lock_guard<std::mutex> lock(mutex);
  if (printed.insert(note).second)
    std::cerr << "fusec: " << note << "\n";
}

std::unique_ptr<Backend> createAuto(std::shared_ptr<const Plan> plan, const DeviceOptions &options) {
  if (cuda::firstKernelWithoutImage(*plan)) {
    noteOnce("plan '" + plan->sourceName() + "' has no GPU kernels (target '" + plan->manifest().target +
             "'); running on the CPU");
    return std::make_unique<cpu::CpuBackend>(std::move(plan));
  }
  try {
    return std::make_unique<cuda::CudaBackend>(plan, options);
  } catch (const cuda::CudaUnavailable &unavailable) {
    noteOnce(std::string("CUDA is unavailable (") + unavailable.what() + "); running on the CPU");
    return std::make_unique<cpu::CpuBackend>(std::move(plan));
  }
}

} // namespace

void Backend::executeOnDevice(int64_t, const std::vector<const void *> &, const std::vector<void *> &, void *) {
  throw Error(std::string("the ") + deviceName(device()) + " backend cannot run on device buffers");
}

RunTimings Backend::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                         const TimingOptions &options) {
  RunTimings timings;
  timings.run = timeRuns(options.warmup, options.iterations, [&] { execute(batch, inputs, outputs); });
  return timings;
}

std::unique_ptr<Backend> createBackend(Device device, std::shared_ptr<const Plan> plan, const DeviceOptions &options) {
  switch (device) {
  case Device::Cuda:
    try {
      return std::make_unique<cuda::CudaBackend>(std::move(plan), options);
    } catch (const cuda::CudaUnavailable &unavailable) {
      throw Error(std::string("cannot run on CUDA: ") + unavailable.what());
    }
  case Device::Auto:
    return createAuto(std::move(plan), options);
  case Device::Cpu:
    return std::make_unique<cpu::CpuBackend>(std::move(plan));
  }
  throw Error("unknown device");
}

} // namespace fusec::runtime
