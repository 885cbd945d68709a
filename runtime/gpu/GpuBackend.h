//===- GpuBackend.h - Run a plan's schedule on a GPU through a GpuDevice ----===//
//
// Device memory: the weights (uploaded once per device, see DeviceWeights)
// and one workspace holding the arena and static input/output buffers for
// the largest batch bucket. A run copies its inputs in (zeroing the padding
// rows of a bucket), replays the bucket's graphs, or launches kernels
// directly, with host steps in between, and copies the caller's rows of the
// outputs out. Batches above the largest bucket run ungraphed in a second
// workspace, grown on demand, so that the graphs' addresses stay valid.
// Kernels with compiled variants run the variant the VariantTuner chose for
// the run batch (runs above the largest bucket: the compiler's choice).
//
// Nothing here knows which GPU it drives: every device call goes through the
// GpuDevice the backend was made with (CUDA's, or a test double).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_GPUBACKEND_H
#define FUSEC_RUNTIME_GPU_GPUBACKEND_H

#include "runtime/Backend.h"
#include "runtime/gpu/DeviceMemory.h"
#include "runtime/gpu/DeviceWeights.h"
#include "runtime/gpu/Enqueue.h"
#include "runtime/gpu/GpuDevice.h"
#include "runtime/gpu/GraphCache.h"
#include "runtime/gpu/HostStaging.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/gpu/StreamObjects.h"
#include "runtime/gpu/VariantTuner.h"

#include <map>
#include <memory>
#include <optional>

namespace fusec::runtime::gpu {

/// The first device kernel that cannot run on a GPU (it has no image:
/// a plan compiled with --target=cpu), or nullptr.
const KernelDesc *firstKernelWithoutImage(const Plan &plan);

/// Throws Error, naming `backend`, if `plan` has a device kernel without a
/// GPU image. Backends call it before they open their driver.
void checkPlanHasGpuImages(const Plan &plan, const std::string &backend);

class GpuBackend final : public Backend {
public:
  /// Throws Error if the plan has no GPU kernels or anything fails on the
  /// device.
  GpuBackend(std::shared_ptr<const Plan> plan, std::shared_ptr<const GpuDevice> driver, const DeviceOptions &options);
  ~GpuBackend() override;

  std::string name() const override { return driver_->name(); }
  void execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) override;
  /// Inputs and outputs in device memory; `stream` a stream of the driver's
  /// device (a CUstream for CUDA) or null. The session's stream waits for
  /// `stream`'s earlier work (an event), runs, and `stream`'s later work
  /// waits for the run: no host synchronization, except that a plan with
  /// host steps waits for the work before each one.
  void executeOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                       void *stream) override;
  RunTimings time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                  const TimingOptions &options) override;

  std::vector<KernelTuning> tuning() const override;

  const GpuDevice &driver() const { return *driver_; }
  /// How many kernels were compiled at load time from a portable image.
  size_t jitCompiled() const { return kernels_->jitCompiled(); }

private:
  /// What a run at some batch executes, and where.
  struct Prepared {
    const Schedule *schedule = nullptr;
    DeviceRegions regions;
    /// One per segment when graphed, else null.
    const std::vector<Graph> *graphs = nullptr;
  };
  /// Events around the phases of one run, for time().
  struct RunEvents;

  StreamTarget target() const { return StreamTarget{*driver_, *kernels_, stream_.get()}; }
  Prepared prepare(int64_t batch);
  /// Zeroes the split-K tile counters of a newly allocated workspace.
  void zeroSplitCounters(const DeviceBuffer &workspace, const WorkspaceLayout &layout);
  /// The kernel variants runs at mode.runBatch in the main workspace use:
  /// chosen (from the tuning cache, or timed on `regions` when tuning) the
  /// first time that batch runs.
  const VariantChoice &variantsAt(const RunMode &mode, const DeviceRegions &regions);
  void run(const Prepared &prepared, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
           RunEvents *events);
  /// The segments (graph replays or launches) with the host steps between
  /// them, on the session's stream.
  void enqueueExecution(const Prepared &prepared);
  /// Grows the host steps' pinned scratch memory to the schedule's need,
  /// after the work that may still read the old one.
  void reserveHostScratch(const Schedule &schedule);
  /// Whether the stream gate of timeDeviceSteps and the tuner holds the
  /// stream (DeviceOptions::timingGate; Auto probes the driver once).
  bool gateHolds();
  /// One line on stderr when library variants the plan or the tactics
  /// would run cannot run here (their library did not load).
  void reportUnrunnableLibraries() const;
  /// Milliseconds per iteration of every device step launched on its own.
  std::vector<double> timeDeviceSteps(const Prepared &prepared, int iterations);
  void synchronize(const std::string &where) const { driver_->synchronize(stream_.get(), where); }

  std::shared_ptr<const Plan> plan_;
  std::shared_ptr<const GpuDevice> driver_;
  DeviceOptions options_;
  std::vector<int64_t> buckets_;
  /// The device is entered while the members below are made and while
  /// they are destroyed (they are declared in dependency order and
  /// destroyed in reverse).
  std::optional<DeviceScope> constructing_;
  OwnedStream stream_;
  std::unique_ptr<DeviceExecutable> kernels_;
  /// Shared with every other session of this plan on this device.
  std::shared_ptr<const DeviceWeights> weights_;
  WorkspaceLayout layout_;
  DeviceBuffer workspace_;
  GraphCache graphs_;
  /// Chooses kernel variants; only for plans that have some.
  std::optional<VariantTuner> tuner_;
  /// Each kernel's variant unless tuned or cached (untunedVariants).
  VariantChoice untuned_;
  std::optional<bool> gateHolds_;
  /// The variants chosen per run batch.
  std::map<int64_t, VariantChoice> variants_;
  /// Schedules in the main workspace, by run batch.
  std::map<int64_t, Schedule> schedules_;
  /// Runs above the largest bucket.
  WorkspaceLayout overflowLayout_;
  DeviceBuffer overflow_;
  std::optional<Schedule> overflowSchedule_;
  /// Pinned memory for the host steps' buffers, grown on demand.
  PinnedBuffer hostScratch_;
  HostStaging staging_;
  /// Order the session's stream with a caller's (executeOnDevice).
  std::optional<OwnedEvent> callerReady_, runDone_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_GPUBACKEND_H
