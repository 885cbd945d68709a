//===- CpuBackend.cpp - The reference backend: interpret kernels on the host ===//

#include "runtime/cpu/CpuBackend.h"

#include "runtime/cpu/OpRegistry.h"

#include <cstring>

namespace fusec::runtime::cpu {

CpuBackend::CpuBackend(std::shared_ptr<const Plan> plan)
    : plan_(std::move(plan)) {}

std::vector<float *>
CpuBackend::bindBuffers(int64_t batch, const std::vector<const float *> &inputs,
                        const std::vector<float *> &outputs) {
  const int64_t arenaBytes = plan_->arena().size.at(batch);
  const size_t arenaFloats =
      static_cast<size_t>((arenaBytes + sizeof(float) - 1) / sizeof(float));
  if (arena_.size() < arenaFloats)
    arena_.resize(arenaFloats);

  std::vector<float *> buffers(plan_->buffers().size(), nullptr);
  for (const BufferDesc &buffer : plan_->buffers()) {
    switch (buffer.kind) {
    case BufferKind::Weight:
      // Kernels never write weights or inputs (the verifier rejects plans
      // that would), so dropping const here is safe.
      buffers[buffer.id] = const_cast<float *>(plan_->weightData(buffer));
      break;
    case BufferKind::Arena:
      // Offsets are multiples of kBufferAlignment, hence of sizeof(float).
      buffers[buffer.id] =
          arena_.data() + buffer.arenaOffset.at(batch) / sizeof(float);
      break;
    case BufferKind::Input:
    case BufferKind::Output:
      break;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    buffers[plan_->inputs()[i].buffer] = const_cast<float *>(inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    buffers[plan_->outputs()[i].buffer] = outputs[i];
  return buffers;
}

void CpuBackend::executeKernel(const KernelDesc &kernel, int64_t batch,
                               const std::vector<float *> &buffers) const {
  // Op results live in temporaries and are copied to the output buffers at
  // the end: a memory plan may let a kernel's output share bytes with one of
  // its inputs, which is only safe once every op has read its operands.
  const size_t numValues = kernel.values.size();
  std::vector<const float *> data(numValues, nullptr);
  std::vector<Shape> shapes(numValues);
  std::vector<std::vector<float>> temporaries(numValues);
  for (size_t i = 0; i < numValues; ++i)
    shapes[i] = resolveShape(kernel.values[i], batch);
  for (size_t i = 0; i < kernel.inputs.size(); ++i)
    data[i] = buffers[kernel.inputs[i]];

  for (const OpDesc &op : kernel.ops) {
    std::vector<ConstView> operands;
    for (size_t value : op.operands)
      operands.push_back(ConstView{data[value], shapes[value]});
    std::vector<MutableView> results;
    for (size_t value : op.results) {
      temporaries[value].assign(
          static_cast<size_t>(numElements(shapes[value])), 0.0f);
      data[value] = temporaries[value].data();
      results.push_back(MutableView{temporaries[value].data(), shapes[value]});
    }
    executeOp(kernel, op, std::move(operands), std::move(results));
  }

  for (size_t i = 0; i < kernel.outputs.size(); ++i) {
    const size_t value = kernel.yields[i];
    const int64_t count = numElements(shapes[value]);
    if (count > 0)
      std::memmove(buffers[kernel.outputs[i]], data[value],
                   static_cast<size_t>(count) * sizeof(float));
  }
}

void CpuBackend::execute(int64_t batch,
                         const std::vector<const float *> &inputs,
                         const std::vector<float *> &outputs) {
  const std::vector<float *> buffers = bindBuffers(batch, inputs, outputs);
  for (const KernelDesc &kernel : plan_->kernels())
    executeKernel(kernel, batch, buffers);
}

} // namespace fusec::runtime::cpu
