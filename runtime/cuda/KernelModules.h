//===- KernelModules.h - Load a plan's kernel images onto the device --------===//
//
// Each device kernel's image (and each of its variants') becomes a CUmodule:
// the CUBIN when it was built
// for this device's architecture, else the PTX, which the driver's JIT
// compiles for the device (an sm_90 plan on an sm_100 GPU, say). Identical
// images are loaded once.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_KERNELMODULES_H
#define FUSEC_RUNTIME_CUDA_KERNELMODULES_H

#include "runtime/cuda/CublasLtMatmul.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudnnConv.h"
#include "runtime/gpu/GpuDevice.h"
#include "runtime/plan/Plan.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fusec::runtime::cuda {

/// Whether a CUBIN built for `arch` ("sm_90", or the architecture-specific
/// "sm_90a") runs on a device of compute capability `computeCapability`
/// (90). Only an exact match is trusted.
bool cubinMatchesDevice(const std::string &arch, int computeCapability);

class KernelModules final : public gpu::DeviceExecutable {
public:
  /// Throws Error naming the kernel (with the JIT log for PTX) if an image
  /// does not load or lacks its entry point. When the plan has library
  /// variants, opens cuBLASLt from `cublasLt` and cuDNN from `cudnn` (each
  /// only if some variant calls it) and asks cuDNN for an engine for each
  /// convolution; a library that does not load, or a convolution without
  /// an engine, leaves those variants unrun here (libraryUnavailable() says
  /// why).
  KernelModules(const CudaDevice &driver, const Plan &plan, const std::string &cublasLt, const std::string &cudnn);
  ~KernelModules() override;
  KernelModules(const KernelModules &) = delete;
  KernelModules &operator=(const KernelModules &) = delete;

  /// The function of kernel `index`'s `variant`; null for copy and host
  /// kernels.
  CUfunction function(size_t index, size_t variant = 0) const {
    return functions_[index].empty() ? nullptr : functions_[index][variant];
  }
  void launch(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream, gpu::Where where) const override;
  /// How many device kernels (their own configs, not their variants) were
  /// loaded from PTX rather than CUBIN.
  size_t jitCompiled() const override { return jitCompiled_; }
  bool runsLibraryVariant(size_t kernel, size_t variant) const override;
  std::string libraryUnavailable() const override;

private:
  /// Encodes `map` for `buffer` at `batch` into the 128 bytes at `encoded`
  /// (64-byte aligned). Throws Error naming the kernel if the driver lacks
  /// cuTensorMapEncodeTiled or refuses the map.
  void encodeTensorMap(const TensorMapDesc &map, gpu::DevicePtr buffer, int32_t batch, void *encoded,
                       gpu::Where where) const;
  /// Opens the libraries the plan's library variants call.
  void loadLibraries(const std::string &cublasLt, const std::string &cudnn);

  const CudaDevice &driver_;
  const Plan &plan_;
  /// Set when the plan has variants of the library and it loaded.
  std::unique_ptr<CublasLtMatmuls> matmuls_;
  std::unique_ptr<CudnnConvs> convs_;
  /// Why a library did not load, and the (kernel, variant)s cuDNN has no
  /// engine for with the first such kernel's reason.
  std::vector<std::string> unloaded_;
  std::set<std::pair<size_t, size_t>> noEngine_;
  std::string firstNoEngine_;
  std::vector<CUmodule> modules_;
  /// By kernel, then variant (none for copy and host kernels).
  std::vector<std::vector<CUfunction>> functions_;
  size_t jitCompiled_ = 0;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_KERNELMODULES_H
