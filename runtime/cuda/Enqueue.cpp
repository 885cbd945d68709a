//===- Enqueue.cpp - Put a schedule's device work on the session's stream ---===//

#include "runtime/cuda/Enqueue.h"

namespace fusec::runtime::cuda {

namespace {

std::string where(const std::string &what, const RunMode &mode) {
  return "for " + what + " (" + describeRunMode(mode) + ")";
}

void enqueueLaunch(const CudaContext &context, const KernelModules &modules, const KernelDesc &kernel,
                   const LaunchStep &step, const DeviceRegions &regions, const RunMode &mode) {
  // cuLaunchKernel reads each parameter through a pointer to its value and
  // copies the values before returning (a captured launch keeps the copy).
  std::vector<CUdeviceptr> pointers;
  pointers.reserve(step.args.size());
  for (const DeviceAddress &arg : step.args)
    pointers.push_back(regions.at(arg));
  int batch = step.batch;
  std::vector<void *> params;
  params.reserve(pointers.size() + 1);
  for (CUdeviceptr &pointer : pointers)
    params.push_back(&pointer);
  params.push_back(&batch);

  const DriverApi &cu = context.api();
  const CUresult result =
      cu.launchKernel(modules.function(step.kernel), step.grid.x, step.grid.y, step.grid.z, step.block.x, step.block.y,
                      step.block.z, step.sharedBytes, context.stream(), params.data(), /*extra=*/nullptr);
  if (result != kCudaSuccess)
    cu.fail(result, "cuLaunchKernel", where("kernel '" + kernel.name + "'", mode));
}

void enqueueCopy(const CudaContext &context, const KernelDesc &kernel, const CopyStep &step,
                 const DeviceRegions &regions, const RunMode &mode) {
  if (step.bytes == 0)
    return;
  const DriverApi &cu = context.api();
  const CUresult result = cu.memcpyDtoDAsync(regions.at(step.destination), regions.at(step.source),
                                             static_cast<size_t>(step.bytes), context.stream());
  if (result != kCudaSuccess)
    cu.fail(result, "cuMemcpyDtoDAsync", where("kernel '" + kernel.name + "'", mode));
}

} // namespace

void enqueueInputs(const CudaContext &context, const Plan &plan, const Schedule &schedule, const DeviceRegions &regions,
                   const std::vector<const void *> &inputs, CallerMemory memory) {
  const DriverApi &cu = context.api();
  for (const IoTransfer &transfer : schedule.inputs) {
    auto fail = [&](CUresult result, const char *call) {
      cu.fail(result, call, where("input '" + plan.inputs()[transfer.index].name + "'", schedule.mode));
    };
    const auto *host = reinterpret_cast<const uint8_t *>(inputs[transfer.index]);
    const CUdeviceptr device = regions.at(transfer.device);
    const uint64_t padding = transfer.deviceBlockBytes - transfer.hostBlockBytes;
    for (uint64_t block = 0; block < transfer.blocks; ++block) {
      const CUdeviceptr row = device + block * transfer.deviceBlockBytes;
      const uint8_t *source = host + block * transfer.hostBlockBytes;
      const auto bytes = static_cast<size_t>(transfer.hostBlockBytes);
      if (bytes > 0 && memory == CallerMemory::Host)
        if (CUresult result = cu.memcpyHtoDAsync(row, source, bytes, context.stream()); result != kCudaSuccess)
          fail(result, "cuMemcpyHtoDAsync");
      if (bytes > 0 && memory == CallerMemory::Device)
        if (CUresult result = cu.memcpyDtoDAsync(row, reinterpret_cast<CUdeviceptr>(source), bytes, context.stream());
            result != kCudaSuccess)
          fail(result, "cuMemcpyDtoDAsync");
      // Zeroed on every run: an earlier run at a larger batch left its rows
      // here, and padding must not carry values (or NaNs) into the results.
      if (padding > 0)
        // Bytewise: rows of 2- and 1-byte elements need not be 4-byte aligned.
        if (CUresult result =
                cu.memsetD8Async(row + transfer.hostBlockBytes, 0, static_cast<size_t>(padding), context.stream());
            result != kCudaSuccess)
          fail(result, "cuMemsetD8Async");
    }
  }
}

void enqueueOutputs(const CudaContext &context, const Plan &plan, const Schedule &schedule,
                    const DeviceRegions &regions, const std::vector<void *> &outputs, CallerMemory memory) {
  const DriverApi &cu = context.api();
  for (const IoTransfer &transfer : schedule.outputs) {
    auto *host = reinterpret_cast<uint8_t *>(outputs[transfer.index]);
    const CUdeviceptr device = regions.at(transfer.device);
    const auto bytes = static_cast<size_t>(transfer.hostBlockBytes);
    for (uint64_t block = 0; bytes > 0 && block < transfer.blocks; ++block) {
      uint8_t *destination = host + block * transfer.hostBlockBytes;
      const CUdeviceptr source = device + block * transfer.deviceBlockBytes;
      const bool toHost = memory == CallerMemory::Host;
      const CUresult result =
          toHost ? cu.memcpyDtoHAsync(destination, source, bytes, context.stream())
                 : cu.memcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(destination), source, bytes, context.stream());
      if (result != kCudaSuccess)
        cu.fail(result, toHost ? "cuMemcpyDtoHAsync" : "cuMemcpyDtoDAsync",
                where("output '" + plan.outputs()[transfer.index].name + "'", schedule.mode));
    }
  }
}

void enqueueStep(const CudaContext &context, const KernelModules &modules, const Plan &plan, const DeviceStep &step,
                 const DeviceRegions &regions, const RunMode &mode) {
  if (const auto *launch = std::get_if<LaunchStep>(&step))
    enqueueLaunch(context, modules, plan.kernels()[launch->kernel], *launch, regions, mode);
  else if (const auto *copy = std::get_if<CopyStep>(&step))
    enqueueCopy(context, plan.kernels()[copy->kernel], *copy, regions, mode);
}

void enqueueSegment(const CudaContext &context, const KernelModules &modules, const Plan &plan, const Segment &segment,
                    const DeviceRegions &regions, const RunMode &mode) {
  for (const DeviceStep &step : segment.steps)
    enqueueStep(context, modules, plan, step, regions, mode);
}

} // namespace fusec::runtime::cuda
