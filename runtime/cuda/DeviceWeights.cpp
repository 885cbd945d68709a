//===- DeviceWeights.cpp - A plan's weights on a device, shared by sessions -===//

#include "runtime/cuda/DeviceWeights.h"

#include "runtime/plan/PlanFormat.h"

#include <map>
#include <mutex>
#include <tuple>

namespace fusec::runtime::cuda {

namespace {

/// Which copy: the plan, the driver library and the device.
using Key = std::tuple<const Plan *, std::string, CUdevice>;

std::mutex registryMutex;
std::map<Key, std::weak_ptr<const DeviceWeights>> &registry() {
  static std::map<Key, std::weak_ptr<const DeviceWeights>> copies;
  return copies;
}

} // namespace

std::shared_ptr<const DeviceWeights> DeviceWeights::acquire(const CudaContext &context,
                                                            const std::shared_ptr<const Plan> &plan) {
  // Held while uploading: two sessions made at once upload one copy.
  std::lock_guard<std::mutex> lock(registryMutex);
  auto &copies = registry();
  const Key key{plan.get(), context.api().library(), context.device()};
  if (auto it = copies.find(key); it != copies.end())
    if (std::shared_ptr<const DeviceWeights> shared = it->second.lock())
      return shared;
  // Expired entries go when their key is reused or another plan is added.
  for (auto it = copies.begin(); it != copies.end();)
    it = it->second.expired() ? copies.erase(it) : std::next(it);
  std::shared_ptr<const DeviceWeights> created(new DeviceWeights(context, plan));
  copies[key] = created;
  return created;
}

DeviceWeights::DeviceWeights(const CudaContext &context, std::shared_ptr<const Plan> plan)
    : api_(context.sharedApi()), plan_(std::move(plan)), device_(context.device()) {
  const DriverApi &cu = *api_;
  const ByteRange weights = plan_->sectionBytes(plan::kWeightsSection);
  cu.check(cu.devicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", "for the weights");
  if (weights.size == 0)
    return;
  const std::string what = "for the weights (" + std::to_string(weights.size) + " bytes)";
  if (CUresult result = cu.memAlloc(&address_, weights.size); result != kCudaSuccess) {
    cu.devicePrimaryCtxRelease(device_);
    cu.fail(result, "cuMemAlloc", what);
  }
  try {
    cu.check(cu.memcpyHtoDAsync(address_, weights.data, weights.size, context.stream()), "cuMemcpyHtoDAsync", what);
    context.synchronize("while uploading the weights");
  } catch (...) {
    cu.memFree(address_);
    cu.devicePrimaryCtxRelease(device_);
    throw;
  }
}

DeviceWeights::~DeviceWeights() {
  // The last session may be gone and another context current on this
  // thread: free in the primary context, then put the caller's back. As in
  // ~CudaContext, failures cannot be reported from here.
  CUcontext saved = nullptr;
  const bool restore = api_->ctxGetCurrent(&saved) == kCudaSuccess;
  api_->ctxSetCurrent(context_);
  if (address_)
    api_->memFree(address_);
  if (restore)
    api_->ctxSetCurrent(saved);
  api_->devicePrimaryCtxRelease(device_);
}

} // namespace fusec::runtime::cuda
