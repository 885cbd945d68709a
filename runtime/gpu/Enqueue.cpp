//===- Enqueue.cpp - Put a schedule's device work on a stream ---------------===//

#include "runtime/gpu/Enqueue.h"

namespace fusec::runtime::gpu {

namespace {

std::string where(const std::string &what, const RunMode &mode) {
  return "for " + what + " (" + describeRunMode(mode) + ")";
}

void enqueueLaunch(const StreamTarget &target, const KernelDesc &kernel, const LaunchStep &step,
                   const DeviceRegions &regions, const RunMode &mode) {
  // Drivers copy the argument values before returning (a captured launch
  // keeps the copy), so they may live on this frame.
  constexpr size_t kInline = 16;
  DevicePtr inlineArgs[kInline];
  std::vector<DevicePtr> heapArgs;
  DevicePtr *args = inlineArgs;
  if (step.pointerCount() > kInline) {
    heapArgs.resize(step.pointerCount());
    args = heapArgs.data();
  }
  for (size_t i = 0; i < step.args.size(); ++i)
    args[i] = regions.at(step.args[i]);
  if (step.split) {
    args[step.args.size()] = regions.at(step.splitPartials);
    args[step.args.size() + 1] = regions.at(step.splitCounters);
  }
  target.kernels.launch(step, args, target.stream, [&] { return where("kernel '" + kernel.name + "'", mode); });
}

void enqueueCopy(const StreamTarget &target, const KernelDesc &kernel, const CopyStep &step,
                 const DeviceRegions &regions, const RunMode &mode) {
  if (step.bytes == 0)
    return;
  target.driver.copyDeviceToDevice(regions.at(step.destination), regions.at(step.source),
                                   static_cast<size_t>(step.bytes), target.stream,
                                   [&] { return where("kernel '" + kernel.name + "'", mode); });
}

} // namespace

void enqueueInputs(const StreamTarget &target, const Plan &plan, const Schedule &schedule, const DeviceRegions &regions,
                   const std::vector<const void *> &inputs, CallerMemory memory) {
  const GpuDevice &driver = target.driver;
  for (const IoTransfer &transfer : schedule.inputs) {
    auto describe = [&] { return where("input '" + plan.inputs()[transfer.index].name + "'", schedule.mode); };
    const auto *caller = reinterpret_cast<const uint8_t *>(inputs[transfer.index]);
    const DevicePtr device = regions.at(transfer.device);
    const uint64_t padding = transfer.deviceBlockBytes - transfer.hostBlockBytes;
    for (uint64_t block = 0; block < transfer.blocks; ++block) {
      const DevicePtr row = device + block * transfer.deviceBlockBytes;
      const uint8_t *source = caller + block * transfer.hostBlockBytes;
      const auto bytes = static_cast<size_t>(transfer.hostBlockBytes);
      if (bytes > 0 && memory == CallerMemory::Host)
        driver.copyHostToDevice(row, source, bytes, target.stream, describe);
      if (bytes > 0 && memory == CallerMemory::Device)
        driver.copyDeviceToDevice(row, reinterpret_cast<DevicePtr>(source), bytes, target.stream, describe);
      // Zeroed on every run: an earlier run at a larger batch left its rows
      // here, and padding must not carry values (or NaNs) into the results.
      if (padding > 0)
        driver.zero(row + transfer.hostBlockBytes, static_cast<size_t>(padding), target.stream, describe);
    }
  }
}

void enqueueOutputs(const StreamTarget &target, const Plan &plan, const Schedule &schedule,
                    const DeviceRegions &regions, const std::vector<void *> &outputs, CallerMemory memory) {
  const GpuDevice &driver = target.driver;
  for (const IoTransfer &transfer : schedule.outputs) {
    auto describe = [&] { return where("output '" + plan.outputs()[transfer.index].name + "'", schedule.mode); };
    auto *caller = reinterpret_cast<uint8_t *>(outputs[transfer.index]);
    const DevicePtr device = regions.at(transfer.device);
    const auto bytes = static_cast<size_t>(transfer.hostBlockBytes);
    for (uint64_t block = 0; bytes > 0 && block < transfer.blocks; ++block) {
      uint8_t *destination = caller + block * transfer.hostBlockBytes;
      const DevicePtr source = device + block * transfer.deviceBlockBytes;
      if (memory == CallerMemory::Host)
        driver.copyDeviceToHost(destination, source, bytes, target.stream, describe);
      else
        driver.copyDeviceToDevice(reinterpret_cast<DevicePtr>(destination), source, bytes, target.stream, describe);
    }
  }
}

void enqueueStep(const StreamTarget &target, const Plan &plan, const DeviceStep &step, const DeviceRegions &regions,
                 const RunMode &mode) {
  if (const auto *launch = std::get_if<LaunchStep>(&step))
    enqueueLaunch(target, plan.kernels()[launch->kernel], *launch, regions, mode);
  else if (const auto *copy = std::get_if<CopyStep>(&step))
    enqueueCopy(target, plan.kernels()[copy->kernel], *copy, regions, mode);
}

void enqueueSegment(const StreamTarget &target, const Plan &plan, const Segment &segment, const DeviceRegions &regions,
                    const RunMode &mode) {
  for (const DeviceStep &step : segment.steps)
    enqueueStep(target, plan, step, regions, mode);
}

} // namespace fusec::runtime::gpu
