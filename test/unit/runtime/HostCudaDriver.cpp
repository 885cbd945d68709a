//===- HostCudaDriver.cpp - A CPU-hosted test double of the CUDA driver ---===//
//
// libfusec-host-cuda-driver.so exports the CUDA driver entry points the
// runtime resolves (runtime/cuda/DriverApi.cpp) and implements them on the
// host, so that the whole CUDA backend -- contexts, modules, device memory,
// staging, graph capture and replay, host steps, events, the stream gate --
// runs without a GPU: DeviceOptions::cudaDriver (fuserun --cuda-driver)
// names this library instead of libcuda.so.1. HostCudaDriver.h declares the
// record of what it saw, which the driver-path tests check.
//
// What it models, and how faithfully:
//  - device memory is host memory; a device pointer is its address. New
//    allocations are filled with 0xCD, not zeroed, so code that relies on
//    fresh memory being zero fails; every kernel argument and copy must lie
//    inside one live allocation (device or mapped host memory), or the call
//    fails with CUDA_ERROR_ILLEGAL_ADDRESS.
//  - streams are queues of operations that run only when the host waits
//    (cuStreamSynchronize, or a free, which synchronizes as cuMemFree
//    does): then every stream advances one operation per round, oldest
//    stream first, until none can move. Work the host enqueued without
//    ordering it (an event, a wait) can thus run in the wrong order, as it
//    may on a GPU, and a test sees it. cuStreamWaitValue32 and
//    cuStreamWaitEvent hold a stream until the value is written or the
//    event's work has run; cuStreamSynchronize on a stream that stays held
//    is an error (a GPU would hang), cuStreamQuery runs what can run and
//    says whether the stream is empty. HostCudaState::wait makes the
//    host-memory wait misbehave (refused, never released, not held).
//  - capture records a stream's operations into a graph (kernel arguments
//    copied at capture, as CUDA does); cuGraphLaunch enqueues them.
//  - modules: PTX images, whose `.entry` names are the functions, and
//    CUBINs, which have every function asked for (none of them runs).
//    Kernels are run by host implementations of the known entry points
//    (fusec_test_mul and fusec_test_add of the test plans, TestSupport.cpp)
//    over the launch's whole grid; an unknown entry point fails to launch.
//  - one device, "fusec host CUDA double", compute capability 9.0; the
//    driver version is the record's (13000 unless a test sets it); any
//    context may be made current, but work needs the primary one.
//
// The library also exports cuBLASLt's entry points (HostCublasLt.cpp): its
// matmuls are operations on these streams, over this memory, and share this
// file's lock (host_cuda:: in HostCudaDriver.h).
//
//===----------------------------------------------------------------------===//
#include "HostCudaDriver.h"

#include "runtime/cuda/DriverApi.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// The entry points take cuda.h's handle types, as DriverApi declares them: a
// call through a pointer of another function type is undefined (UBSan's
// -fsanitize=function reports it).
using fusec::runtime::cuda::CUcontext;
using fusec::runtime::cuda::CUevent;
using fusec::runtime::cuda::CUfunction;
using fusec::runtime::cuda::CUgraph;
using fusec::runtime::cuda::CUgraphExec;
using fusec::runtime::cuda::CUmodule;
using fusec::runtime::cuda::CUstream;

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

/// A handle for an object of the double: the opaque cuda.h type.
template <typename Handle, typename T> Handle handleOf(T *object) { return reinterpret_cast<Handle>(object); }

// cuda.h's values for the results this double returns.
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kNotReady = 600;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kLaunchFailed = 719;
constexpr CUresult kIllegalState = 401;
constexpr CUresult kStreamCaptureInvalidated = 901;
constexpr CUresult kNotSupported = 801;

