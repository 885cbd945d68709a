//===- HostStaging.h - Pinned host buffers for a run's inputs and outputs ---===//
//
// Copies between pageable host memory and the device are staged by the
// driver through its own pinned buffers, synchronously and at a fraction of
// the bus bandwidth. A session copies the caller's inputs into one pinned
// buffer of its own (a plain memcpy), lets the device read them from there
// asynchronously, writes the outputs back into it, and copies them out to
// the caller once the stream is done.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_HOSTSTAGING_H
#define FUSEC_RUNTIME_GPU_HOSTSTAGING_H

#include "runtime/gpu/DeviceMemory.h"
#include "runtime/gpu/Schedule.h"

#include <vector>

namespace fusec::runtime::gpu {

/// Where each input and output of a schedule sits in the staging buffer:
/// the caller's rows only (the padding rows of a bucket never leave the
/// device), each tensor 64-byte aligned.
struct StagingLayout {
  std::vector<size_t> inputOffsets;
  std::vector<size_t> outputOffsets;
  size_t bytes = 0;
};

StagingLayout layoutStaging(const Schedule &schedule);

/// The caller's bytes of a transfer: its blocks of caller rows.
inline size_t callerBytes(const IoTransfer &transfer) {
  return static_cast<size_t>(transfer.blocks * transfer.hostBlockBytes);
}

/// A session's staging buffer, grown when a schedule needs more.
class HostStaging {
public:
  explicit HostStaging(const GpuDevice &driver) : driver_(driver) {}

  /// Copies the caller's inputs into the staging buffer and returns where
  /// they are, in plan order, for enqueueInputs. The stream must be idle:
  /// the buffer may be replaced.
  std::vector<const void *> stageInputs(const Schedule &schedule, const std::vector<const void *> &inputs);
  /// Where enqueueOutputs writes each output, in plan order (after
  /// stageInputs for the same schedule).
  std::vector<void *> outputSlots(const Schedule &schedule);
  /// Copies the outputs from the staging buffer to the caller, once the
  /// stream has finished the copies enqueueOutputs made.
  void unstageOutputs(const Schedule &schedule, const std::vector<void *> &outputs) const;

private:
  const GpuDevice &driver_;
  PinnedBuffer buffer_;
  StagingLayout layout_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_HOSTSTAGING_H
