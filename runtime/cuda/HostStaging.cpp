//===- HostStaging.cpp - Pinned host buffers for a run's inputs and outputs -===//

#include "runtime/cuda/HostStaging.h"

#include <cstring>
#include <utility>

namespace fusec::runtime::cuda {

namespace {

constexpr size_t kStagingAlignment = 64;

size_t alignUp(size_t value) { return (value + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment; }

} // namespace

PinnedBuffer::PinnedBuffer(const CudaContext &context, size_t bytes, const std::string &what)
    : context_(&context), bytes_(bytes) {
  if (bytes == 0)
    return;
  void *host = nullptr;
  const DriverApi &cu = context.api();
  cu.check(cu.memHostAlloc(&host, bytes, /*flags=*/0), "cuMemHostAlloc",
           "for " + what + " (" + std::to_string(bytes) + " bytes)");
  data_ = static_cast<uint8_t *>(host);
}

PinnedBuffer::~PinnedBuffer() {
  if (data_)
    context_->api().memFreeHost(data_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer &&other) noexcept
    : context_(other.context_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer &PinnedBuffer::operator=(PinnedBuffer &&other) noexcept {
  if (this != &other) {
    if (data_)
      context_->api().memFreeHost(data_);
    context_ = other.context_;
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

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
    buffer_ = PinnedBuffer(context_, layout_.bytes, "the staging buffer of the inputs and outputs");
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

} // namespace fusec::runtime::cuda
