//===- StreamGate.cpp - Hold the stream back while work is enqueued ---------===//

#include "runtime/gpu/StreamGate.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace fusec::runtime::gpu {

namespace {

const char *const kWhere = "for the stream gate used to time kernels";
/// How long the probe watches a waiting stream before writing the flag.
constexpr std::chrono::milliseconds kHoldCheck{20};

/// Keeps a stream a probe left waiting, and its flag, for the rest of the
/// process: the device may still read the flag, so neither is freed, and
/// holding them here says so (a leak checker sees them reachable).
void park(Stream stream, void *flag) {
  static std::mutex mutex;
  // Never destroyed: static destructors run before a leak checker looks.
  static auto *const parked = new std::vector<std::pair<Stream, void *>>();
  std::lock_guard<std::mutex> lock(mutex);
  parked->emplace_back(stream, flag);
}

} // namespace

HostFlagWaitProbe probeHostFlagWait(const GpuDevice &driver, std::chrono::milliseconds deadline) {
  using Clock = std::chrono::steady_clock;
  const char *const where = "while probing the wait on host memory";
  HostFlagWaitProbe probe;
  Stream stream = nullptr;
  void *memory = nullptr;
  // Once the wait is enqueued, the stream and the flag may be freed only
  // when the stream has passed it.
  bool enqueued = false, passed = false;
  try {
    stream = driver.createStream(where);
    memory = driver.allocateHost(sizeof(uint32_t), where);
    auto *flag = static_cast<volatile uint32_t *>(memory);
    *flag = 0;
    driver.waitForHostFlag(stream, flag, 1, where);
    enqueued = true;
    // A wait the device ignores lets the stream finish once the GPU reaches
    // it, which may take a moment after the enqueue: watch the stream for a
    // while before writing the flag, so a stream that was never held is
    // not taken for one the write released.
    const Clock::time_point waiting = Clock::now();
    passed = driver.finished(stream, where);
    while (!passed && Clock::now() - waiting < kHoldCheck) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      passed = driver.finished(stream, where);
    }
    if (passed) {
      probe.reason = "the stream was not held: it passed the wait before the flag was written";
    } else {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      *flag = 1;
      const Clock::time_point written = Clock::now();
      while (!(passed = driver.finished(stream, where)) && Clock::now() - written < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      probe.releaseMs = std::chrono::duration<double, std::milli>(Clock::now() - written).count();
      probe.usable = passed;
      if (!passed)
        probe.reason =
            "the stream was not released within " + std::to_string(deadline.count()) + " ms of the flag's write";
    }
  } catch (const Error &error) {
    probe.usable = false;
    probe.reason = error.what();
  }
  if (enqueued && !passed) {
    park(stream, memory);
    return probe;
  }
  if (memory)
    driver.freeHost(memory);
  if (stream)
    driver.destroyStream(stream);
  return probe;
}

HostFlagWaitProbe hostFlagWaitOf(const std::shared_ptr<const GpuDevice> &driver) {
  static std::mutex mutex;
  static std::vector<std::pair<std::weak_ptr<const GpuDevice>, HostFlagWaitProbe>> probes;
  std::lock_guard<std::mutex> lock(mutex);
  probes.erase(std::remove_if(probes.begin(), probes.end(), [](const auto &entry) { return entry.first.expired(); }),
               probes.end());
  for (const auto &[known, probe] : probes)
    if (!known.owner_before(driver) && !driver.owner_before(known))
      return probe;
  HostFlagWaitProbe probe = probeHostFlagWait(*driver);
  if (!probe.usable)
    std::cerr << "fusec: the device's wait on host memory is unusable here (" << probe.reason
              << "): kernels timed one by one run without a gate, so their times may include launch latency\n";
  probes.emplace_back(driver, probe);
  return probe;
}

std::vector<StepChunk> chunkSteps(size_t steps, size_t maxPerChunk) {
  std::vector<StepChunk> chunks;
  for (size_t begin = 0; begin < steps; begin += maxPerChunk)
    chunks.push_back({begin, std::min(steps, begin + maxPerChunk)});
  return chunks;
}

StreamGate::StreamGate(const GpuDevice &driver, Stream stream, bool holds)
    : driver_(driver), stream_(stream), holds_(holds) {
  if (!holds_)
    return;
  flagMemory_ = PinnedBuffer(driver, sizeof(uint32_t), "the stream gate's flag");
  flag_ = reinterpret_cast<volatile uint32_t *>(flagMemory_.data());
  *flag_ = 0;
}

StreamGate::~StreamGate() {
  if (!holds_)
    return;
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
  if (!holds_)
    return;
  ++generation_;
  driver_.waitForHostFlag(stream_, flag_, generation_, kWhere);
  closed_ = true;
}

void StreamGate::open() {
  if (!holds_)
    return;
  // Make every host write before this one visible first.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag_ = generation_;
  closed_ = false;
}

} // namespace fusec::runtime::gpu
