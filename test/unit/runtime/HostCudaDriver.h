//===- HostCudaDriver.h - The CPU-hosted CUDA driver double, its record -===//
//
// HostCudaDriver.cpp builds a shared library that the CUDA backend loads
// through DeviceOptions::cudaDriver like libcuda.so.1, and that runs what it
// is given on the host (see that file for what it models). The same library
// carries a cuBLASLt double (HostCublasLt.cpp) and a cuDNN double
// (HostCudnn.cpp), so a test names that one file as the driver and as the
// cuBLASLt and cuDNN libraries, and the libraries' work runs on the driver
// double's streams and memory. Besides running the work, it
// records what the driver-path tests check; a test reads the record through
// hostCudaState() (looked up with dlsym in the library the backend loaded,
// so both see one record).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H
#define FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H

#include <cstdint>
#include <functional>
#include <mutex>

/// How the double's cuStreamWaitValue32 behaves, so that tests see what the
/// runtime does where the host-memory wait misbehaves: as documented;
/// refused (CUDA_ERROR_NOT_SUPPORTED, as on a driver without stream memory
/// operations); accepted but never released (the device never sees the
/// flag written); or accepted and not held (the stream runs on at once).
enum class HostCudaWait : int { Works, Unsupported, NeverReleased, NotHeld };

/// How the cuBLASLt double fails, so that tests see what the runtime does
/// where the library cannot run a matmul: not at all; the heuristic finds no
/// algorithm (CUBLAS_STATUS_NOT_SUPPORTED, no results, as the real library
/// answers a problem it has no kernel for); or cublasLtMatmul returns
/// CUBLAS_STATUS_EXECUTION_FAILED (a launch that failed) and queues nothing.
enum class HostCublasLtFailure : int { None, NoAlgorithm, MatmulFails };

/// How the cuDNN double fails, so that tests see what the runtime does where
/// the library cannot run a convolution: not at all; the heuristics offer no
/// engine config in any mode (as the real library answers a graph it has no
/// engine for); mode A offers none but FALLBACK does; every execution plan
/// needs 1 TiB of workspace; or cudnnBackendExecute returns
/// CUDNN_STATUS_EXECUTION_FAILED (a launch that failed) and queues nothing.
enum class HostCudnnFailure : int { None, NoEngine, FallbackOnly, HugeWorkspace, ExecuteFails };

struct HostCudaState {
  /// What cuDriverGetVersion reports.
  int driverVersion = 13000;
  int modulesLoaded = 0;
  int launches = 0;
  int graphLaunches = 0;
  /// The largest dynamic shared memory opted into (cuFuncSetAttribute) and
  /// launched with (cuLaunchKernel).
  int maxDynamicSharedOptIn = 0;
  unsigned maxDynamicSharedLaunched = 0;
  /// The largest grid z launched (a split-K launch's k-slices).
  unsigned maxGridZ = 0;
  /// Host-to-device and device-to-host copies, and those whose host side
  /// was not in memory from cuMemHostAlloc.
  int hostCopies = 0;
  int pageableHostCopies = 0;
  int pinnedBuffersLive = 0;
  /// Device memory now, at most, and the number of cuMemAlloc calls.
  uint64_t deviceBytes = 0;
  uint64_t peakDeviceBytes = 0;
  int deviceAllocations = 0;
  /// cuStreamWaitValue32 calls, and the most operations (launches, copies,
  /// event records) queued behind one that had not yet been released.
  int gateClosings = 0;
  int maxCommandsBehindGate = 0;
  /// cuStreamSynchronize calls on a stream that could never finish: a hang
  /// on a GPU (the double returns CUDA_ERROR_ILLEGAL_STATE).
  int hangs = 0;
  /// The library starts with the behaviour $FUSEC_HOST_CUDA_WAIT names
  /// ("unsupported", "never", "not-held"; fuserun tests use it), else Works.
  HostCudaWait wait = HostCudaWait::Works;

