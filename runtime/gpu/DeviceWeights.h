//===- DeviceWeights.h - A plan's weights on a device, shared by sessions ---===//
//
// Every GPU session of one loaded plan on one device reads the same
// weights: the first session uploads them, the others share that copy, and
// the last one to go frees it. The copy keeps its driver object (and so the
// device) alive, so it outlives whichever session uploaded it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_DEVICEWEIGHTS_H
#define FUSEC_RUNTIME_GPU_DEVICEWEIGHTS_H

#include "runtime/gpu/GpuDevice.h"
#include "runtime/plan/Plan.h"

#include <memory>

namespace fusec::runtime::gpu {

class DeviceWeights {
public:
  /// The weights of `plan` on `driver`'s device: the copy a live session
  /// already uploaded, else a new one, uploaded on `stream` before this
  /// returns. The caller has entered the device. Thread-safe.
  static std::shared_ptr<const DeviceWeights> acquire(const std::shared_ptr<const GpuDevice> &driver, Stream stream,
                                                      const std::shared_ptr<const Plan> &plan);

  ~DeviceWeights();
  DeviceWeights(const DeviceWeights &) = delete;
  DeviceWeights &operator=(const DeviceWeights &) = delete;

  /// 0 for a plan without weights.
  DevicePtr address() const { return address_; }

private:
  DeviceWeights(std::shared_ptr<const GpuDevice> driver, Stream stream, std::shared_ptr<const Plan> plan);

  std::shared_ptr<const GpuDevice> driver_;
  /// Keeps the plan (and so the registry's key) alive while the copy is.
  std::shared_ptr<const Plan> plan_;
  DevicePtr address_ = 0;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_DEVICEWEIGHTS_H