const std::map<CUresult, std::pair<const char *, const char *>> kErrorNames = {
    {kSuccess, {"CUDA_SUCCESS", "no error"}},
    {kInvalidValue, {"CUDA_ERROR_INVALID_VALUE", "invalid argument"}},
    {kOutOfMemory, {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"}},
    {kNotInitialized, {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"}},
    {kInvalidDevice, {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"}},
    {kInvalidImage, {"CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"}},
    {kInvalidContext, {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"}},
    {kInvalidHandle, {"CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"}},
    {kIllegalState, {"CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"}},
    {kNotFound, {"CUDA_ERROR_NOT_FOUND", "named symbol not found"}},
    {kNotReady, {"CUDA_ERROR_NOT_READY", "device not ready"}},
    {kNotSupported, {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"}},
    {kIllegalAddress, {"CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"}},
    {kLaunchFailed, {"CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"}},
    {kStreamCaptureInvalidated,
     {"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error "
                                               "during capture"}},
};

constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kAttributeMultiprocessorCount = 16;
constexpr int kFunctionAttributeMaxDynamicSharedBytes = 8;

/// A host implementation of a kernel: its pointer parameters, the batch
/// after them, and what one thread computes. A kernel with scalar arguments
/// (`scalarArguments` unsigned ints) takes them as one parameter after the
/// batch.
struct KernelModel {
  using Scalars = std::vector<uint32_t>;
  size_t pointerParams;
  /// Elements each pointer parameter is read or written at, given the batch.
  std::function<uint64_t(size_t param, uint32_t batch)> extent;
  std::function<void(const std::vector<float *> &pointers, uint32_t batch, const Scalars &scalars, uint64_t thread)>
      thread;
  size_t scalarArguments = 0;
};

const std::map<std::string, KernelModel> &kernelModels() {
  static const std::map<std::string, KernelModel> models = {
      {"fusec_test_mul",
       {3, [](size_t param, uint32_t batch) { return param == 1 ? uint64_t(4) : uint64_t(batch) * 4; },
        [](const std::vector<float *> &p, uint32_t batch, const KernelModel::Scalars &, uint64_t i) {
          if (i < uint64_t(batch) * 4)
            p[2][i] = p[0][i] * p[1][i % 4];
        }}},
      // fusec_test_mul as a split-capable kernel: the partial sums and the
      // tile counters follow the buffers. It needs one counter and the
      // counters zero (else it spoils its output with NaN), and ignores the
      // slices (grid.z), which the guard on the thread index absorbs.
      {"fusec_test_mul_split",
       {5,
        [](size_t param, uint32_t batch) {
          return param == 1 ? uint64_t(4) : param >= 3 ? uint64_t(1) : uint64_t(batch) * 4;
        },
        [](const std::vector<float *> &p, uint32_t batch, const KernelModel::Scalars &, uint64_t i) {
          uint32_t counter = 0;
          std::memcpy(&counter, p[4], sizeof counter);
          if (i < uint64_t(batch) * 4)
            p[2][i] = counter == 0 ? p[0][i] * p[1][i % 4] : std::nanf("");
        }}},
      // fusec_test_mul with its sizes as scalar arguments: {columns, rows
      // per image, 1}. The product is scaled by the third (1): a launch that
      // passed another value, or none, spoils it.
      {"fusec_test_mul_sized",
       {3, [](size_t param, uint32_t batch) { return param == 1 ? uint64_t(4) : uint64_t(batch) * 4; },
        [](const std::vector<float *> &p, uint32_t batch, const KernelModel::Scalars &scalars, uint64_t i) {
          const uint64_t columns = scalars[0], rows = scalars[1];
          if (i < uint64_t(batch) * rows * columns)
            p[2][i] = p[0][i] * p[1][i % columns] * float(scalars[2]);
        },
        3}},
      {"fusec_test_add",
       {3, [](size_t, uint32_t batch) { return uint64_t(batch) * 4; },
        [](const std::vector<float *> &p, uint32_t batch, const KernelModel::Scalars &, uint64_t i) {
          if (i < uint64_t(batch) * 4)
            p[2][i] = p[0][i] + p[1][i];
        }}},
  };
  return models;
}

struct Function {
  std::string name;
};

struct Module {
  std::map<std::string, std::unique_ptr<Function>> functions;
  /// Loaded from a CUBIN: functions are made when asked for.
  bool binary = false;
};

/// A queued operation: returns a result; a held wait returns kNotReady and
/// stays at the head of its queue. A cuStreamWaitValue32 operation also
/// names its flag, for the record of work queued behind it.
struct Operation {
  std::function<CUresult()> run;
  const volatile uint32_t *waitFlag = nullptr;
  uint32_t waitValue = 0;

  bool heldGate() const { return waitFlag && *waitFlag < waitValue; }
};

struct Graph {
  std::vector<Operation> operations;
};

struct Stream {
  /// Creation order: older streams move first in a round.
  uint64_t order = 0;
  std::vector<Operation> queue;
  Graph *capture = nullptr;
  /// A failed operation: reported by the next synchronize.
  CUresult error = kSuccess;
};

struct Event {
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
};

struct Allocation {
  uint64_t bytes;
  bool host;
};

HostCudaWait waitFromEnvironment() {
  const char *mode = std::getenv("FUSEC_HOST_CUDA_WAIT");
  const std::string name = mode ? mode : "";
  return name == "unsupported" ? HostCudaWait::Unsupported
         : name == "never"     ? HostCudaWait::NeverReleased
         : name == "not-held"  ? HostCudaWait::NotHeld
                               : HostCudaWait::Works;
}

HostCublasLtFailure cublasLtFailureFromEnvironment() {
  const char *mode = std::getenv("FUSEC_HOST_CUBLASLT_FAILURE");
  const std::string name = mode ? mode : "";
  return name == "no-algorithm"   ? HostCublasLtFailure::NoAlgorithm
         : name == "matmul-fails" ? HostCublasLtFailure::MatmulFails
                                  : HostCublasLtFailure::None;
}

struct State {
  State() {
    record.wait = waitFromEnvironment();
    record.cublasLtFailure = cublasLtFailureFromEnvironment();
  }
  std::mutex mutex;
  HostCudaState record;
  bool initialized = false;
  int primaryRetains = 0;
  std::map<uintptr_t, Allocation> allocations;
  std::set<std::unique_ptr<Module>> modules;
  std::set<std::unique_ptr<Stream>> streams;
  std::set<std::unique_ptr<Graph>> graphs;
  std::set<std::unique_ptr<Event>> events;
  uint64_t streamsCreated = 0;
};

State &state() {
  static State instance;
  return instance;
}

void *const kPrimaryContext = kHostCudaPrimaryContext;
thread_local void *currentContext = nullptr;

template <typename T> T *find(const std::set<std::unique_ptr<T>> &set, const void *handle) {
  for (const auto &entry : set)
    if (entry.get() == handle)
      return entry.get();
  return nullptr;
}

/// True if [address, address + bytes) lies inside one live allocation.
bool inside(const State &s, uintptr_t address, uint64_t bytes) {
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin())
    return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second.bytes;
}

/// Runs the operation at the head of `stream`'s queue unless it is held.
/// Returns true if it ran.
bool step(Stream &stream) {
  if (stream.queue.empty())
    return false;
  const CUresult result = stream.queue.front().run();
  if (result == kNotReady)
    return false;
  stream.queue.erase(stream.queue.begin());
  if (result != kSuccess && stream.error == kSuccess)
    stream.error = result;
  return true;
}

/// Rounds of one operation per stream, oldest stream first, until no
/// stream can move.
void drainAll(State &s) {
  std::vector<Stream *> streams;
  for (const auto &stream : s.streams)
    streams.push_back(stream.get());
  std::sort(streams.begin(), streams.end(), [](const Stream *a, const Stream *b) { return a->order < b->order; });
  for (bool moved = true; moved;) {
    moved = false;
    for (Stream *stream : streams)
      moved = step(*stream) || moved;
  }
}

/// Queues `operation` on `stream` (or records it into the stream's capture)
/// and runs what can run.
CUresult enqueue(State &s, void *handle, Operation operation) {
  Stream *stream = find(s.streams, handle);
  if (!stream)
    return kInvalidHandle;
  if (stream->capture) {
    stream->capture->operations.push_back(std::move(operation));
    return kSuccess;
  }
  stream->queue.push_back(std::move(operation));
  // Work queued behind a wait the host has not released yet.
  auto held =
      std::find_if(stream->queue.begin(), stream->queue.end(), [](const Operation &op) { return op.heldGate(); });
  if (held != stream->queue.end())
    s.record.maxCommandsBehindGate =
        std::max(s.record.maxCommandsBehindGate, static_cast<int>(stream->queue.end() - held - 1));
  return kSuccess;
}

CUresult copy(State &s, uintptr_t destination, uintptr_t source, uint64_t bytes, bool deviceDestination,
              bool deviceSource, void *stream) {
  if ((deviceDestination && !inside(s, destination, bytes)) || (deviceSource && !inside(s, source, bytes)))
    return kIllegalAddress;
  if (!deviceDestination || !deviceSource) {
    ++s.record.hostCopies;
    const uintptr_t host = deviceDestination ? source : destination;
    auto it = s.allocations.upper_bound(host);
    const bool pinned = it != s.allocations.begin() && std::prev(it)->second.host && inside(s, host, bytes);
    s.record.pageableHostCopies += pinned ? 0 : 1;
  }
  return enqueue(s, stream, {[=] {
                   std::memmove(reinterpret_cast<void *>(destination), reinterpret_cast<const void *>(source), bytes);
                   return kSuccess;
                 }});
}

} // namespace

std::unique_lock<std::mutex> host_cuda::lock() { return std::unique_lock<std::mutex>(state().mutex); }

bool host_cuda::inside(uintptr_t address, uint64_t bytes) { return ::inside(state(), address, bytes); }

int host_cuda::enqueue(void *stream, std::function<int()> run) {
  return ::enqueue(state(), stream, Operation{std::move(run)});
}

#define FUSEC_LOCK                                                                                                     \
  State &s = state();                                                                                                  \
  std::lock_guard<std::mutex> lock(s.mutex)

extern "C" {

__attribute__((visibility("default"))) HostCudaState *hostCudaState() { return &state().record; }

CUresult cuInit(unsigned) {
  FUSEC_LOCK;
  s.initialized = true;
  return kSuccess;
}

CUresult cuDriverGetVersion(int *version) {
  FUSEC_LOCK;
  if (!version)
    return kInvalidValue;
  *version = s.record.driverVersion;
  return kSuccess;
}

CUresult cuDeviceGetCount(int *count) {
  FUSEC_LOCK;
  if (!s.initialized)
    return kNotInitialized;
  *count = 1;
  return kSuccess;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal != 0)
    return kInvalidDevice;
  *device = 0;
  return kSuccess;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  if (device != 0)
    return kInvalidDevice;
  if (attribute == kAttributeComputeCapabilityMajor)
    *value = 9;
  else if (attribute == kAttributeComputeCapabilityMinor)
    *value = 0;
  else if (attribute == kAttributeMultiprocessorCount)
    *value = 132;
  else
    return kInvalidValue;
  return kSuccess;
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  if (device != 0)
    return kInvalidDevice;
  std::strncpy(name, "fusec host CUDA double", static_cast<size_t>(length));
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, int device) {
  FUSEC_LOCK;
  if (device != 0)
    return kInvalidDevice;
  ++s.primaryRetains;
  *context = static_cast<CUcontext>(kPrimaryContext);
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  FUSEC_LOCK;
  if (device != 0 || s.primaryRetains == 0)
    return kInvalidValue;
  --s.primaryRetains;
  return kSuccess;
}

CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = static_cast<CUcontext>(currentContext);
  return kSuccess;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  // A caller's own context is accepted (and never used by this double).
  currentContext = context;
  return kSuccess;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned, int *, void **) {
  FUSEC_LOCK;
  if (currentContext != kPrimaryContext)
    return kInvalidContext;
  auto loaded = std::make_unique<Module>();
  if (std::memcmp(image,
                  "\x7f"
                  "ELF",
                  4) == 0) {
    // A CUBIN: its functions are whatever the runtime asks for, and none
    // runs (no host model has a compiled kernel's name). Plans whose
    // kernels run as library calls load their compiled forms all the same.
    loaded->binary = true;
    *module = handleOf<CUmodule>(loaded.get());
    s.modules.insert(std::move(loaded));
    ++s.record.modulesLoaded;
    return kSuccess;
  }
  const std::string text(static_cast<const char *>(image));
  if (text.find(".version") == std::string::npos)
    return kInvalidImage; // neither PTX nor a CUBIN
  for (size_t at = text.find(".entry "); at != std::string::npos; at = text.find(".entry ", at + 1)) {
    const size_t begin = at + 7, end = text.find('(', begin);
    std::string name = text.substr(begin, end - begin);
    while (!name.empty() && name.back() == ' ')
      name.pop_back();
    loaded->functions[name] = std::make_unique<Function>(Function{name});
  }
  *module = handleOf<CUmodule>(loaded.get());
  s.modules.insert(std::move(loaded));
  ++s.record.modulesLoaded;
  return kSuccess;
}

CUresult cuModuleUnload(CUmodule module) {
  FUSEC_LOCK;
  drainAll(s);
  for (auto it = s.modules.begin(); it != s.modules.end(); ++it)
    if (static_cast<const void *>(it->get()) == module) {
      s.modules.erase(it);
      return kSuccess;
    }
  return kInvalidHandle;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  FUSEC_LOCK;
  Module *found = find(s.modules, module);
  if (!found)
    return kInvalidHandle;
  auto it = found->functions.find(name);
  if (it == found->functions.end() && found->binary)
    it = found->functions.emplace(name, std::make_unique<Function>(Function{name})).first;
  if (it == found->functions.end())
    return kNotFound;
  *function = handleOf<CUfunction>(it->second.get());
  return kSuccess;
}

CUresult cuFuncSetAttribute(CUfunction, int attribute, int value) {
  FUSEC_LOCK;
  if (attribute == kFunctionAttributeMaxDynamicSharedBytes)
    s.record.maxDynamicSharedOptIn = std::max(s.record.maxDynamicSharedOptIn, value);
  return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FUSEC_LOCK;
  if (currentContext != kPrimaryContext)
    return kInvalidContext;
  if (bytes == 0)
    return kInvalidValue;
  void *memory = std::malloc(bytes);
  if (!memory)
    return kOutOfMemory;
  std::memset(memory, 0xCD, bytes);
  s.allocations[reinterpret_cast<uintptr_t>(memory)] = {bytes, false};
  s.record.deviceBytes += bytes;
  s.record.peakDeviceBytes = std::max(s.record.peakDeviceBytes, s.record.deviceBytes);
  ++s.record.deviceAllocations;
  *pointer = reinterpret_cast<uintptr_t>(memory);
  return kSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  FUSEC_LOCK;
  drainAll(s);
  auto it = s.allocations.find(static_cast<uintptr_t>(pointer));
  if (it == s.allocations.end() || it->second.host)
    return kInvalidValue;
  s.record.deviceBytes -= it->second.bytes;
  s.allocations.erase(it);
  std::free(reinterpret_cast<void *>(pointer));
  return kSuccess;
}

CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  FUSEC_LOCK;
  void *memory = std::malloc(bytes ? bytes : 1);
  if (!memory)
    return kOutOfMemory;
  s.allocations[reinterpret_cast<uintptr_t>(memory)] = {bytes ? bytes : 1, true};
  ++s.record.pinnedBuffersLive;
  *pointer = memory;
  return kSuccess;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned) {
  FUSEC_LOCK;
  if (!inside(s, reinterpret_cast<uintptr_t>(host), 1))
    return kInvalidValue;
  *device = reinterpret_cast<uintptr_t>(host);
  return kSuccess;
}

CUresult cuMemFreeHost(void *pointer) {
  FUSEC_LOCK;
  drainAll(s);
  auto it = s.allocations.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == s.allocations.end() || !it->second.host)
    return kInvalidValue;
  s.allocations.erase(it);
  --s.record.pinnedBuffersLive;
  std::free(pointer);
  return kSuccess;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t bytes, CUstream stream) {
  FUSEC_LOCK;
  return copy(s, destination, reinterpret_cast<uintptr_t>(source), bytes, true, false, stream);
}

CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source, size_t bytes, CUstream stream) {
  FUSEC_LOCK;
  return copy(s, reinterpret_cast<uintptr_t>(destination), source, bytes, false, true, stream);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes, CUstream stream) {
  FUSEC_LOCK;
  return copy(s, destination, source, bytes, true, true, stream);
}

CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value, size_t count, CUstream stream) {
  FUSEC_LOCK;
  if (!inside(s, destination, count))
    return kIllegalAddress;
  return enqueue(s, stream, {[=] {
                   std::memset(reinterpret_cast<void *>(destination), value, count);
                   return kSuccess;
                 }});
}

CUresult cuStreamCreate(CUstream *stream, unsigned) {
  FUSEC_LOCK;
  if (currentContext != kPrimaryContext)
    return kInvalidContext;
  auto created = std::make_unique<Stream>();
  created->order = s.streamsCreated++;
  *stream = handleOf<CUstream>(created.get());
  s.streams.insert(std::move(created));
  return kSuccess;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  FUSEC_LOCK;
  drainAll(s); // queued work still completes
  for (auto it = s.streams.begin(); it != s.streams.end(); ++it)
    if (static_cast<const void *>(it->get()) == stream) {
      s.streams.erase(it);
      return kSuccess;
    }
  return kInvalidHandle;
}

/// Runs every stream's runnable work, then says how `handle` stands: its
/// error (cleared), or `synchronizing` ? a hang (work held by a wait no one
/// will release: a GPU would never return) : not ready. `s` is locked.
static CUresult settleStream(State &s, CUstream handle, bool synchronizing) {
  Stream *stream = find(s.streams, handle);
  if (!stream)
    return kInvalidHandle;
  if (stream->capture)
    return kStreamCaptureInvalidated;
  drainAll(s);
  if (!stream->queue.empty()) {
    if (!synchronizing)
      return kNotReady;
    ++s.record.hangs;
    return kIllegalState;
  }
  const CUresult error = stream->error;
  stream->error = kSuccess;
  return error;
}

CUresult cuStreamSynchronize(CUstream handle) {
  FUSEC_LOCK;
  return settleStream(s, handle, /*synchronizing=*/true);
}

CUresult cuStreamQuery(CUstream handle) {
  FUSEC_LOCK;
  return settleStream(s, handle, /*synchronizing=*/false);
}

CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr address, unsigned value, unsigned) {
  FUSEC_LOCK;
  if (s.record.wait == HostCudaWait::Unsupported)
    return kNotSupported;
  if (!inside(s, address, sizeof(uint32_t)))
    return kIllegalAddress;
  ++s.record.gateClosings;
  if (s.record.wait == HostCudaWait::NotHeld)
    return kSuccess;
  const auto *flag = reinterpret_cast<const volatile uint32_t *>(address);
  if (s.record.wait == HostCudaWait::NeverReleased)
    return enqueue(s, stream, {[] { return kNotReady; }, flag, value});
  return enqueue(s, stream, {[=] { return *flag >= value ? kSuccess : kNotReady; }, flag, value});
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent handle, unsigned) {
  FUSEC_LOCK;
  Event *event = find(s.events, handle);
  if (!event)
    return kInvalidHandle;
  // Waits for the work recorded before the event: on this double, the
  // event's own queued operation has run once `recorded` is set.
  return enqueue(s, stream, {[event] { return event->recorded ? kSuccess : kNotReady; }});
}

CUresult cuLaunchKernel(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                        unsigned blockY, unsigned blockZ, unsigned sharedBytes, CUstream stream, void **params,
                        void **) {
  FUSEC_LOCK;
  const auto *kernel = reinterpret_cast<const Function *>(function);
  bool known = false;
  for (const auto &module : s.modules)
    for (const auto &[name, candidate] : module->functions)
      known = known || candidate.get() == kernel;
  if (!known)
    return kInvalidHandle;
  auto model = kernelModels().find(kernel->name);
  if (model == kernelModels().end())
    return kLaunchFailed;
  // Arguments are copied now, as CUDA copies them at launch or capture.
  std::vector<float *> pointers;
  for (size_t i = 0; i < model->second.pointerParams; ++i)
    pointers.push_back(reinterpret_cast<float *>(*static_cast<CUdeviceptr *>(params[i])));
  const uint32_t batch = *static_cast<uint32_t *>(params[model->second.pointerParams]);
  KernelModel::Scalars scalars(model->second.scalarArguments);
  if (!scalars.empty())
    std::memcpy(scalars.data(), params[model->second.pointerParams + 1], scalars.size() * sizeof(uint32_t));
  for (size_t i = 0; i < pointers.size(); ++i)
    if (!inside(s, reinterpret_cast<uintptr_t>(pointers[i]), model->second.extent(i, batch) * sizeof(float)))
      return kIllegalAddress;
  const uint64_t threads = uint64_t(gridX) * gridY * gridZ * blockX * blockY * blockZ;
  ++s.record.launches;
  s.record.maxDynamicSharedLaunched = std::max(s.record.maxDynamicSharedLaunched, sharedBytes);
  s.record.maxGridZ = std::max(s.record.maxGridZ, gridZ);
  return enqueue(s, stream, {[pointers, batch, scalars, threads, thread = model->second.thread] {
                   for (uint64_t i = 0; i < threads; ++i)
                     thread(pointers, batch, scalars, i);
                   return kSuccess;
                 }});
}

CUresult cuStreamBeginCapture_v2(CUstream handle, int) {
  FUSEC_LOCK;
  Stream *stream = find(s.streams, handle);
  if (!stream || stream->capture)
    return kIllegalState;
  auto graph = std::make_unique<Graph>();
  stream->capture = graph.get();
  s.graphs.insert(std::move(graph));
  return kSuccess;
}

CUresult cuStreamEndCapture(CUstream handle, CUgraph *graph) {
  FUSEC_LOCK;
  Stream *stream = find(s.streams, handle);
  if (!stream || !stream->capture)
    return kIllegalState;
  *graph = handleOf<CUgraph>(stream->capture);
  stream->capture = nullptr;
  return kSuccess;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  FUSEC_LOCK;
  Graph *source = find(s.graphs, graph);
  if (!source)
    return kInvalidHandle;
  auto instance = std::make_unique<Graph>(*source);
  *exec = handleOf<CUgraphExec>(instance.get());
  s.graphs.insert(std::move(instance));
  return kSuccess;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FUSEC_LOCK;
  Graph *graph = find(s.graphs, exec);
  if (!graph)
    return kInvalidHandle;
  ++s.record.graphLaunches;
  for (const Operation &operation : graph->operations)
    if (CUresult result = enqueue(s, stream, operation); result != kSuccess)
      return result;
  return kSuccess;
}

CUresult cuGraphDestroy(CUgraph graph) {
  FUSEC_LOCK;
  for (auto it = s.graphs.begin(); it != s.graphs.end(); ++it)
    if (static_cast<const void *>(it->get()) == graph) {
      s.graphs.erase(it);
      return kSuccess;
    }
  return kInvalidHandle;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) { return cuGraphDestroy(handleOf<CUgraph>(exec)); }

CUresult cuEventCreate(CUevent *event, unsigned) {
  FUSEC_LOCK;
  auto created = std::make_unique<Event>();
  *event = handleOf<CUevent>(created.get());
  s.events.insert(std::move(created));
  return kSuccess;
}

CUresult cuEventDestroy_v2(CUevent event) {
  FUSEC_LOCK;
  for (auto it = s.events.begin(); it != s.events.end(); ++it)
    if (static_cast<const void *>(it->get()) == event) {
      s.events.erase(it);
      return kSuccess;
    }
  return kInvalidHandle;
}

CUresult cuEventRecord(CUevent handle, CUstream stream) {
  FUSEC_LOCK;
  Event *event = find(s.events, handle);
  if (!event)
    return kInvalidHandle;
  event->recorded = false;
  return enqueue(s, stream, {[event] {
                   event->time = std::chrono::steady_clock::now();
                   event->recorded = true;
                   return kSuccess;
                 }});
}

CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent start, CUevent end) {
  FUSEC_LOCK;
  const Event *first = find(s.events, start), *last = find(s.events, end);
  if (!first || !last)
    return kInvalidHandle;
  if (!first->recorded || !last->recorded)
    return kNotReady;
  // At least a nanosecond: a GPU's events never read equal across work.
  *milliseconds = std::max(1e-6f, std::chrono::duration<float, std::milli>(last->time - first->time).count());
  return kSuccess;
}

CUresult cuGetErrorName(CUresult result, const char **name) {
  auto it = kErrorNames.find(result);
  if (it == kErrorNames.end())
    return kInvalidValue;
  *name = it->second.first;
  return kSuccess;
}

CUresult cuGetErrorString(CUresult result, const char **text) {
  auto it = kErrorNames.find(result);
  if (it == kErrorNames.end())
    return kInvalidValue;
  *text = it->second.second;
  return kSuccess;
}

} // extern "C"