  /// The cuBLASLt double. What cublasLtGetVersion reports.
  int cublasLtVersion = 130100;
  /// Handles, and descriptors (matmul descriptors, matrix layouts and
  /// preferences), alive now: set from the double's own tables at every
  /// create and destroy, so they are right again after a test resets the
  /// record, and 0 once every object is destroyed (a leak shows).
  int cublasLtHandlesLive = 0;
  int cublasLtDescriptorsLive = 0;
  /// cublasLtMatmulAlgoGetHeuristic calls; cublasLtMatmul calls that queued
  /// (or captured) a matmul; matmuls that ran on a stream (a graph replays
  /// its captured ones).
  int cublasLtHeuristicQueries = 0;
  int cublasLtMatmuls = 0;
  int cublasLtMatmulsRun = 0;
  /// Why the double last refused a cuBLASLt call (a string literal), for a
  /// test's failure message; null until it refuses one.
  const char *cublasLtLastRefusal = nullptr;
  /// The library starts with the failure $FUSEC_HOST_CUBLASLT_FAILURE names
  /// ("no-algorithm", "matmul-fails"), else None.
  HostCublasLtFailure cublasLtFailure = HostCublasLtFailure::None;

  /// The cuDNN double. What cudnnGetVersion reports.
  int cudnnVersion = 91900;
  /// Handles and backend descriptors alive now, set from the double's own
  /// tables at every create and destroy (as the cuBLASLt counts are).
  int cudnnHandlesLive = 0;
  int cudnnDescriptorsLive = 0;
  /// Engine heuristics finalized; cudnnBackendExecute calls that queued (or
  /// captured) a graph; graphs that ran on a stream (a CUDA graph replays
  /// its captured ones).
  int cudnnHeuristicQueries = 0;
  int cudnnExecutions = 0;
  int cudnnExecutionsRun = 0;
  /// Why the double last refused a cuDNN call (a string literal), for a
  /// test's failure message; null until it refuses one.
  const char *cudnnLastRefusal = nullptr;
  /// The library starts with the failure $FUSEC_HOST_CUDNN_FAILURE names
  /// ("no-engine", "fallback-only", "huge-workspace", "execute-fails"),
  /// else None.
  HostCudnnFailure cudnnFailure = HostCudnnFailure::None;
};

/// The record, shared by every user of the library in the process; a test
/// resets it by assigning HostCudaState().
extern "C" HostCudaState *hostCudaState();

/// The handle of the double's primary context.
inline void *const kHostCudaPrimaryContext = reinterpret_cast<void *>(uintptr_t(0xC0DE0));

/// Between the library's parts: HostCublasLt.cpp and HostCudnn.cpp queue
/// their work through the driver double's streams. Hidden: not exported, not for tests.
namespace host_cuda {
#define FUSEC_HOST_CUDA_INTERNAL __attribute__((visibility("hidden")))
/// The one lock over the whole library (its record, memory, streams, and the
/// cuBLASLt and cuDNN objects). Queued operations run with it held.
FUSEC_HOST_CUDA_INTERNAL std::unique_lock<std::mutex> lock();
/// With the lock held: whether [address, address + bytes) lies inside one
/// live allocation (device or mapped host memory).
FUSEC_HOST_CUDA_INTERNAL bool inside(uintptr_t address, uint64_t bytes);
/// With the lock held: queues `run` on `stream` as a kernel launch is queued
/// (recorded instead while the stream captures; a graph launch queues it
/// again). `run` returns a CUresult, runs with the lock held, and its
/// failure is reported by the stream's next synchronize. Returns the
/// CUresult of queueing (CUDA_ERROR_INVALID_HANDLE for an unknown stream).
FUSEC_HOST_CUDA_INTERNAL int enqueue(void *stream, std::function<int()> run);
#undef FUSEC_HOST_CUDA_INTERNAL
} // namespace host_cuda

#endif // FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H
