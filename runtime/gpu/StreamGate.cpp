//===- StreamGate.cpp - Hold the stream back while work is enqueued ---------===//

#include "runtime/gpu/StreamGate.h"

#include <algorithm>
#include <atomic>

namespace fusec::runtime::gpu {

namespace {

const char *const kWhere = "for the stream gate used to time kernels";

} // namespace

std::vector<StepChunk> chunkSteps(size_t steps, size_t maxPerChunk) {
  std::vector<StepChunk> chunks;
  for (size_t begin = 0; begin < steps; begin += maxPerChunk)
    chunks.push_back({begin, std::min(steps, begin + maxPerChunk)});
  return chunks;
}

StreamGate::StreamGate(const GpuDriver &driver, Stream stream)
    : driver_(driver), stream_(stream), flagMemory_(driver, sizeof(uint32_t), "the stream gate's flag") {
  flag_ = reinterpret_cast<volatile uint32_t *>(flagMemory_.data());
  *flag_ = 0;
}

StreamGate::~StreamGate() {
  if (closed_)
    open();
  // The device may still poll the flag until the stream has passed the gate.
  try {
    driver_.synchronize(stream_, kWhere);
  } catch (const Error &) { // NOLINT(bugprone-empty-catch)
    // A destructor cannot report it; the run that failed already did.
  }
}

void StreamGate::close() {
  ++generation_;
  driver_.waitForHostFlag(stream_, flag_, generation_, kWhere);
  closed_ = true;
}

void StreamGate::open() {
  // Make every host write before this one visible first.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag_ = generation_;
  closed_ = false;
}

} // namespace fusec::runtime::gpu
