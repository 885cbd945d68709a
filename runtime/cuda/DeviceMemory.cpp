//===- DeviceMemory.cpp - One device allocation, freed with its owner -------===//

#include "runtime/cuda/DeviceMemory.h"

#include <utility>

namespace fusec::runtime::cuda {

DeviceBuffer::DeviceBuffer(const CudaContext &context, uint64_t bytes, const std::string &what)
    : api_(&context.api()), bytes_(bytes) {
  // cuMemAlloc rejects 0 bytes; an empty region is never dereferenced.
  if (bytes == 0)
    return;
  api_->check(api_->memAlloc(&address_, static_cast<size_t>(bytes)), "cuMemAlloc",
              "for " + what + " (" + std::to_string(bytes) + " bytes)");
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : api_(other.api_), address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    api_ = other.api_;
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() {
  // As in ~CudaContext, a failing free cannot be reported from here.
  if (address_)
    api_->memFree(address_);
  address_ = 0;
}

} // namespace fusec::runtime::cuda
