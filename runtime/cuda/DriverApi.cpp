//===- DriverApi.cpp - The CUDA driver API, loaded with dlopen --------------===//

#include "runtime/cuda/DriverApi.h"

#include <dlfcn.h>

namespace fusec::runtime::cuda {

DriverApi::DriverApi(std::string library, void *handle) : library_(std::move(library)), handle_(handle) {}

// The library is never closed (see load()).
DriverApi::~DriverApi() = default;

template <typename Function> void DriverApi::resolve(Function &slot, std::initializer_list<const char *> symbols) {
  for (const char *symbol : symbols)
    if (void *address = dlsym(handle_, symbol)) {
      slot = reinterpret_cast<Function>(address);
      return;
    }
  throw CudaUnavailable("the CUDA driver '" + library_ + "' does not export " + *symbols.begin() +
                        " (the driver is too old)");
}

template <typename Function> void DriverApi::resolveOptional(Function &slot, const char *symbol) {
  slot = reinterpret_cast<Function>(dlsym(handle_, symbol));
}

std::shared_ptr<const DriverApi> DriverApi::load(const std::string &library) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  // RTLD_NODELETE, and no dlclose: once initialized, the driver has threads
  // and exit handlers of its own, which would run in unmapped code (a crash
  // or a hang at exit) if the library went away with the last session.
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char *reason = dlerror();
    throw CudaUnavailable("cannot load the CUDA driver '" + library + "': " + (reason ? reason : "unknown reason"));
  }
  std::shared_ptr<DriverApi> api(new DriverApi(library, handle));
  // The versioned symbol first where cuda.h maps the name to one; a fallback
  // is listed only where the older symbol has the same signature (for
  // drivers older than the version suffix).
  api->resolve(api->init, {"cuInit"});
  api->resolve(api->driverGetVersion, {"cuDriverGetVersion"});
  api->resolve(api->deviceGetCount, {"cuDeviceGetCount"});
  api->resolve(api->deviceGet, {"cuDeviceGet"});
  api->resolve(api->deviceGetAttribute, {"cuDeviceGetAttribute"});
  api->resolve(api->deviceGetName, {"cuDeviceGetName"});
  api->resolve(api->devicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  api->resolve(api->devicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  api->resolve(api->ctxGetCurrent, {"cuCtxGetCurrent"});
  api->resolve(api->ctxSetCurrent, {"cuCtxSetCurrent"});
  api->resolve(api->moduleLoadDataEx, {"cuModuleLoadDataEx"});
  api->resolve(api->moduleUnload, {"cuModuleUnload"});
  api->resolve(api->moduleGetFunction, {"cuModuleGetFunction"});
  api->resolve(api->funcSetAttribute, {"cuFuncSetAttribute"});
  api->resolve(api->memAlloc, {"cuMemAlloc_v2"});
  api->resolve(api->memFree, {"cuMemFree_v2"});
  api->resolve(api->memHostAlloc, {"cuMemHostAlloc"});
  api->resolve(api->memHostGetDevicePointer, {"cuMemHostGetDevicePointer_v2"});
  api->resolve(api->memFreeHost, {"cuMemFreeHost"});
  api->resolve(api->memcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"});
  api->resolve(api->memcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"});
  api->resolve(api->memcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
  api->resolve(api->memsetD8Async, {"cuMemsetD8Async"});
  api->resolve(api->streamCreate, {"cuStreamCreate"});
  api->resolve(api->streamDestroy, {"cuStreamDestroy_v2"});
  api->resolve(api->streamSynchronize, {"cuStreamSynchronize"});
  api->resolve(api->streamQuery, {"cuStreamQuery"});
  api->resolve(api->streamWaitValue32, {"cuStreamWaitValue32_v2"});
  api->resolve(api->streamWaitEvent, {"cuStreamWaitEvent"});
  api->resolve(api->launchKernel, {"cuLaunchKernel"});
  api->resolve(api->streamBeginCapture, {"cuStreamBeginCapture_v2"});
  api->resolve(api->streamEndCapture, {"cuStreamEndCapture"});
  api->resolve(api->graphInstantiate, {"cuGraphInstantiateWithFlags"});
  api->resolve(api->graphLaunch, {"cuGraphLaunch"});
  api->resolve(api->graphDestroy, {"cuGraphDestroy"});
  api->resolve(api->graphExecDestroy, {"cuGraphExecDestroy"});
  api->resolve(api->eventCreate, {"cuEventCreate"});
  api->resolve(api->eventDestroy, {"cuEventDestroy_v2"});
  api->resolve(api->eventRecord, {"cuEventRecord"});
  api->resolve(api->eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  api->resolve(api->getErrorName, {"cuGetErrorName"});
  api->resolve(api->getErrorString, {"cuGetErrorString"});
  api->resolveOptional(api->tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  return api;
}

namespace {

/// Names for the codes a driver that cannot describe them returns: the
/// toolkit's stub libcuda fails cuGetErrorName too.
const char *knownErrorName(CUresult result) {
  switch (result) {
  case 3:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case 34:
    return "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda, not a driver)";
  case 35:
    return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  default:
    return nullptr;
  }
}

} // namespace

std::string DriverApi::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  // Both fail for codes the driver does not know.
  if (getErrorName(result, &name) != kCudaSuccess || !name) {
    if (const char *known = knownErrorName(result))
      return std::string(known) + " (CUDA error " + std::to_string(result) + ")";
    return "CUDA error " + std::to_string(result);
  }
  std::string description = name;
  if (getErrorString(result, &text) == kCudaSuccess && text)
    description += std::string(" (") + text + ")";
  return description;
}

void DriverApi::check(CUresult result, const char *call, const std::string &where) const {
  if (result != kCudaSuccess)
    fail(result, call, where);
}

void DriverApi::fail(CUresult result, const char *call, const std::string &where) const {
  throw Error(std::string(call) + " failed " + where + ": " + describe(result));
}

} // namespace fusec::runtime::cuda
