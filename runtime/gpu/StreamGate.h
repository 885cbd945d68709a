//===- StreamGate.h - Hold the stream back while work is enqueued -----------===//
//
// Timing a kernel between two events measures its launch latency too when
// the GPU is idle, waiting for the host to enqueue it: for the small kernels
// of a batch-1 model that latency is most of the measurement. A gate makes
// the stream wait on a flag in pinned host memory (GpuDriver::waitForHostFlag);
// everything enqueued while it is closed then runs back to back once it
// opens, and the events between the kernels measure the kernels alone. Work
// goes behind the gate in bounded chunks (chunkSteps).
// (The technique of NVIDIA's nvbench, with a driver wait instead of a
// spinning kernel.)
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_STREAMGATE_H
#define FUSEC_RUNTIME_GPU_STREAMGATE_H

#include "runtime/gpu/DeviceMemory.h"

#include <cstddef>
#include <cstdint>
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

class StreamGate {
public:
  StreamGate(const GpuDriver &driver, Stream stream);
  /// Opens the gate if closed (a failure may leave it so) and waits for the
  /// stream before freeing the flag the device polls.
  ~StreamGate();
  StreamGate(const StreamGate &) = delete;
  StreamGate &operator=(const StreamGate &) = delete;

  /// Work enqueued from now on waits for open().
  void close();
  void open();

private:
  const GpuDriver &driver_;
  Stream stream_;
  PinnedBuffer flagMemory_;
  volatile uint32_t *flag_ = nullptr;
  /// The flag value that opens the gate closed last; it only grows, so the
  /// flag never has to be reset while the device may be reading it.
  uint32_t generation_ = 0;
  bool closed_ = false;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_STREAMGATE_H
