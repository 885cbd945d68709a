//===- CpuBackend.cpp - The reference backend: interpret kernels on the host ===//

#include "runtime/cpu/CpuBackend.h"

#include "runtime/cpu/KernelInterpreter.h"

namespace fusec::runtime::cpu {

CpuBackend::CpuBackend(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {}

std::vector<float *> CpuBackend::bindBuffers(int64_t batch, const std::vector<const float *> &inputs,
                                             const std::vector<float *> &outputs) {
  const int64_t arenaBytes = plan_->arena().size.at(batch);
  const size_t arenaFloats = static_cast<size_t>((arenaBytes + sizeof(float) - 1) / sizeof(float));
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
      buffers[buffer.id] = arena_.data() + buffer.arenaOffset.at(batch) / sizeof(float);
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

void CpuBackend::execute(int64_t batch, const std::vector<const float *> &inputs, const std::vector<float *> &outputs) {
  const std::vector<float *> buffers = bindBuffers(batch, inputs, outputs);
  for (const KernelDesc &kernel : plan_->kernels())
    interpretKernel(kernel, batch, buffers);
}

} // namespace fusec::runtime::cpu
