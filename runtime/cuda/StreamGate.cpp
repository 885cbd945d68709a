//===- StreamGate.cpp - Hold the stream back while work is enqueued ---------===//

#include "runtime/cuda/StreamGate.h"

#include <algorithm>
#include <atomic>

namespace fusec::runtime::cuda {

std::vector<StepChunk> chunkSteps(size_t steps, size_t maxPerChunk) {
  std::vector<StepChunk> chunks;
  for (size_t begin = 0; begin < steps; begin += maxPerChunk)
    chunks.push_back({begin, std::min(steps, begin + maxPerChunk)});
  return chunks;
}

StreamGate::StreamGate(const CudaContext &context) : context_(context) {
  const DriverApi &cu = context_.api();
  const std::string where = "for the stream gate used to time kernels";
  void *host = nullptr;
  cu.check(cu.memHostAlloc(&host, sizeof(uint32_t), kMemHostAllocDeviceMap), "cuMemHostAlloc", where);
  flag_ = static_cast<volatile uint32_t *>(host);
  *flag_ = 0;
  if (CUresult result = cu.memHostGetDevicePointer(&deviceFlag_, host, /*flags=*/0); result != kCudaSuccess) {
    cu.memFreeHost(host);
    cu.fail(result, "cuMemHostGetDevicePointer", where);
  }
}

StreamGate::~StreamGate() {
  if (closed_)
    open();
  context_.api().streamSynchronize(context_.stream());
  context_.api().memFreeHost(const_cast<uint32_t *>(flag_));
}

void StreamGate::close() {
  ++generation_;
  const DriverApi &cu = context_.api();
  cu.check(cu.streamWaitValue32(context_.stream(), deviceFlag_, generation_, kStreamWaitValueGeq),
           "cuStreamWaitValue32", "for the stream gate used to time kernels");
  closed_ = true;
}

void StreamGate::open() {
  // Make every host write before this one visible first.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag_ = generation_;
  closed_ = false;
}

} // namespace fusec::runtime::cuda
