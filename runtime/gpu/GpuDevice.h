//===- GpuDevice.h - What the GPU backend needs from a device -------------===//
//
// The GPU backend (GpuBackend) runs a plan's Schedule: it lays out device
// memory, captures and replays graphs, stages host steps and orders its
// stream with a caller's. Everything it asks of the device goes through this
// interface, which is small enough to implement on any driver with streams
// (CUDA's driver API in runtime/cuda/; a CPU-hosted test double in the unit
// tests). A new kind of GPU is one new driver folder: a GpuDevice, a kernel
// loader for the image format it runs, and a line registering its backend.
//
// One GpuDevice object stands for one opened device and is shared by every
// session on it (the plan's weights are uploaded once per device object), so
// its methods must be safe to call from several threads at once. Each
// session works on streams of its own.
//
// Handles (Stream, Event, Graph) are opaque to the backend: the driver's own
// objects (a CUstream, a CUevent, a CUgraphExec for CUDA). Failures throw
// Error naming the driver call and the work, which `where` describes; the
// description is built only when a call fails.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_GPUDEVICE_H
#define FUSEC_RUNTIME_GPU_GPUDEVICE_H

#include "runtime/Device.h"
#include "runtime/Error.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/gpu/Where.h"
#include "runtime/plan/Plan.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fusec::runtime::gpu {

/// An address in device memory (0: none).
using DevicePtr = uint64_t;
/// A driver's stream: work on one stream runs in order.
using Stream = void *;
/// A driver's event: a point in a stream's work.
using Event = void *;
/// A driver's executable graph: captured work replayed as a unit.
using Graph = void *;

/// The device cannot be used here: no driver library, a driver that fails to
/// initialize, or no such device. Device "auto" falls back to the CPU on
/// this error and on no other.
class GpuUnavailable : public Error {
public:
  using Error::Error;
};

/// A plan's device kernels (and the vendor libraries its library variants
/// call), loaded onto one device: IREE's HAL calls this an executable.
class DeviceExecutable {
public:
  virtual ~DeviceExecutable() = default;

  /// Enqueues `step` (a launch of one of the plan's device kernels) on
  /// `stream`. `args` holds step.pointerCount() device addresses: each of
  /// step.args, then a split step's partial sums and tile counters; the
  /// kernel's last parameter is step.batch.
  virtual void launch(const LaunchStep &step, const DevicePtr *args, Stream stream, Where where) const = 0;
  /// How many kernels the driver compiled from a portable image (PTX) at
  /// load time, rather than loading a binary built for the device.
  virtual size_t jitCompiled() const { return 0; }
  /// Whether launch() runs `variant` of kernel `kernel`, a library variant
  /// (KernelDesc::libraryOf): its library was loaded with the kernels and
  /// can compute it here (cuDNN has an engine for the convolution).
  virtual bool runsLibraryVariant(size_t kernel, size_t variant) const {
    (void)kernel;
    (void)variant;
    return false;
  }
  /// Why some of the plan's library variants cannot run here, "; "-separated
  /// ("" if all can, or the plan has none): "cannot load cuBLASLt
  /// 'libcublasLt.so.13': ...", "cuDNN has no engine for 2 convolution
  /// kernels (sk3_conv: ...)".
  virtual std::string libraryUnavailable() const { return ""; }
};

class GpuDevice {
public:
  virtual ~GpuDevice() = default;

  /// The backend's name: "cuda".
  virtual std::string name() const = 0;
  /// The device, for messages: "NVIDIA H200 (sm_90)".
  virtual std::string describeDevice() const = 0;
  /// What a kernel's speed depends on besides its code, for the tuning
  /// cache's keys: the device and driver ("NVIDIA H200 (sm_90), driver
  /// 13.0").
  virtual std::string performanceIdentity() const { return describeDevice(); }
  /// The device's streaming multiprocessors: the runtime splits the k-range
  /// of split-K kernels whose tiles leave some idle (support/SplitK.h).
  virtual int multiprocessorCount() const = 0;

