//===- DeviceMemory.h - One device allocation, freed with its owner ---------===//
#ifndef FUSEC_RUNTIME_CUDA_DEVICEMEMORY_H
#define FUSEC_RUNTIME_CUDA_DEVICEMEMORY_H

#include "runtime/cuda/CudaContext.h"

#include <cstdint>
#include <string>

namespace fusec::runtime::cuda {

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (nothing for 0: address() is then 0). `what` names
  /// the buffer in an error, e.g. "the workspace for batch 16".
  DeviceBuffer(const CudaContext &context, uint64_t bytes, const std::string &what);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr address() const { return address_; }
  uint64_t bytes() const { return bytes_; }

private:
  void release();

  const DriverApi *api_ = nullptr;
  CUdeviceptr address_ = 0;
  uint64_t bytes_ = 0;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_DEVICEMEMORY_H
