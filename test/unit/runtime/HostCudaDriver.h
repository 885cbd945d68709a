//===- HostCudaDriver.h - The CPU-hosted CUDA driver double, its record -===//
//
// HostCudaDriver.cpp builds a shared library that the CUDA backend loads
// through DeviceOptions::cudaDriver like libcuda.so.1, and that runs what it
// is given on the host (see that file for what it models). Besides running
// the work, it records what the driver-path tests check; a test reads the
// record through hostCudaState() (looked up with dlsym in the library the
// backend loaded, so both see one record).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H
#define FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H

#include <cstdint>

/// How the double's cuStreamWaitValue32 behaves, so that tests see what the
/// runtime does where the host-memory wait misbehaves: as documented;
/// refused (CUDA_ERROR_NOT_SUPPORTED, as on a driver without stream memory
/// operations); accepted but never released (the device never sees the
/// flag written); or accepted and not held (the stream runs on at once).
enum class HostCudaWait : int { Works, Unsupported, NeverReleased, NotHeld };

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
};

/// The record, shared by every user of the library in the process; a test
/// resets it by assigning HostCudaState().
extern "C" HostCudaState *hostCudaState();

/// The handle of the double's primary context.
inline void *const kHostCudaPrimaryContext = reinterpret_cast<void *>(uintptr_t(0xC0DE0));

#endif // FUSEC_TEST_UNIT_RUNTIME_HOSTCUDADRIVER_H
