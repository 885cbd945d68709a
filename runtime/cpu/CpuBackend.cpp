//===- CpuBackend.cpp - The reference backend: interpret kernels on the host ===//

#include "runtime/cpu/CpuBackend.h"

#include "runtime/Error.h"
#include "runtime/cpu/KernelInterpreter.h"

namespace fusec::runtime::cpu {

CpuBackend::CpuBackend(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {}

std::vector<void *> CpuBackend::bindBuffers(int64_t batch, const std::vector<const void *> &inputs,
                                            const std::vector<void *> &outputs) {
  const int64_t arenaBytes = plan_->arena().size.at(batch);
  const size_t arenaWords = static_cast<size_t>((arenaBytes + sizeof(uint64_t) - 1) / sizeof(uint64_t));
  if (arena_.size() < arenaWords)
    arena_.resize(arenaWords);

  std::vector<void *> buffers(plan_->buffers().size(), nullptr);
  for (const BufferDesc &buffer : plan_->buffers()) {
    switch (buffer.kind) {
    case BufferKind::Weight:
      // Kernels never write weights or inputs (the verifier rejects plans
      // that would), so dropping const here is safe.
      buffers[buffer.id] = const_cast<void *>(plan_->weightData(buffer));
      break;
    case BufferKind::Arena:
      // Offsets are multiples of kBufferAlignment, hence of any element size.
      buffers[buffer.id] = reinterpret_cast<uint8_t *>(arena_.data()) + buffer.arenaOffset.at(batch);
      break;
    case BufferKind::Input:
    case BufferKind::Output:
      break;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    buffers[plan_->inputs()[i].buffer] = const_cast<void *>(inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    buffers[plan_->outputs()[i].buffer] = outputs[i];
  return buffers;
}

void CpuBackend::executeOnDevice(int64_t batch, const std::vector<const void *> &inputs,
                                 const std::vector<void *> &outputs, void *stream) {
  if (stream)
    throw runtime::Error("the cpu backend has no streams: run on device buffers with a null stream");
  execute(batch, inputs, outputs);
}

void CpuBackend::execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) {
  const std::vector<void *> buffers = bindBuffers(batch, inputs, outputs);
  for (const KernelDesc &kernel : plan_->kernels())
    interpretKernel(kernel, batch, buffers, plan_->buffers());
}

} // namespace fusec::runtime::cpu
