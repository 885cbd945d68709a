//===- HostSteps.h - Run a "host" kernel between a GPU run's segments -------===//
//
// A host step runs on the CPU in the middle of a GPU run: the buffers it
// reads come from the device, its ops run through the CPU reference ops at
// the run batch, and the buffers it writes go back before the next segment.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_HOSTSTEPS_H
#define FUSEC_RUNTIME_GPU_HOSTSTEPS_H

#include "runtime/gpu/Enqueue.h"
#include "runtime/gpu/Schedule.h"

namespace fusec::runtime::gpu {

/// Runs `step` after the work already on the stream and enqueues its
/// uploads ahead of whatever comes next. `scratch` (pinned host memory)
/// holds at least the schedule's hostScratchBytes; the uploads read it
/// asynchronously, so nothing may write it before the stream has caught up
/// (the next host step synchronizes before its ops run, a run ends with a
/// synchronize).
void runHostStep(const GpuDevice &driver, Stream stream, const Plan &plan, const HostStep &step,
                 const DeviceRegions &regions, const RunMode &mode, uint8_t *scratch);

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_HOSTSTEPS_H
