//===- CudaContext.h - A device's primary context and a session's stream ----===//
//
// Opening a device is where "CUDA is unavailable" is decided: a driver that
// fails to initialize or finds no device raises CudaUnavailable (Device::Auto
// then runs on the CPU); any later failure is an ordinary Error.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUDACONTEXT_H
#define FUSEC_RUNTIME_CUDA_CUDACONTEXT_H

#include "runtime/cuda/DriverApi.h"

#include <memory>
#include <string>

namespace fusec::runtime::cuda {

class CudaContext {
public:
  /// Initializes the driver, retains device `ordinal`'s primary context
  /// (shared with any other user of the device in this process, e.g. a
  /// framework) and creates the session's stream.
  CudaContext(std::shared_ptr<const DriverApi> api, int ordinal);
  ~CudaContext();
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  const DriverApi &api() const { return *api_; }
  const std::shared_ptr<const DriverApi> &sharedApi() const { return api_; }
  CUdevice device() const { return device_; }
  CUstream stream() const { return stream_; }
  CUcontext handle() const { return context_; }
  /// A session may be used from any thread (one at a time), and a CUDA
  /// context is current per thread, so every entry point makes it current
  /// first (see ScopedCurrentContext, which also puts the caller's back).
  void makeCurrent() const;
  /// Waits for the stream; `where` names the work in an error.
  void synchronize(const std::string &where) const;

  /// Major * 10 + minor: 90 for sm_90.
  int computeCapability() const { return computeCapability_; }
  /// "NVIDIA H200 (sm_90)".
  std::string describeDevice() const;
  /// cuDriverGetVersion's: 1000 * major + 10 * minor.
  int driverVersion() const { return driverVersion_; }

private:
  std::shared_ptr<const DriverApi> api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  int computeCapability_ = 0;
  int driverVersion_ = 0;
  std::string name_;
};

/// Makes a context current on this thread for the scope, then makes the
/// caller's current one (or none) current again: an application that uses
/// CUDA itself (its own context, a framework's) finds its context as it left
/// it after every call into a session.
class ScopedCurrentContext {
public:
  /// Throws Error if the current context cannot be read or set.
  ScopedCurrentContext(const DriverApi &api, CUcontext context);
  explicit ScopedCurrentContext(const CudaContext &context) : ScopedCurrentContext(context.api(), context.handle()) {}
  /// Restores the caller's context; a failure there cannot be reported.
  ~ScopedCurrentContext();
  ScopedCurrentContext(const ScopedCurrentContext &) = delete;
  ScopedCurrentContext &operator=(const ScopedCurrentContext &) = delete;

private:
  const DriverApi &api_;
  CUcontext saved_ = nullptr;
  bool changed_ = false;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDACONTEXT_H