  /// Makes the device usable by this thread's calls and returns what to
  /// give back to leave() (CUDA: the caller's current context, replaced by
  /// the device's). A session may be used from any thread; every entry
  /// point enters first (see DeviceScope).
  virtual void *enter() const = 0;
  /// Puts back what enter() replaced. Cannot fail.
  virtual void leave(void *saved) const noexcept = 0;

  // Memory. A driver never sees 0-byte requests.
  virtual DevicePtr allocate(uint64_t bytes, Where where) const = 0;
  virtual void free(DevicePtr address) const noexcept = 0;
  /// Page-locked host memory the device reads and writes asynchronously.
  virtual void *allocateHost(size_t bytes, Where where) const = 0;
  virtual void freeHost(void *address) const noexcept = 0;

  /// Loads every device kernel of `plan` (whose lifetime must exceed the
  /// result's), and the vendor libraries its library variants call, from
  /// where `options` says. Throws Error naming the kernel if an image does
  /// not load; a library that does not load leaves its variants unrunnable
  /// (DeviceExecutable::libraryUnavailable), since every kernel has a compiled form.
  virtual std::unique_ptr<DeviceExecutable> loadKernels(const Plan &plan, const DeviceOptions &options) const = 0;

  // Streams, and the work enqueued on them.
  virtual Stream createStream(Where where) const = 0;
  virtual void destroyStream(Stream stream) const noexcept = 0;
  /// Blocks the host until `stream`'s work has finished; also where an
  /// earlier asynchronous failure (a kernel's bad address) is reported.
  virtual void synchronize(Stream stream, Where where) const = 0;
  /// Whether all of `stream`'s work has finished, without blocking (CUDA:
  /// cuStreamQuery); an earlier asynchronous failure throws, as in
  /// synchronize().
  virtual bool finished(Stream stream, Where where) const = 0;
  virtual void copyHostToDevice(DevicePtr destination, const void *source, size_t bytes, Stream stream,
                                Where where) const = 0;
  virtual void copyDeviceToHost(void *destination, DevicePtr source, size_t bytes, Stream stream,
                                Where where) const = 0;
  virtual void copyDeviceToDevice(DevicePtr destination, DevicePtr source, size_t bytes, Stream stream,
                                  Where where) const = 0;
  /// Sets `bytes` bytes at `destination` (any alignment) to zero.
  virtual void zero(DevicePtr destination, size_t bytes, Stream stream, Where where) const = 0;
  /// `stream`'s later work waits, without blocking the host, until the
  /// word at `flag` (in allocateHost memory) is >= `value`.
  virtual void waitForHostFlag(Stream stream, const volatile uint32_t *flag, uint32_t value, Where where) const = 0;

  // Graphs: the work enqueued on a stream between beginCapture and
  // endCapture is recorded instead of run, and replayed by launchGraph.
  virtual void beginCapture(Stream stream, Where where) const = 0;
  /// The recorded work, ready to launch.
  virtual Graph endCapture(Stream stream, Where where) const = 0;
  /// Ends a capture that failed part way, leaving the stream usable.
  virtual void abandonCapture(Stream stream) const noexcept = 0;
  virtual void launchGraph(Graph graph, Stream stream, Where where) const = 0;
  virtual void destroyGraph(Graph graph) const noexcept = 0;

  // Events.
  virtual Event createEvent(Where where) const = 0;
  virtual void destroyEvent(Event event) const noexcept = 0;
  virtual void recordEvent(Event event, Stream stream, Where where) const = 0;
  /// `stream`'s later work waits for the work before the event's last
  /// record, without blocking the host.
  virtual void waitEvent(Stream stream, Event event, Where where) const = 0;
  /// Milliseconds between two recorded events whose work has finished.
  virtual double elapsedMilliseconds(Event start, Event end, Where where) const = 0;
};

/// Enters a driver's device for a scope (GpuDevice::enter/leave).
class DeviceScope {
public:
  explicit DeviceScope(const GpuDevice &driver) : driver_(driver), saved_(driver.enter()) {}
  ~DeviceScope() { driver_.leave(saved_); }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  const GpuDevice &driver_;
  void *saved_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_GPUDEVICE_H
