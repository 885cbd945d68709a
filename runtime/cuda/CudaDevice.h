//===- CudaDevice.h - A GpuDevice on CUDA's driver API ------------------===//
//
// One CudaDevice is one CUDA device opened through one driver library: it
// retains the device's primary context (shared with any other user of the
// device in this process, e.g. a framework) for as long as a session or a
// weight copy uses it. Opening a device is where "CUDA is unavailable" is
// decided: a driver that fails to initialize or finds no device raises
// CudaUnavailable (device "auto" then runs on the CPU); any later failure is
// an ordinary Error.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUDADEVICE_H
#define FUSEC_RUNTIME_CUDA_CUDADEVICE_H

#include "runtime/Device.h"
#include "runtime/cuda/DriverApi.h"
#include "runtime/gpu/GpuDevice.h"

#include <memory>
#include <string>

namespace fusec::runtime::cuda {

class CudaDevice final : public gpu::GpuDevice {
public:
  /// The device `options.cudaDevice` through `options.cudaDriver`: the
  /// object a live session already opened, else a new one. Throws
  /// CudaUnavailable as described above. Thread-safe.
  static std::shared_ptr<const CudaDevice> open(const DeviceOptions &options);

  CudaDevice(std::shared_ptr<const DriverApi> api, int ordinal);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  const DriverApi &api() const { return *api_; }
  CUcontext context() const { return context_; }
  /// Major * 10 + minor: 90 for sm_90.
  int computeCapability() const { return computeCapability_; }
  int multiprocessorCount() const override { return multiprocessors_; }
  /// cuDriverGetVersion's: 1000 * major + 10 * minor.
  int driverVersion() const { return driverVersion_; }

  std::string name() const override { return "cuda"; }
  std::string describeDevice() const override;
  std::string performanceIdentity() const override;
  void *enter() const override;
  void leave(void *saved) const noexcept override;

  gpu::DevicePtr allocate(uint64_t bytes, gpu::Where where) const override;
  void free(gpu::DevicePtr address) const noexcept override;
  void *allocateHost(size_t bytes, gpu::Where where) const override;
  void freeHost(void *address) const noexcept override;
  std::unique_ptr<gpu::DeviceExecutable> loadKernels(const Plan &plan, const DeviceOptions &options) const override;

  gpu::Stream createStream(gpu::Where where) const override;
  void destroyStream(gpu::Stream stream) const noexcept override;
  void synchronize(gpu::Stream stream, gpu::Where where) const override;
  bool finished(gpu::Stream stream, gpu::Where where) const override;
  void copyHostToDevice(gpu::DevicePtr destination, const void *source, size_t bytes, gpu::Stream stream,
                        gpu::Where where) const override;
  void copyDeviceToHost(void *destination, gpu::DevicePtr source, size_t bytes, gpu::Stream stream,
                        gpu::Where where) const override;
  void copyDeviceToDevice(gpu::DevicePtr destination, gpu::DevicePtr source, size_t bytes, gpu::Stream stream,
                          gpu::Where where) const override;
  void zero(gpu::DevicePtr destination, size_t bytes, gpu::Stream stream, gpu::Where where) const override;
  void waitForHostFlag(gpu::Stream stream, const volatile uint32_t *flag, uint32_t value,
                       gpu::Where where) const override;

  void beginCapture(gpu::Stream stream, gpu::Where where) const override;
  gpu::Graph endCapture(gpu::Stream stream, gpu::Where where) const override;
  void abandonCapture(gpu::Stream stream) const noexcept override;
  void launchGraph(gpu::Graph graph, gpu::Stream stream, gpu::Where where) const override;
  void destroyGraph(gpu::Graph graph) const noexcept override;

  gpu::Event createEvent(gpu::Where where) const override;
  void destroyEvent(gpu::Event event) const noexcept override;
  void recordEvent(gpu::Event event, gpu::Stream stream, gpu::Where where) const override;
  void waitEvent(gpu::Stream stream, gpu::Event event, gpu::Where where) const override;
  double elapsedMilliseconds(gpu::Event start, gpu::Event end, gpu::Where where) const override;

private:
  /// Throws Error "<call> failed <where>: <reason>" unless `result` is success.
  void check(CUresult result, const char *call, gpu::Where where) const {
    if (result != kCudaSuccess)
      api_->fail(result, call, where.str());
  }

  std::shared_ptr<const DriverApi> api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  int computeCapability_ = 0;
  int multiprocessors_ = 0;
  int driverVersion_ = 0;
  std::string name_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDADEVICE_H
