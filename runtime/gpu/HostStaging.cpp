//===- HostStaging.cpp - Pinned host buffers for a run's inputs and outputs -===//

#include "runtime/gpu/HostStaging.h"

#include <cstring>

namespace fusec::runtime::gpu {

namespace {

constexpr size_t kStagingAlignment = 64;

size_t alignUp(size_t value) { return (value + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment; }

} // namespace

StagingLayout layoutStaging(const Schedule &schedule) {
  StagingLayout layout;
  for (const IoTransfer &transfer : schedule.inputs) {
    layout.inputOffsets.push_back(layout.bytes);
    layout.bytes += alignUp(callerBytes(transfer));
  }
  for (const IoTransfer &transfer : schedule.outputs) {
    layout.outputOffsets.push_back(layout.bytes);
    layout.bytes += alignUp(callerBytes(transfer));
  }
  return layout;
}

std::vector<const void *> HostStaging::stageInputs(const Schedule &schedule, const std::vector<const void *> &inputs) {
  layout_ = layoutStaging(schedule);
  if (buffer_.bytes() < layout_.bytes) {
    buffer_ = PinnedBuffer(); // the old one goes first
    buffer_ = PinnedBuffer(driver_, layout_.bytes, "the staging buffer of the inputs and outputs");
  }
  std::vector<const void *> staged(inputs.size(), nullptr);
  for (size_t i = 0; i < schedule.inputs.size(); ++i) {
    const IoTransfer &transfer = schedule.inputs[i];
    uint8_t *slot = buffer_.data() + layout_.inputOffsets[i];
    if (const size_t bytes = callerBytes(transfer))
      std::memcpy(slot, inputs[transfer.index], bytes);
    staged[transfer.index] = slot;
  }
  return staged;
}

std::vector<void *> HostStaging::outputSlots(const Schedule &schedule) {
  std::vector<void *> slots(schedule.outputs.size(), nullptr);
  for (size_t i = 0; i < schedule.outputs.size(); ++i)
    slots[schedule.outputs[i].index] = buffer_.data() + layout_.outputOffsets[i];
  return slots;
}

void HostStaging::unstageOutputs(const Schedule &schedule, const std::vector<void *> &outputs) const {
  for (size_t i = 0; i < schedule.outputs.size(); ++i) {
    const IoTransfer &transfer = schedule.outputs[i];
    if (const size_t bytes = callerBytes(transfer))
      std::memcpy(outputs[transfer.index], buffer_.data() + layout_.outputOffsets[i], bytes);
  }
}

} // namespace fusec::runtime::gpu
