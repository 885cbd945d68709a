//===- CudaContext.cpp - A device's primary context and a session's stream --===//

#include "runtime/cuda/CudaContext.h"

namespace fusec::runtime::cuda {

CudaContext::CudaContext(std::shared_ptr<const DriverApi> api, int ordinal) : api_(std::move(api)) {
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
  char name[256] = {};
  cu.check(cu.deviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName", where);
  name_ = name;

  cu.check(cu.devicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", where);
  try {
    ScopedCurrentContext current(cu, context_);
    // Non-blocking: the session's work never waits for, or holds up, work
    // others put on the legacy default stream.
    cu.check(cu.streamCreate(&stream_, kStreamNonBlocking), "cuStreamCreate", where);
  } catch (...) {
    cu.devicePrimaryCtxRelease(device_);
    throw;
  }
}

CudaContext::~CudaContext() {
  // Teardown errors are ignored: a destructor cannot report them, and the
  // process can do nothing about a failing device at this point.
  CUcontext saved = nullptr;
  const bool restore = api_->ctxGetCurrent(&saved) == kCudaSuccess;
  api_->ctxSetCurrent(context_);
  api_->streamDestroy(stream_);
  api_->devicePrimaryCtxRelease(device_);
  // The caller's context, even if it is this primary context: the caller
  // then holds a reference of its own, so the context is still alive.
  if (restore)
    api_->ctxSetCurrent(saved);
}

void CudaContext::makeCurrent() const {
  api_->check(api_->ctxSetCurrent(context_), "cuCtxSetCurrent", "while making the session's CUDA context current");
}

void CudaContext::synchronize(const std::string &where) const {
  api_->check(api_->streamSynchronize(stream_), "cuStreamSynchronize", where);
}

ScopedCurrentContext::ScopedCurrentContext(const DriverApi &api, CUcontext context) : api_(api) {
  api_.check(api_.ctxGetCurrent(&saved_), "cuCtxGetCurrent", "while saving the caller's CUDA context");
  if (saved_ != context) {
    api_.check(api_.ctxSetCurrent(context), "cuCtxSetCurrent", "while making the session's CUDA context current");
    changed_ = true;
  }
}

ScopedCurrentContext::~ScopedCurrentContext() {
  if (changed_)
    api_.ctxSetCurrent(saved_);
}

std::string CudaContext::describeDevice() const { return name_ + " (sm_" + std::to_string(computeCapability_) + ")"; }

} // namespace fusec::runtime::cuda
