//===- CudnnApi.cpp - cuDNN's backend API, loaded with dlopen -------------===//

#include "runtime/cuda/CudnnApi.h"

#include <dlfcn.h>

namespace fusec::runtime::cuda {

template <typename Function> void CudnnApi::resolve(Function &slot, const char *symbol) {
  void *address = dlsym(handle_, symbol);
  if (!address)
    throw Error("the cuDNN library '" + library_ + "' does not export " + symbol + " (the library is too old)");
  slot = reinterpret_cast<Function>(address);
}

std::shared_ptr<const CudnnApi> CudnnApi::load(const std::string &library) {
  // As the driver: local symbols, never unloaded (cuDNN keeps its engine
  // sublibraries and their state loaded once used).
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char *reason = dlerror();
    throw Error("cannot load cuDNN '" + library + "': " + (reason ? reason : "unknown reason"));
  }
  std::shared_ptr<CudnnApi> api(new CudnnApi(library, handle));
  api->resolve(api->getVersion, "cudnnGetVersion");
  api->resolve(api->getErrorString, "cudnnGetErrorString");
  api->resolve(api->create, "cudnnCreate");
  api->resolve(api->destroy, "cudnnDestroy");
  api->resolve(api->setStream, "cudnnSetStream");
  api->resolve(api->backendCreateDescriptor, "cudnnBackendCreateDescriptor");
  api->resolve(api->backendDestroyDescriptor, "cudnnBackendDestroyDescriptor");
  api->resolve(api->backendFinalize, "cudnnBackendFinalize");
  api->resolve(api->backendSetAttribute, "cudnnBackendSetAttribute");
  api->resolve(api->backendGetAttribute, "cudnnBackendGetAttribute");
  api->resolve(api->backendExecute, "cudnnBackendExecute");
  return api;
}

namespace {

/// What a status's category means (cudnn_graph.h groups them by thousands).
const char *categoryText(cudnnStatus_t status) {
  switch (cudnnStatusCategory(status)) {
  case kCudnnSuccess:
    return "success";
  case 1000:
    return "the library or its state is not usable";
  case kCudnnBadParam:
    return "a bad parameter";
  case kCudnnNotSupported:
    return "not supported: no engine for this problem or configuration";
  case kCudnnInternalError:
    return "an internal error";
  case kCudnnExecutionFailed:
    return "the GPU program failed to execute";
  default:
    return "an unknown status";
  }
}

} // namespace

std::string CudnnApi::describe(cudnnStatus_t status) const {
  const char *name = getErrorString(status);
  std::string description = name && *name ? name : "cuDNN status " + std::to_string(status);
  return description + " (" + categoryText(status) + ")";
}

void CudnnApi::check(cudnnStatus_t status, const char *call, const std::string &where) const {
  if (status != kCudnnSuccess)
    throw Error(std::string(call) + " failed " + where + ": " + describe(status));
}

} // namespace fusec::runtime::cuda
