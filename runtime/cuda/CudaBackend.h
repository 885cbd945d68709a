//===- CudaBackend.h - Run a plan on an NVIDIA GPU through the driver API ---===//
//
// Device memory: the weights (uploaded once) and one workspace holding the
// arena and static input/output buffers for the largest batch bucket. A run
// copies its inputs in (zeroing the padding rows of a bucket), replays the
// bucket's CUDA graphs, or launches kernels directly, with host steps in
// between, and copies the caller's rows of the outputs out. Batches above
// the largest bucket run ungraphed in a second workspace, grown on demand,
// so that the graphs' addresses stay valid.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUDABACKEND_H
#define FUSEC_RUNTIME_CUDA_CUDABACKEND_H

#include "runtime/Backend.h"
#include "runtime/Schedule.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/DeviceMemory.h"
#include "runtime/cuda/DeviceWeights.h"
#include "runtime/cuda/Enqueue.h"
#include "runtime/cuda/Event.h"
#include "runtime/cuda/GraphCache.h"
#include "runtime/cuda/HostStaging.h"
#include "runtime/cuda/KernelModules.h"

#include <map>
#include <memory>
#include <optional>

namespace fusec::runtime::cuda {

/// The first device kernel that cannot run on a GPU (it has no image:
/// a plan compiled with --target=cpu), or nullptr.
const KernelDesc *firstKernelWithoutImage(const Plan &plan);

class CudaBackend final : public Backend {
public:
  /// Throws Error if the plan has no GPU kernels, CudaUnavailable if the
  /// driver or the device is missing, and Error on any other failure.
  CudaBackend(std::shared_ptr<const Plan> plan, const DeviceOptions &options);
  ~CudaBackend() override;

  Device device() const override { return Device::Cuda; }
  void execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) override;
  /// Inputs and outputs in device memory; `stream` a CUstream of the
  /// session's device (primary context) or null. The session's stream
  /// waits for `stream`'s earlier work (an event), runs, and `stream`'s
  /// later work waits for the run: no host synchronization, except that a
  /// plan with host steps waits for the work before each one.
  void executeOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                       void *stream) override;
  RunTimings time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                  const TimingOptions &options) override;

private:
  /// What a run at some batch executes, and where.
  struct Prepared {
    const Schedule *schedule = nullptr;
    DeviceRegions regions;
    /// One per segment when graphed, else null.
    const std::vector<CUgraphExec> *graphs = nullptr;
  };
  /// Events around the phases of one run, for time().
  struct RunEvents;

  Prepared prepare(int64_t batch);
  void run(const Prepared &prepared, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
           RunEvents *events);
  /// The segments (graph replays or launches) with the host steps between
  /// them, on the session's stream.
  void enqueueExecution(const Prepared &prepared);
  /// Grows the host steps' pinned scratch memory to the schedule's need,
  /// after the work that may still read the old one.
  void reserveHostScratch(const Schedule &schedule);
  /// Milliseconds per iteration of every device step launched on its own.
  std::vector<double> timeDeviceSteps(const Prepared &prepared, int iterations);

  std::shared_ptr<const Plan> plan_;
  DeviceOptions options_;
  std::vector<int64_t> buckets_;
  // Declared (so constructed) in dependency order; destroyed in reverse,
  // with the context last.
  CudaContext context_;
  /// The session's context is current (and the caller's put back after)
  /// while the members below are made and while they are destroyed.
  std::optional<ScopedCurrentContext> constructing_;
  KernelModules modules_;
  /// Shared with every other session of this plan on this device.
  std::shared_ptr<const DeviceWeights> weights_;
  WorkspaceLayout layout_;
  DeviceBuffer workspace_;
  GraphCache graphs_;
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
  std::optional<Event> callerReady_, runDone_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDABACKEND_H
