//===- KernelModules.h - Load a plan's kernel images onto the device --------===//
//
// Each device kernel's image becomes a CUmodule: the CUBIN when it was built
// for this device's architecture, else the PTX, which the driver's JIT
// compiles for the device (an sm_90 plan on an sm_100 GPU, say). Identical
// images are loaded once.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_KERNELMODULES_H
#define FUSEC_RUNTIME_CUDA_KERNELMODULES_H

#include "runtime/cuda/CudaDriver.h"
#include "runtime/gpu/GpuDriver.h"
#include "runtime/plan/Plan.h"

#include <string>
#include <vector>

namespace fusec::runtime::cuda {

/// Whether a CUBIN built for `arch` ("sm_90", or the architecture-specific
/// "sm_90a") runs on a device of compute capability `computeCapability`
/// (90). Only an exact match is trusted.
bool cubinMatchesDevice(const std::string &arch, int computeCapability);

class KernelModules final : public gpu::KernelSet {
public:
  /// Throws Error naming the kernel (with the JIT log for PTX) if an image
  /// does not load or lacks its entry point.
  KernelModules(const CudaDriver &driver, const Plan &plan);
  ~KernelModules() override;
  KernelModules(const KernelModules &) = delete;
  KernelModules &operator=(const KernelModules &) = delete;

  /// The function of kernel `index`; null for copy and host kernels.
  CUfunction function(size_t index) const { return functions_[index]; }
  void launch(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream, gpu::Where where) const override;
  /// How many device kernels were loaded from PTX rather than CUBIN.
  size_t jitCompiled() const override { return jitCompiled_; }

private:
  const CudaDriver &driver_;
  std::vector<CUmodule> modules_;
  std::vector<CUfunction> functions_;
  size_t jitCompiled_ = 0;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_KERNELMODULES_H
