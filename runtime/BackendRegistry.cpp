//===- BackendRegistry.cpp - Backends by name -------------------------------===//

#include "runtime/BackendRegistry.h"

#include "runtime/Error.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/gpu/GpuBackend.h"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace fusec::runtime {

namespace {

struct Registration {
  std::string name;
  BackendFactory factory;
};

class Registry {
public:
  Registry() {
    add("cpu", [](std::shared_ptr<const Plan> plan, const DeviceOptions &) {
      return std::make_unique<cpu::CpuBackend>(std::move(plan));
    });
    add("cuda", gpuFactory("cuda", [](const DeviceOptions &options) -> std::shared_ptr<const gpu::GpuDevice> {
          return cuda::CudaDevice::open(options);
        }));
  }

  void add(const std::string &name, BackendFactory factory) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (name == deviceName(Device::Auto) || !isIdentifier(name))
      throw Error("cannot register a backend named '" + name + "': names are lowercase identifiers, and not 'auto'");
    for (const Registration &registration : registrations_)
      if (registration.name == name)
        throw Error("a backend named '" + name + "' is already registered");
    registrations_.push_back({name, std::move(factory)});
  }

  /// The factory, or null.
  BackendFactory find(const std::string &name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Registration &registration : registrations_)
      if (registration.name == name)
        return registration.factory;
    return nullptr;
  }

  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> result;
    result.reserve(registrations_.size());
    for (const Registration &registration : registrations_)
      result.push_back(registration.name);
    return result;
  }

  static BackendFactory gpuFactory(const std::string &name, GpuDeviceOpener open) {
    return [name, open = std::move(open)](std::shared_ptr<const Plan> plan, const DeviceOptions &options) {
      // Before touching the driver: a plan for the CPU is not a device
      // problem, and must not fall back silently.
      gpu::checkPlanHasGpuImages(*plan, name);
      std::shared_ptr<const gpu::GpuDevice> driver = open(options);
      return std::unique_ptr<Backend>(std::make_unique<gpu::GpuBackend>(std::move(plan), std::move(driver), options));
    };
  }

private:
  static bool isIdentifier(const std::string &name) {
    if (name.empty() || name[0] < 'a' || name[0] > 'z')
      return false;
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
        return false;
    return true;
  }

  mutable std::mutex mutex_;
  std::vector<Registration> registrations_;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

/// Device "auto" explains a fall back to the CPU on stderr, once per
/// process and reason: a program that opens many sessions should not repeat
/// it.
void noteOnce(const std::string &note) {
  static std::mutex mutex;
  static std::set<std::string> printed;
  std::lock_guard<std::mutex> lock(mutex);
  if (printed.insert(note).second)
    std::cerr << "fusec: " << note << "\n";
}

std::unique_ptr<Backend> createAuto(std::shared_ptr<const Plan> plan, const DeviceOptions &options) {
  const std::string cpu = deviceName(Device::Cpu);
  if (gpu::firstKernelWithoutImage(*plan)) {
    noteOnce("plan '" + plan->sourceName() + "' has no GPU kernels (target '" + plan->manifest().target +
             "'); running on the CPU");
    return createBackend(cpu, std::move(plan), options);
  }
  try {
    return registry().find(deviceName(Device::Cuda))(plan, options);
  } catch (const gpu::GpuUnavailable &unavailable) {
    noteOnce(std::string("CUDA is unavailable (") + unavailable.what() + "); running on the CPU");
    return createBackend(cpu, std::move(plan), options);
  }
}

} // namespace

void registerBackend(const std::string &name, BackendFactory factory) { registry().add(name, std::move(factory)); }

void registerGpuBackend(const std::string &name, GpuDeviceOpener open) {
  registry().add(name, Registry::gpuFactory(name, std::move(open)));
}

std::vector<std::string> backendNames() { return registry().names(); }

std::string describeDeviceNames() {
  std::string names;
  for (const std::string &name : backendNames())
    names += name + ", ";
  if (names.size() >= 2)
    names.resize(names.size() - 2);
  return names + " or " + deviceName(Device::Auto);
}

bool isDeviceName(const std::string &name) {
  return name == deviceName(Device::Auto) || registry().find(name) != nullptr;
}

std::unique_ptr<Backend> createBackend(const std::string &name, std::shared_ptr<const Plan> plan,
                                       const DeviceOptions &options) {
  if (name == deviceName(Device::Auto))
    return createAuto(std::move(plan), options);
  BackendFactory factory = registry().find(name);
  if (!factory) {
    throw Error("unknown device '" + name + "' (expected " + describeDeviceNames() + ")");
  }
  try {
    return factory(std::move(plan), options);
  } catch (const gpu::GpuUnavailable &unavailable) {
    throw Error("cannot run on " + name + ": " + unavailable.what());
  }
}

} // namespace fusec::runtime
