//===- FakeCudaDriver.h - A CUDA driver library for tests, on the host ------===//
//
// The toolkit's stub libcuda fails every call, so the CUDA backend's path
// beyond cuInit cannot be exercised without a GPU. This fake driver (built
// as a shared library, loaded through DeviceOptions::cudaDriver like the
// real one) answers every entry point DriverApi resolves on the host:
// "device" memory is host memory, kernels launch and graphs replay without
// running anything, events report a fixed time. It records what the tests
// check: the current context of each thread, which host memory copies
// touch, the driver version it claims, the modules loaded, and how much
// work waits behind a closed stream gate.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
#define FUSEC_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H

#include <cstddef>
#include <cstdint>

struct FakeCudaState {
  /// What cuDriverGetVersion reports.
  int driverVersion = 13000;
  int modulesLoaded = 0;
  int launches = 0;
  /// The largest dynamic shared memory opted into (cuFuncSetAttribute) and
  /// launched with (cuLaunchKernel).
  int maxDynamicSharedOptIn = 0;
  unsigned maxDynamicSharedLaunched = 0;
  int graphLaunches = 0;
  /// Host-to-device and device-to-host copies, and those whose host side
  /// was not in memory from cuMemHostAlloc.
  int hostCopies = 0;
  int pageableHostCopies = 0;
  int pinnedBuffersLive = 0;
  /// Commands (launches, copies, event records) enqueued while a stream
  /// waited on a gate flag not yet set, at most, over all gates.
  int maxCommandsBehindGate = 0;
  int gateClosings = 0;
  /// cuStreamSynchronize calls while the gate was still closed: a hang on
  /// a GPU.
  int hangs = 0;
};

/// The fake's state, shared by every user of the library in the process.
extern "C" FakeCudaState *fakeCudaState();
/// Resets the counters; the driver version goes back to 13000.
extern "C" void fakeCudaReset();

/// The context handle the fake's primary context has.
inline void *const kFakePrimaryContext = reinterpret_cast<void *>(uintptr_t(0xC0DE0));

#endif // FUSEC_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
