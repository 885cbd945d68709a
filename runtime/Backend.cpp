//===- Backend.cpp - Choosing a backend for a device ------------------------===//

#include "runtime/Backend.h"

#include "runtime/Error.h"
#include "runtime/cpu/CpuBackend.h"

namespace fusec::runtime {

std::unique_ptr<Backend> createBackend(Device device,
                                       std::shared_ptr<const Plan> plan) {
  switch (device) {
  case Device::Cuda:
    throw Error("CUDA backend is not available yet");
  case Device::Auto:
  case Device::Cpu:
    return std::make_unique<cpu::CpuBackend>(std::move(plan));
  }
  throw Error("unknown device");
}

} // namespace fusec::runtime
