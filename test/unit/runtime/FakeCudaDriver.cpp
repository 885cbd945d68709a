//===- FakeCudaDriver.cpp - A CUDA driver library for tests, on the host ----===//
//
// Each entry point has the name and signature DriverApi resolves (the
// cuda.h types come from DriverApi.h). Not thread-safe beyond what the
// tests need: one session at a time.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"

#include "runtime/cuda/DriverApi.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace fusec::runtime::cuda;

namespace {

constexpr CUresult kInvalidValue = 1;

FakeCudaState state;
/// Host blocks from cuMemHostAlloc: start -> bytes.
std::map<const uint8_t *, size_t> pinned;
thread_local CUcontext current = nullptr;
/// The gate: a host flag the stream waits on until it reaches `value`.
const volatile uint32_t *gateFlag = nullptr;
uint32_t gateValue = 0;
int commandsBehindGate = 0;

bool isPinned(const void *host) {
  const auto *address = static_cast<const uint8_t *>(host);
  auto it = pinned.upper_bound(address);
  if (it == pinned.begin())
    return false;
  --it;
  return address < it->first + it->second;
}

/// Every command on the stream goes through here.
void enqueue() {
  if (gateFlag && *gateFlag < gateValue) {
    ++commandsBehindGate;
    if (commandsBehindGate > state.maxCommandsBehindGate)
      state.maxCommandsBehindGate = commandsBehindGate;
  } else {
    gateFlag = nullptr;
    commandsBehindGate = 0;
  }
}

void hostCopy(const void *host) {
  enqueue();
  ++state.hostCopies;
  if (!isPinned(host))
    ++state.pageableHostCopies;
}

void *toHost(CUdeviceptr pointer) { return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)); }

} // namespace

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_EXPORT FakeCudaState *fakeCudaState() { return &state; }
FAKE_EXPORT void fakeCudaReset() { state = FakeCudaState(); }

FAKE_EXPORT CUresult cuInit(unsigned) { return kCudaSuccess; }
FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = state.driverVersion;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kCudaSuccess : kInvalidValue;
}
FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  *value = attribute == kAttributeComputeCapabilityMajor ? 9 : 0;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(length));
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = static_cast<CUcontext>(kFakePrimaryContext);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return kCudaSuccess; }
FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *, unsigned, CUjit_option *, void **) {
  ++state.modulesLoaded;
  *module = reinterpret_cast<CUmodule>(new char);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<char *>(module);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *) {
  *function = reinterpret_cast<CUfunction>(module);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute attribute, int value) {
  if (attribute == kFunctionAttributeMaxDynamicSharedBytes)
    state.maxDynamicSharedOptIn = std::max(state.maxDynamicSharedOptIn, value);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = reinterpret_cast<uintptr_t>(std::calloc(bytes ? bytes : 1, 1));
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::free(toHost(pointer));
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  *pointer = std::calloc(bytes ? bytes : 1, 1);
  pinned[static_cast<const uint8_t *>(*pointer)] = bytes;
  ++state.pinnedBuffersLive;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned) {
  *device = reinterpret_cast<uintptr_t>(host);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemFreeHost(void *pointer) {
  pinned.erase(static_cast<const uint8_t *>(pointer));
  --state.pinnedBuffersLive;
  std::free(pointer);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t bytes, CUstream) {
  hostCopy(source);
  std::memcpy(toHost(destination), source, bytes);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source, size_t bytes, CUstream) {
  hostCopy(destination);
  std::memcpy(destination, toHost(source), bytes);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes, CUstream) {
  enqueue();
  std::memmove(toHost(destination), toHost(source), bytes);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value, size_t count, CUstream) {
  enqueue();
  std::memset(toHost(destination), value, count);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned) {
  *stream = reinterpret_cast<CUstream>(new char);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  delete reinterpret_cast<char *>(stream);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) {
  if (gateFlag && *gateFlag < gateValue) {
    ++state.hangs; // a real stream would never finish
  } else {
    gateFlag = nullptr;
    commandsBehindGate = 0;
  }
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuStreamWaitValue32_v2(CUstream, CUdeviceptr address, unsigned value, unsigned) {
  gateFlag = static_cast<const volatile uint32_t *>(toHost(address));
  gateValue = value;
  commandsBehindGate = 0;
  ++state.gateClosings;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned sharedMemBytes, CUstream, void **, void **) {
  enqueue();
  state.maxDynamicSharedLaunched = std::max(state.maxDynamicSharedLaunched, sharedMemBytes);
  ++state.launches;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuStreamBeginCapture_v2(CUstream, CUstreamCaptureMode) { return kCudaSuccess; }
FAKE_EXPORT CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  *graph = reinterpret_cast<CUgraph>(new char);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph, unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(new char);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  enqueue();
  ++state.graphLaunches;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGraphDestroy(CUgraph graph) {
  delete reinterpret_cast<char *>(graph);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec) {
  delete reinterpret_cast<char *>(exec);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned) {
  *event = reinterpret_cast<CUevent>(new char);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<char *>(event);
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
  enqueue();
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent, CUevent) {
  *milliseconds = 0.25f;
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return kCudaSuccess;
}
FAKE_EXPORT CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "an error of the fake driver";
  return kCudaSuccess;
}
