//===- DeviceWeights.h - A plan's weights on a device, shared by sessions ---===//
//
// Every CUDA session of one loaded plan on one device reads the same
// weights: the first session uploads them, the others share that copy, and
// the last one to go frees it. The copy keeps the device's primary context
// retained, so it outlives whichever session uploaded it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_DEVICEWEIGHTS_H
#define FUSEC_RUNTIME_CUDA_DEVICEWEIGHTS_H

#include "runtime/cuda/CudaContext.h"
#include "runtime/plan/Plan.h"

#include <memory>

namespace fusec::runtime::cuda {

class DeviceWeights {
public:
  /// The weights of `plan` on `context`'s device, loaded through the same
  /// driver library: the copy a live session already uploaded, else a new
  /// one, uploaded on `context`'s stream before this returns. `context` must
  /// be current. Thread-safe.
  static std::shared_ptr<const DeviceWeights> acquire(const CudaContext &context,
                                                      const std::shared_ptr<const Plan> &plan);

  ~DeviceWeights();
  DeviceWeights(const DeviceWeights &) = delete;
  DeviceWeights &operator=(const DeviceWeights &) = delete;

  /// 0 for a plan without weights.
  CUdeviceptr address() const { return address_; }

private:
  DeviceWeights(const CudaContext &context, std::shared_ptr<const Plan> plan);

  std::shared_ptr<const DriverApi> api_;
  /// Keeps the plan (and so the registry's key) alive while the copy is.
  std::shared_ptr<const Plan> plan_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUdeviceptr address_ = 0;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_DEVICEWEIGHTS_H
