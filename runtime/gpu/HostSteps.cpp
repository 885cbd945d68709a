//===- HostSteps.cpp - Run a "host" kernel between a GPU run's segments -----===//

#include "runtime/gpu/HostSteps.h"

#include "runtime/cpu/KernelInterpreter.h"

namespace fusec::runtime::gpu {

void runHostStep(const GpuDevice &driver, Stream stream, const Plan &plan, const HostStep &step,
                 const DeviceRegions &regions, const RunMode &mode, uint8_t *scratch) {
  const KernelDesc &kernel = plan.kernels()[step.kernel];
  const std::string where = "for host step '" + kernel.name + "' (" + describeRunMode(mode) + ")";
  uint8_t *const base = scratch;

  std::vector<void *> buffers(plan.buffers().size(), nullptr);
  for (size_t id : kernel.inputs)
    if (plan.buffers()[id].kind == BufferKind::Weight)
      // Host kernels read but never write weights (the verifier ensures it).
      buffers[id] = const_cast<void *>(plan.weightData(plan.buffers()[id]));
  for (const HostBuffer &staged : step.buffers) {
    buffers[staged.buffer] = base + staged.hostOffset;
    if (staged.download && staged.bytes > 0)
      driver.copyDeviceToHost(base + staged.hostOffset, regions.at(staged.device), static_cast<size_t>(staged.bytes),
                              stream, where);
  }
  driver.synchronize(stream, where);

  cpu::interpretKernel(kernel, mode.runBatch, buffers, plan.buffers());

  // Asynchronous: the scratch memory is pinned (see runHostStep's contract).
  for (const HostBuffer &staged : step.buffers)
    if (staged.upload && staged.bytes > 0)
      driver.copyHostToDevice(regions.at(staged.device), base + staged.hostOffset, static_cast<size_t>(staged.bytes),
                              stream, where);
}

} // namespace fusec::runtime::gpu
