//===- Backend.h - The interface between a Session and a device -------------===//
//
// A backend executes a plan's kernels on one device. The Session checks
// inputs and owns the host tensors; the backend owns everything
// device-specific (arena memory, compiled kernels, graphs per batch bucket)
// and moves data between the host buffers and the device. Backends are
// registered by name (BackendRegistry.h); every GPU is the one schedule
// runner, gpu::GpuBackend, over its own GpuDevice.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_BACKEND_H
#define FUSEC_RUNTIME_BACKEND_H

#include "runtime/Device.h"
#include "runtime/Timing.h"
#include "runtime/plan/Plan.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime {

/// What Backend::time() measures.
struct TimingOptions {
  /// Untimed runs first.
  int warmup = 0;
  int iterations = 1;
  /// GPU only: also time every device step (kernel or copy) on its own.
  bool deviceSteps = false;
};

/// Timings of repeated runs, each summarized over the timed iterations.
struct RunTimings {
  /// How the runs executed ("bucket 4, graph"); empty on the CPU.
  std::string mode;
  /// Whole runs: inputs in, execution, outputs out. Device time between
  /// CUDA events on a GPU, the host's wall clock on the CPU.
  TimingSummary run;
  /// GPU only: the execution alone (graph replays or kernel launches, and
  /// host steps), without the copies in and out.
  std::optional<TimingSummary> execute;
  /// GPU only, if asked for: per iteration, the sum of every device step
  /// timed on its own, back to back on a stream that was held until all of
  /// them were enqueued: the execution without launch overhead or gaps.
  std::optional<TimingSummary> deviceSteps;
  size_t deviceStepCount = 0;
  /// False where nothing held the stream while the steps were enqueued
  /// (DeviceOptions::timingGate): each step's time may include its launch.
  bool deviceStepsHeld = true;
};

/// How one kernel's variant was chosen for one run batch (GPU backends,
/// for plans whose kernels carry variants: fuserun --tune).
struct KernelTuning {
  std::string kernel;
  int64_t batch = 1;
  /// Each variant's config, variant 0 (the compiler's choice) first.
  std::vector<std::string> configs;
  /// Each variant's time per launch; empty when the choice came from the
  /// tuning cache.
  std::vector<double> milliseconds;
  size_t chosen = 0;
  bool fromCache = false;
};

class Backend {
public:
  virtual ~Backend() = default;

  /// The backend's registered name ("cpu", "cuda"; never "auto").
  virtual std::string name() const = 0;

  /// Runs every kernel of the plan at `batch`. `inputs[i]` holds the data of
  /// plan input i and `outputs[i]` receives plan output i, both host memory
  /// in C order with the shapes of the plan resolved at `batch`, each in its
  /// tensor's element type.
  virtual void execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) = 0;
  /// Runs like execute() on buffers in the device's own memory (CUDA device
  /// pointers; host memory for the CPU backend), ordered after the work
  /// already on `stream` (a CUstream for CUDA; null: the call returns when
  /// the run has finished). With a stream it returns once the run is
  /// enqueued; the caller's later work on `stream` sees the outputs. This
  /// default throws Error: the backend cannot.
  virtual void executeOnDevice(int64_t batch, const std::vector<const void *> &inputs,
                               const std::vector<void *> &outputs, void *stream);

  /// Runs like execute(), first untimed, then timed, as `options` say.
  /// This default times each run with the host's wall clock.
  virtual RunTimings time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                          const TimingOptions &options);

  /// The variant choices made so far (each run batch's at its first run),
  /// in the order they were made. None on backends without variants.
  virtual std::vector<KernelTuning> tuning() const { return {}; }
};

/// The built-in backend for `device`: createBackend(deviceName(device), ...)
/// (BackendRegistry.h), which also takes the names of registered backends.
std::unique_ptr<Backend> createBackend(Device device, std::shared_ptr<const Plan> plan,
                                       const DeviceOptions &options = {});

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_BACKEND_H
