//===- CudaDevice.cpp - A GpuDevice on CUDA's driver API ----------------===//

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/DriverVersion.h"

#include "runtime/cuda/KernelModules.h"

#include <map>
#include <mutex>
#include <utility>

namespace fusec::runtime::cuda {

namespace {

CUstream asStream(gpu::Stream stream) { return static_cast<CUstream>(stream); }
CUevent asEvent(gpu::Event event) { return static_cast<CUevent>(event); }
CUgraphExec asGraph(gpu::Graph graph) { return static_cast<CUgraphExec>(graph); }

/// Opened devices by driver library and ordinal, while anyone uses them.
std::mutex openedMutex;
std::map<std::pair<std::string, int>, std::weak_ptr<const CudaDevice>> &opened() {
  static std::map<std::pair<std::string, int>, std::weak_ptr<const CudaDevice>> drivers;
  return drivers;
}

} // namespace

std::shared_ptr<const CudaDevice> CudaDevice::open(const DeviceOptions &options) {
  std::lock_guard<std::mutex> lock(openedMutex);
  auto &drivers = opened();
  const std::pair<std::string, int> key{options.cudaDriver, options.cudaDevice};
  if (auto it = drivers.find(key); it != drivers.end())
    if (std::shared_ptr<const CudaDevice> shared = it->second.lock())
      return shared;
  auto driver = std::make_shared<const CudaDevice>(DriverApi::load(options.cudaDriver), options.cudaDevice);
  drivers[key] = driver;
  return driver;
}

CudaDevice::CudaDevice(std::shared_ptr<const DriverApi> api, int ordinal) : api_(std::move(api)) {
  const DriverApi &cu = *api_;
  const std::string driver = "the CUDA driver '" + cu.library() + "'";
  if (CUresult result = cu.init(0); result != kCudaSuccess)
    throw CudaUnavailable(driver + " failed to initialize: " + cu.describe(result));
  cu.check(cu.driverGetVersion(&driverVersion_), "cuDriverGetVersion", "while opening " + driver);
  int count = 0;
  if (CUresult result = cu.deviceGetCount(&count); result != kCudaSuccess)
    throw CudaUnavailable(driver + " cannot count devices: " + cu.describe(result));
  if (count == 0)
    throw CudaUnavailable(driver + " found no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    throw CudaUnavailable("there is no CUDA device " + std::to_string(ordinal) + " (" + driver + " found " +
                          std::to_string(count) + ")");

  const std::string where = "while opening CUDA device " + std::to_string(ordinal);
  cu.check(cu.deviceGet(&device_, ordinal), "cuDeviceGet", where);
  int major = 0, minor = 0;
  cu.check(cu.deviceGetAttribute(&major, kAttributeComputeCapabilityMajor, device_), "cuDeviceGetAttribute", where);
  cu.check(cu.deviceGetAttribute(&minor, kAttributeComputeCapabilityMinor, device_), "cuDeviceGetAttribute", where);
  computeCapability_ = major * 10 + minor;
  cu.check(cu.deviceGetAttribute(&multiprocessors_, kAttributeMultiprocessorCount, device_), "cuDeviceGetAttribute",
           where);
  char name[256] = {};
  cu.check(cu.deviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName", where);
  name_ = name;
  cu.check(cu.devicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", where);
}

CudaDevice::~CudaDevice() {
  // A destructor cannot report a failure, and the process can do nothing
  // about a failing device at this point.
  api_->devicePrimaryCtxRelease(device_);
}

std::string CudaDevice::describeDevice() const { return name_ + " (sm_" + std::to_string(computeCapability_) + ")"; }

std::string CudaDevice::performanceIdentity() const {
  return describeDevice() + ", driver " + formatCudaVersion(driverVersion_);
}

void *CudaDevice::enter() const {
  // A session may be used from any thread (one at a time), and a CUDA
  // context is current per thread. The caller's context (a framework's, or
  // none) is put back by leave(): an application that uses CUDA itself finds
  // its context as it left it after every call into a session.
  CUcontext saved = nullptr;
  api_->check(api_->ctxGetCurrent(&saved), "cuCtxGetCurrent", "while saving the caller's CUDA context");
  if (saved != context_)
    api_->check(api_->ctxSetCurrent(context_), "cuCtxSetCurrent", "while making the session's CUDA context current");
  return saved;
}

void CudaDevice::leave(void *saved) const noexcept {
  auto *caller = static_cast<CUcontext>(saved);
  if (caller != context_)
    api_->ctxSetCurrent(caller);
}

gpu::DevicePtr CudaDevice::allocate(uint64_t bytes, gpu::Where where) const {
  CUdeviceptr address = 0;
  check(api_->memAlloc(&address, static_cast<size_t>(bytes)), "cuMemAlloc", where);
  return address;
}

void CudaDevice::free(gpu::DevicePtr address) const noexcept { api_->memFree(address); }

void *CudaDevice::allocateHost(size_t bytes, gpu::Where where) const {
  void *host = nullptr;
  // Mapped, so that a stream may also wait on a word of it (waitForHostFlag).
  check(api_->memHostAlloc(&host, bytes, kMemHostAllocDeviceMap), "cuMemHostAlloc", where);
  return host;
}

void CudaDevice::freeHost(void *address) const noexcept { api_->memFreeHost(address); }

std::unique_ptr<gpu::DeviceExecutable> CudaDevice::loadKernels(const Plan &plan, const DeviceOptions &options) const {
  return std::make_unique<KernelModules>(*this, plan, options.cublasLt, options.cudnn);
}

gpu::Stream CudaDevice::createStream(gpu::Where where) const {
  CUstream stream = nullptr;
  // Non-blocking: the session's work never waits for, or holds up, work
  // others put on the legacy default stream.
  check(api_->streamCreate(&stream, kStreamNonBlocking), "cuStreamCreate", where);
  return stream;
}

void CudaDevice::destroyStream(gpu::Stream stream) const noexcept { api_->streamDestroy(asStream(stream)); }

void CudaDevice::synchronize(gpu::Stream stream, gpu::Where where) const {
  check(api_->streamSynchronize(asStream(stream)), "cuStreamSynchronize", where);
}

bool CudaDevice::finished(gpu::Stream stream, gpu::Where where) const {
  const CUresult result = api_->streamQuery(asStream(stream));
  if (result == kCudaErrorNotReady)
    return false;
  check(result, "cuStreamQuery", where);
  return true;
}

void CudaDevice::copyHostToDevice(gpu::DevicePtr destination, const void *source, size_t bytes, gpu::Stream stream,
                                  gpu::Where where) const {
  check(api_->memcpyHtoDAsync(destination, source, bytes, asStream(stream)), "cuMemcpyHtoDAsync", where);
}

void CudaDevice::copyDeviceToHost(void *destination, gpu::DevicePtr source, size_t bytes, gpu::Stream stream,
                                  gpu::Where where) const {
  check(api_->memcpyDtoHAsync(destination, source, bytes, asStream(stream)), "cuMemcpyDtoHAsync", where);
}

void CudaDevice::copyDeviceToDevice(gpu::DevicePtr destination, gpu::DevicePtr source, size_t bytes, gpu::Stream stream,
                                    gpu::Where where) const {
  check(api_->memcpyDtoDAsync(destination, source, bytes, asStream(stream)), "cuMemcpyDtoDAsync", where);
}

void CudaDevice::zero(gpu::DevicePtr destination, size_t bytes, gpu::Stream stream, gpu::Where where) const {
  // Bytewise: rows of 2- and 1-byte elements need not be 4-byte aligned.
  check(api_->memsetD8Async(destination, 0, bytes, asStream(stream)), "cuMemsetD8Async", where);
}

void CudaDevice::waitForHostFlag(gpu::Stream stream, const volatile uint32_t *flag, uint32_t value,
                                 gpu::Where where) const {
  CUdeviceptr deviceFlag = 0;
  check(api_->memHostGetDevicePointer(&deviceFlag, const_cast<uint32_t *>(flag), /*flags=*/0),
        "cuMemHostGetDevicePointer", where);
  check(api_->streamWaitValue32(asStream(stream), deviceFlag, value, kStreamWaitValueGeq), "cuStreamWaitValue32",
        where);
}

void CudaDevice::beginCapture(gpu::Stream stream, gpu::Where where) const {
  // Thread-local: only this thread's CUDA calls are checked against it.
  check(api_->streamBeginCapture(asStream(stream), kCaptureModeThreadLocal), "cuStreamBeginCapture", where);
}

gpu::Graph CudaDevice::endCapture(gpu::Stream stream, gpu::Where where) const {
  CUgraph graph = nullptr;
  check(api_->streamEndCapture(asStream(stream), &graph), "cuStreamEndCapture", where);
  CUgraphExec exec = nullptr;
  const CUresult instantiated = api_->graphInstantiate(&exec, graph, 0);
  // The executable graph is independent of the graph it was made from.
  api_->graphDestroy(graph);
  check(instantiated, "cuGraphInstantiateWithFlags", where);
  return exec;
}

void CudaDevice::abandonCapture(gpu::Stream stream) const noexcept {
  CUgraph partial = nullptr;
  api_->streamEndCapture(asStream(stream), &partial);
  if (partial)
    api_->graphDestroy(partial);
}

void CudaDevice::launchGraph(gpu::Graph graph, gpu::Stream stream, gpu::Where where) const {
  check(api_->graphLaunch(asGraph(graph), asStream(stream)), "cuGraphLaunch", where);
}

void CudaDevice::destroyGraph(gpu::Graph graph) const noexcept { api_->graphExecDestroy(asGraph(graph)); }

gpu::Event CudaDevice::createEvent(gpu::Where where) const {
  CUevent event = nullptr;
  check(api_->eventCreate(&event, kEventDefault), "cuEventCreate", where);
  return event;
}

void CudaDevice::destroyEvent(gpu::Event event) const noexcept { api_->eventDestroy(asEvent(event)); }

void CudaDevice::recordEvent(gpu::Event event, gpu::Stream stream, gpu::Where where) const {
  check(api_->eventRecord(asEvent(event), asStream(stream)), "cuEventRecord", where);
}

void CudaDevice::waitEvent(gpu::Stream stream, gpu::Event event, gpu::Where where) const {
  check(api_->streamWaitEvent(asStream(stream), asEvent(event), 0), "cuStreamWaitEvent", where);
}

double CudaDevice::elapsedMilliseconds(gpu::Event start, gpu::Event end, gpu::Where where) const {
  float milliseconds = 0.0f;
  check(api_->eventElapsedTime(&milliseconds, asEvent(start), asEvent(end)), "cuEventElapsedTime", where);
  return milliseconds;
}

} // namespace fusec::runtime::cuda
