//===- Device.h - Where a session runs --------------------------------------===//
#ifndef FUSEC_RUNTIME_DEVICE_H
#define FUSEC_RUNTIME_DEVICE_H

#include <cstddef>
#include <optional>
#include <string>

namespace fusec::runtime {

enum class Device {
  Cpu,
  Cuda,
  /// The best device available: CUDA where a driver and GPU exist, else CPU.
  Auto,
};

/// How a GPU session holds its stream while it enqueues work it times one
/// kernel at a time (fuserun --time-kernels, --tune), so that the times
/// leave out the host's launch latency.
enum class TimingGate {
  /// HostFlag where a probe (once per driver, which the sessions of a process
  /// share while any is open; with a deadline)
  /// finds that the device's wait on host memory holds and releases a
  /// stream; else None, with a note on stderr.
  Auto,
  /// The stream waits on a flag in host-mapped memory (cuStreamWaitValue32).
  HostFlag,
  /// Nothing holds the stream: needs no host-mapped memory, and each
  /// kernel's time may include launch latency where the GPU outruns the
  /// host (small kernels).
  None,
};

/// The forms of a kernel a session may run (fuserun --tactics): every
/// variant the plan carries (the plan's default unless tuning picks
/// another), only the compiled ones, or a library variant wherever the
/// kernel has one (the compiled ones elsewhere).
enum class Tactics { All, Generated, Library };

/// "all", "generated", "library"; parseTactics is the inverse.
const char *tacticsName(Tactics tactics);
std::optional<Tactics> parseTactics(const std::string &name);

/// How a session uses its device. The CPU backend ignores these.
struct DeviceOptions {
  /// Replay one CUDA graph per batch bucket, padding a batch up to the next
  /// bucket; false launches every kernel directly at the exact batch.
  bool useGraphs = true;
  /// Capture every bucket's graphs when the session is created instead of
  /// on each bucket's first run.
  bool prebuildGraphs = false;
  /// The CUDA driver library, opened with dlopen when a CUDA session is
  /// created (a path or a name the dynamic loader searches for).
  std::string cudaDriver = "libcuda.so.1";
  /// The CUDA device ordinal.
  int cudaDevice = 0;
  /// The cuBLASLt library a plan's library variants call, opened with
  /// dlopen when a session loads such a plan (a path or a name the dynamic
  /// loader searches for). A library that does not load leaves those
  /// kernels on their compiled variants, with one line on stderr.
  std::string cublasLt = "libcublasLt.so.13";
  /// The cuDNN library a plan's convolution library variants call, loaded
  /// the same way. A convolution cuDNN has no engine for runs its compiled
  /// variant, reported on the same line.
  std::string cudnn = "libcudnn.so.9";
  /// Which forms of its conv/GEMM kernels a session may run.
  Tactics tactics = Tactics::All;
  /// Time every variant of each conv/GEMM kernel that the tuning cache has
  /// no choice for, at a run batch's first run, run the fastest and add
  /// the choice to the cache (fuserun --tune). Without it, a kernel runs
  /// the cache's choice if it has one, else the compiler's.
  bool tune = false;
  /// The tuning cache file (TuningCache.h): "" for defaultTuningCachePath(),
  /// "none" for none (nothing read or written).
  std::string tuningCache;
  /// How many shape variants of a plan (fusec --dim seq=64,128) a session
  /// keeps ready to run at once, each with its arena, loaded kernels and
  /// CUDA graphs; the least recently run gives them up first. At least 1.
  size_t shapeCacheSize = 4;
  /// How kernels timed one by one hold the stream.
  TimingGate timingGate = TimingGate::Auto;
};

/// "cpu", "cuda" or "auto".
const char *deviceName(Device device);
/// The inverse of deviceName(); nullopt for anything else.
std::optional<Device> parseDevice(const std::string &name);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_DEVICE_H
