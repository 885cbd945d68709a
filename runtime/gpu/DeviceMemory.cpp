//===- DeviceMemory.cpp - Device and pinned host allocations, freed by owners //

#include "runtime/gpu/DeviceMemory.h"

#include <utility>

namespace fusec::runtime::gpu {

namespace {

std::string describe(const std::string &what, uint64_t bytes) {
  return "for " + what + " (" + std::to_string(bytes) + " bytes)";
}

} // namespace

DeviceBuffer::DeviceBuffer(const GpuDevice &driver, uint64_t bytes, const std::string &what)
    : driver_(&driver), bytes_(bytes) {
  // Drivers reject 0 bytes; an empty region is never dereferenced.
  if (bytes > 0)
    address_ = driver.allocate(bytes, [&] { return describe(what, bytes); });
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver_(other.driver_), address_(std::exchange(other.address_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    driver_ = other.driver_;
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() {
  if (address_)
    driver_->free(address_);
  address_ = 0;
}

PinnedBuffer::PinnedBuffer(const GpuDevice &driver, size_t bytes, const std::string &what)
    : driver_(&driver), bytes_(bytes) {
  if (bytes > 0)
    data_ = static_cast<uint8_t *>(driver.allocateHost(bytes, [&] { return describe(what, bytes); }));
}

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer &&other) noexcept
    : driver_(other.driver_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer &PinnedBuffer::operator=(PinnedBuffer &&other) noexcept {
  if (this != &other) {
    release();
    driver_ = other.driver_;
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void PinnedBuffer::release() {
  if (data_)
    driver_->freeHost(data_);
  data_ = nullptr;
}

} // namespace fusec::runtime::gpu
