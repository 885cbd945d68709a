//===- Enqueue.h - Put a schedule's device work on a stream -----------------===//
//
// The only place Schedule entries become driver calls. The same calls serve
// plain launches and graph capture: while the stream is being captured they
// record graph nodes instead of running.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_ENQUEUE_H
#define FUSEC_RUNTIME_GPU_ENQUEUE_H

#include "runtime/gpu/GpuDevice.h"
#include "runtime/gpu/Schedule.h"

#include <vector>

namespace fusec::runtime::gpu {

/// The device addresses of the two memory regions a schedule refers to.
struct DeviceRegions {
  DevicePtr weights = 0;
  DevicePtr workspace = 0;

  DevicePtr at(const DeviceAddress &address) const {
    return (address.region == Region::Weights ? weights : workspace) + address.offset;
  }
};

/// Where the caller's input and output buffers are: host memory (pinned
/// staging, see HostStaging.h) or device memory of the session's device.
enum class CallerMemory { Host, Device };

/// What enqueued work runs on: a driver, the plan's kernels on its device,
/// and a stream.
struct StreamTarget {
  const GpuDevice &driver;
  const DeviceExecutable &kernels;
  Stream stream;
};

/// Copies every input from caller memory into its static device buffer and
/// zeroes the padding rows up to the run batch.
void enqueueInputs(const StreamTarget &target, const Plan &plan, const Schedule &schedule, const DeviceRegions &regions,
                   const std::vector<const void *> &inputs, CallerMemory memory = CallerMemory::Host);

/// Copies the caller's rows of every output back into caller memory.
void enqueueOutputs(const StreamTarget &target, const Plan &plan, const Schedule &schedule,
                    const DeviceRegions &regions, const std::vector<void *> &outputs,
                    CallerMemory memory = CallerMemory::Host);

/// Launches a kernel or starts a copy.
void enqueueStep(const StreamTarget &target, const Plan &plan, const DeviceStep &step, const DeviceRegions &regions,
                 const RunMode &mode);

void enqueueSegment(const StreamTarget &target, const Plan &plan, const Segment &segment, const DeviceRegions &regions,
                    const RunMode &mode);

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_ENQUEUE_H
