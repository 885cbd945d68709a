//===- HostGpuDevice.h - A CPU-hosted implementation of gpu::GpuDevice ------===//
//
// A second GPU driver, in process, with host memory for device memory: the
// GPU backend (gpu::GpuBackend) runs every plan on it exactly as it runs on
// CUDA (schedules, graph capture and replay, staging, padding rows, host
// steps, event joins with a caller's stream, the timing gate), so all of that
// is tested on machines without a GPU. It is also the proof of the seam: a
// new GPU is a GpuDevice and one registerGpuBackend line.
//
// What it checks, beyond the results:
//  * memory starts filled with a chosen byte (0xCD; NaN bytes for the
//    emulation tests), so a read of bytes nobody wrote spoils the results;
//  * every copy, zeroing and kernel argument must lie inside one live
//    allocation (the argument with its buffer's bytes at the run batch);
//  * streams run nothing until the host waits, and then interleave the
//    pending work of every stream one command at a time, so work the
//    backend left unordered runs out of order; waiting on an event or a
//    host flag that can never be reached is an error, not a hang;
//  * the device must be entered (GpuDevice::enter) for every call that
//    creates, enqueues or loads, and no stream may be synchronized while it
//    is being captured.
// Kernels run through a HostKernelRunner: the CPU interpreter over each
// kernel's ops by default, or the emulated CUDA text (the codegen tests).
// Time is virtual: every command executed advances a clock by 1 µs (a
// launch by what HostGpuOptions::launchMicroseconds says), so events
// measure how much work lay between them.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_HOSTGPUDEVICE_H
#define FUSEC_TEST_UNIT_RUNTIME_HOSTGPUDEVICE_H

#include "runtime/gpu/GpuDevice.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusec::test {

/// Runs one kernel launch on host memory.
class HostKernelRunner {
public:
  virtual ~HostKernelRunner() = default;
  /// `args[i]` is the host address of step.args[i] (the kernel's inputs,
  /// then its outputs) and `bytes[i]` that buffer's size at the run batch.
  virtual void run(const runtime::Plan &plan, const runtime::LaunchStep &step, const std::vector<void *> &args,
                   const std::vector<size_t> &bytes) const = 0;
};

/// Runs each kernel's ops through the CPU interpreter (what the CPU backend
/// computes), ignoring the grid.
std::shared_ptr<const HostKernelRunner> interpretingKernelRunner();

struct HostGpuOptions {
  /// The backend name the driver reports.
  std::string name = "host-gpu";
  /// What fresh device and pinned memory is filled with.
  uint8_t fill = 0xCD;
  /// Null: interpretingKernelRunner().
  std::shared_ptr<const HostKernelRunner> runner;
  /// The virtual time a launch takes, in µs (null: 1 µs, as every other
  /// command), so that tests can make some kernels or variants slower.
  std::function<double(const runtime::Plan &, const runtime::LaunchStep &)> launchMicroseconds;
  /// The SMs the device reports (an H200's), which split-K launches split for.
  int multiprocessors = 132;
  /// Whether the plan's library variants run (computed from their
  /// description, HostLibraryCalls.h), as if their libraries had loaded.
  bool runsLibraryVariants = false;
};

/// What the driver did, for tests that check how the backend used it.
struct HostGpuCounters {
  size_t kernelLaunches = 0;
  size_t graphLaunches = 0;
  size_t captures = 0;
  size_t hostSynchronizations = 0;
  size_t liveAllocations = 0;
  size_t liveStreams = 0;
  size_t liveGraphs = 0;
  size_t liveEvents = 0;
  /// Calls that free or destroy made outside an entered device.
  size_t callsOutsideDevice = 0;
};

/// A new driver object: one simulated device.
std::shared_ptr<runtime::gpu::GpuDevice> makeHostGpuDevice(const HostGpuOptions &options = {});

/// The counters of a driver made by makeHostGpuDevice.
HostGpuCounters hostGpuCounters(const runtime::gpu::GpuDevice &driver);

/// Registers the backend "host-gpu" (once per process): a GPU backend over
/// one shared host driver with the default options, which it returns.
std::shared_ptr<runtime::gpu::GpuDevice> registerHostGpuBackend();

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_RUNTIME_HOSTGPUDEVICE_H
