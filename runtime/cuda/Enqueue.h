//===- Enqueue.h - Put a schedule's device work on the session's stream -----===//
//
// The only place Schedule entries become driver calls. The same calls serve
// plain launches and graph capture: while the stream is being captured they
// record graph nodes instead of running.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_ENQUEUE_H
#define FUSEC_RUNTIME_CUDA_ENQUEUE_H

#include "runtime/Schedule.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/KernelModules.h"

#include <vector>

namespace fusec::runtime::cuda {

/// The device addresses of the two memory regions a schedule refers to.
struct DeviceRegions {
  CUdeviceptr weights = 0;
  CUdeviceptr workspace = 0;

  CUdeviceptr at(const DeviceAddress &address) const {
    return (address.region == Region::Weights ? weights : workspace) + address.offset;
  }
};

/// Where the caller's input and output buffers are: host memory (pinned
/// staging, see HostStaging.h) or device memory of the session's device.
enum class CallerMemory { Host, Device };

/// Copies every input from caller memory into its static device buffer and
/// zeroes the padding rows up to the run batch.
void enqueueInputs(const CudaContext &context, const Plan &plan, const Schedule &schedule, const DeviceRegions &regions,
                   const std::vector<const void *> &inputs, CallerMemory memory = CallerMemory::Host);

/// Copies the caller's rows of every output back into caller memory.
void enqueueOutputs(const CudaContext &context, const Plan &plan, const Schedule &schedule,
                    const DeviceRegions &regions, const std::vector<void *> &outputs,
                    CallerMemory memory = CallerMemory::Host);

/// Launches a kernel or starts a copy.
void enqueueStep(const CudaContext &context, const KernelModules &modules, const Plan &plan, const DeviceStep &step,
                 const DeviceRegions &regions, const RunMode &mode);

void enqueueSegment(const CudaContext &context, const KernelModules &modules, const Plan &plan, const Segment &segment,
                    const DeviceRegions &regions, const RunMode &mode);

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_ENQUEUE_H
