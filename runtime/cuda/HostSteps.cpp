//===- HostSteps.cpp - Run a "host" kernel between a GPU run's segments -----===//

#include "runtime/cuda/HostSteps.h"

#include "runtime/cpu/OpRegistry.h"

#include <cstring>

namespace fusec::runtime::cuda {

namespace {

/// Interprets the kernel's ops like the CPU backend does: results go to
/// temporaries and are copied to the output buffers at the end, since an
/// output may share bytes with an input.
void interpret(const KernelDesc &kernel, int64_t batch,
               const std::vector<float *> &buffers) {
  const size_t numValues = kernel.values.size();
  std::vector<const float *> data(numValues, nullptr);
  std::vector<Shape> shapes(numValues);
  std::vector<std::vector<float>> temporaries(numValues);
  for (size_t i = 0; i < numValues; ++i)
    shapes[i] = resolveShape(kernel.values[i], batch);
  for (size_t i = 0; i < kernel.inputs.size(); ++i)
    data[i] = buffers[kernel.inputs[i]];
  for (const OpDesc &op : kernel.ops) {
    std::vector<cpu::ConstView> operands;
    for (size_t value : op.operands)
      operands.push_back(cpu::ConstView{data[value], shapes[value]});
    std::vector<cpu::MutableView> results;
    for (size_t value : op.results) {
      temporaries[value].assign(static_cast<size_t>(numElements(shapes[value])),
                                0.0f);
      data[value] = temporaries[value].data();
      results.push_back(
          cpu::MutableView{temporaries[value].data(), shapes[value]});
    }
    cpu::executeOp(kernel, op, std::move(operands), std::move(results));
  }
  for (size_t i = 0; i < kernel.outputs.size(); ++i) {
    const size_t value = kernel.yields[i];
    const int64_t count = numElements(shapes[value]);
    if (count > 0)
      std::memmove(buffers[kernel.outputs[i]], data[value],
                   static_cast<size_t>(count) * sizeof(float));
  }
}

} // namespace

void runHostStep(const CudaContext &context, const Plan &plan,
                 const HostStep &step, const DeviceRegions &regions,
                 const RunMode &mode, std::vector<float> &scratch) {
  const KernelDesc &kernel = plan.kernels()[step.kernel];
  const std::string where =
      "for host step '" + kernel.name + "' (" + describeRunMode(mode) + ")";
  const DriverApi &cu = context.api();
  auto *base = reinterpret_cast<uint8_t *>(scratch.data());

  std::vector<float *> buffers(plan.buffers().size(), nullptr);
  for (size_t id : kernel.inputs)
    if (plan.buffers()[id].kind == BufferKind::Weight)
      // Host kernels read but never write weights (the verifier ensures it).
      buffers[id] = const_cast<float *>(plan.weightData(plan.buffers()[id]));
  for (const HostBuffer &staged : step.buffers) {
    buffers[staged.buffer] =
        reinterpret_cast<float *>(base + staged.hostOffset);
    if (staged.download && staged.bytes > 0)
      cu.check(cu.memcpyDtoHAsync(
                   base + staged.hostOffset, regions.at(staged.device),
                   static_cast<size_t>(staged.bytes), context.stream()),
               "cuMemcpyDtoHAsync", where);
  }
  context.synchronize(where);

  interpret(kernel, mode.runBatch, buffers);

  // Uploads from pageable memory return once the data is staged, so the
  // scratch memory may be reused right away.
  for (const HostBuffer &staged : step.buffers)
    if (staged.upload && staged.bytes > 0)
      cu.check(cu.memcpyHtoDAsync(
                   regions.at(staged.device), base + staged.hostOffset,
                   static_cast<size_t>(staged.bytes), context.stream()),
               "cuMemcpyHtoDAsync", where);
}

} // namespace fusec::runtime::cuda
