//===- DeviceMemory.h - Device and pinned host allocations, freed by owners -===//
#ifndef FUSEC_RUNTIME_GPU_DEVICEMEMORY_H
#define FUSEC_RUNTIME_GPU_DEVICEMEMORY_H

#include "runtime/gpu/GpuDevice.h"

#include <cstdint>
#include <string>

namespace fusec::runtime::gpu {

/// One device allocation.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (nothing for 0: address() is then 0). `what` names
  /// the buffer in an error, e.g. "the workspace for batch 16".
  DeviceBuffer(const GpuDevice &driver, uint64_t bytes, const std::string &what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  DevicePtr address() const { return address_; }
  uint64_t bytes() const { return bytes_; }

private:
  void release();

  const GpuDevice *driver_ = nullptr;
  DevicePtr address_ = 0;
  uint64_t bytes_ = 0;
};

/// Page-locked host memory (GpuDevice::allocateHost).
class PinnedBuffer {
public:
  PinnedBuffer() = default;
  /// Throws Error naming `what` if the driver cannot allocate it.
  PinnedBuffer(const GpuDevice &driver, size_t bytes, const std::string &what);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer &&other) noexcept;
  PinnedBuffer &operator=(PinnedBuffer &&other) noexcept;
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;

  uint8_t *data() const { return data_; }
  size_t bytes() const { return bytes_; }

private:
  void release();

  const GpuDevice *driver_ = nullptr;
  uint8_t *data_ = nullptr;
  size_t bytes_ = 0;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_DEVICEMEMORY_H
