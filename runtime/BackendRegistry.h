//===- BackendRegistry.h - Backends by name ---------------------------------===//
//
// A session runs on a backend chosen by name: "cpu" (the reference
// interpreter), "cuda" (the GPU backend over CUDA's driver API), any name a
// program registers (a GPU backend over a driver of its own, a test
// double), or "auto". The built-in backends are registered on first use of
// the registry; adding a GPU needs a GpuDevice and one registerGpuBackend
// line, nothing in the code that runs schedules.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_BACKENDREGISTRY_H
#define FUSEC_RUNTIME_BACKENDREGISTRY_H

#include "runtime/Backend.h"
#include "runtime/gpu/GpuDevice.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusec::runtime {

/// Makes a backend for a plan. Throws gpu::GpuUnavailable when the device
/// cannot be used here (device "auto" then falls back to the CPU), Error on
/// any other failure.
using BackendFactory = std::function<std::unique_ptr<Backend>(std::shared_ptr<const Plan>, const DeviceOptions &)>;

/// Opens the device a GPU backend runs on; drivers share one object per
/// device (see GpuDevice).
using GpuDeviceOpener = std::function<std::shared_ptr<const gpu::GpuDevice>(const DeviceOptions &)>;

/// Registers a backend. Throws Error if `name` is taken, is "auto" or is
/// not a lowercase identifier ([a-z][a-z0-9_-]*). Thread-safe.
void registerBackend(const std::string &name, BackendFactory factory);

/// Registers a GPU backend: the schedule runner (gpu::GpuBackend) over the
/// driver `open` returns. A plan without GPU images is refused before the
/// driver is opened.
void registerGpuBackend(const std::string &name, GpuDeviceOpener open);

/// The registered names, in registration order ("cpu", "cuda", ...).
std::vector<std::string> backendNames();

/// The names a session accepts, for messages: "cpu, cuda or auto".
std::string describeDeviceNames();

/// Whether `name` is "auto" or a registered backend.
bool isDeviceName(const std::string &name);

/// The backend `name` for `plan`. "auto" picks CUDA where the plan has GPU
/// kernels and the driver finds a device; otherwise it says why on stderr
/// (once per process and reason) and picks the CPU. Throws Error naming the
/// registered backends if `name` is none of them, and Error if the backend
/// cannot run the plan ("cannot run on cuda: ..." when the device is
/// unavailable).
std::unique_ptr<Backend> createBackend(const std::string &name, std::shared_ptr<const Plan> plan,
                                       const DeviceOptions &options = {});

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_BACKENDREGISTRY_H
