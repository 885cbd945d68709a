//===- DeviceWeights.cpp - A plan's weights on a device, shared by sessions -===//

#include "runtime/gpu/DeviceWeights.h"

#include "runtime/plan/PlanFormat.h"

#include <map>
#include <mutex>
#include <utility>

namespace fusec::runtime::gpu {

namespace {

/// Which copy: the loaded plan's bytes and the opened device. Drivers share
/// one object per device (see the backend registrations), so the object
/// names the device. A plan's shape variants share its bytes (and their
/// offsets point into its one weights section), so they share one copy; the
/// entry's copy keeps those bytes alive, so no other plan has that address.
using Key = std::pair<const void *, const GpuDevice *>;

std::mutex registryMutex;
std::map<Key, std::weak_ptr<const DeviceWeights>> &registry() {
  static std::map<Key, std::weak_ptr<const DeviceWeights>> copies;
  return copies;
}

} // namespace

std::shared_ptr<const DeviceWeights> DeviceWeights::acquire(const std::shared_ptr<const GpuDevice> &driver,
                                                            Stream stream, const std::shared_ptr<const Plan> &plan) {
  // Held while uploading: two sessions made at once upload one copy.
  std::lock_guard<std::mutex> lock(registryMutex);
  auto &copies = registry();
  const Key key{plan->bytes().data, driver.get()};
  if (auto it = copies.find(key); it != copies.end())
    if (std::shared_ptr<const DeviceWeights> shared = it->second.lock())
      return shared;
  // Expired entries go when their key is reused or another plan is added.
  for (auto it = copies.begin(); it != copies.end();)
    it = it->second.expired() ? copies.erase(it) : std::next(it);
  std::shared_ptr<const DeviceWeights> created(new DeviceWeights(driver, stream, plan));
  copies[key] = created;
  return created;
}

DeviceWeights::DeviceWeights(std::shared_ptr<const GpuDevice> driver, Stream stream, std::shared_ptr<const Plan> plan)
    : driver_(std::move(driver)), plan_(std::move(plan)) {
  const ByteRange weights = plan_->sectionBytes(plan::kWeightsSection);
  if (weights.size == 0)
    return;
  const std::string what = "for the weights (" + std::to_string(weights.size) + " bytes)";
  address_ = driver_->allocate(weights.size, what);
  try {
    driver_->copyHostToDevice(address_, weights.data, weights.size, stream, what);
    driver_->synchronize(stream, "while uploading the weights");
  } catch (...) {
    driver_->free(address_);
    throw;
  }
}

DeviceWeights::~DeviceWeights() {
  if (!address_)
    return;
  // The last session may be gone and the thread elsewhere: free on the
  // driver's device. As in other destructors, failures cannot be reported.
  try {
    DeviceScope scope(*driver_);
    driver_->free(address_);
  } catch (const Error &) { // NOLINT(bugprone-empty-catch)
  }
}

} // namespace fusec::runtime::gpu
