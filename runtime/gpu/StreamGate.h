//===- StreamGate.h - Hold the stream back while work is enqueued -----------===//
//
// Timing a kernel between two events measures its launch latency too when
// the GPU is idle, waiting for the host to enqueue it: for the small kernels
// of a batch-1 model that latency is most of the measurement. A gate makes
// the stream wait on a flag in pinned host memory (GpuDevice::waitForHostFlag);
// everything enqueued while it is closed then runs back to back once it
// opens, and the events between the kernels measure the kernels alone. Work
// goes behind the gate in bounded chunks (chunkSteps).
// (The technique of NVIDIA's nvbench, with a driver wait instead of a
// spinning kernel.)
//
// That wait needs host-mapped memory and stream memory operations, which a
// driver may refuse, or a machine may not deliver (the device never sees
// the flag written: the stream, and every later synchronize, would hang).
// probeHostFlagWait tries it once per driver (hostFlagWaitOf: the sessions
// open at one time share one) on a stream of its own, under
// a deadline, and a gate made without it holds nothing: the timed work then
// runs as it is enqueued.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_STREAMGATE_H
#define FUSEC_RUNTIME_GPU_STREAMGATE_H

#include "runtime/gpu/DeviceMemory.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusec::runtime::gpu {

/// At most this many device steps wait behind a closed gate, each with two
/// event records: about 400 commands, well inside the queue of a stream
/// (about 1 000 commands before the host blocks in a launch, which with the
/// gate closed would never return).
inline constexpr size_t kMaxStepsBehindGate = 128;

/// Steps [begin, end) timed behind one closing of the gate.
struct StepChunk {
  size_t begin = 0;
  size_t end = 0;
};

/// `steps` steps in order, in chunks of at most `maxPerChunk` (> 0).
std::vector<StepChunk> chunkSteps(size_t steps, size_t maxPerChunk);

/// What probeHostFlagWait found.
struct HostFlagWaitProbe {
  bool usable = false;
  /// Why not, for messages: "cuStreamWaitValue32 failed ...", "the stream
  /// was not released within 2000 ms of the flag's write".
  std::string reason;
  /// From the flag's write to the stream's release.
  double releaseMs = 0.0;
};

/// Whether GpuDevice::waitForHostFlag holds a stream until the flag is
/// written and then releases it, tried on a new stream: it must not pass
/// before the write and must pass within `deadline` after it (polled with
/// GpuDevice::finished, never blocking). Never throws; a failing call is
/// the reason. A stream that is never released is left to the driver, with
/// its flag memory, rather than freed while the device may read it. The
/// caller has entered the device.
HostFlagWaitProbe probeHostFlagWait(const GpuDevice &driver,
                                    std::chrono::milliseconds deadline = std::chrono::milliseconds(2000));

/// probeHostFlagWait(*driver), once per driver object (and process); the
/// first probe that fails writes one line on stderr saying why.
HostFlagWaitProbe hostFlagWaitOf(const std::shared_ptr<const GpuDevice> &driver);

class StreamGate {
public:
  /// `holds` false: close() and open() do nothing and no flag memory is
  /// allocated (where the host-flag wait is unusable).
  StreamGate(const GpuDevice &driver, Stream stream, bool holds = true);
  /// Opens the gate if closed (a failure may leave it so) and waits for the
  /// stream before freeing the flag the device polls.
  ~StreamGate();
  StreamGate(const StreamGate &) = delete;
  StreamGate &operator=(const StreamGate &) = delete;

  /// Work enqueued from now on waits for open().
  void close();
  void open();
  bool holds() const { return holds_; }

private:
  const GpuDevice &driver_;
  Stream stream_;
  bool holds_;
  PinnedBuffer flagMemory_;
  volatile uint32_t *flag_ = nullptr;
  /// The flag value that opens the gate closed last; it only grows, so the
  /// flag never has to be reset while the device may be reading it.
  uint32_t generation_ = 0;
  bool closed_ = false;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_STREAMGATE_H
