//===- CublasLtMatmul.h - Library variants run on cuBLASLt ------------------===//
//
// A plan's cuBLASLt variants (support/LibraryMatmul.h) on one
// device. Everything cuBLASLt decides is decided once per kernel, variant,
// batch and operand alignment, the first time a launch of it is enqueued:
// when a bucket's CUDA graph is captured, or a plain run at a new batch
// starts; a replay enqueues only the cublasLtMatmul call. The workspace is
// allocated once, with the kernels.
//
// The plan's products are row-major and cuBLASLt's column-major: a
// row-major D = op(A) op(B) is the column-major Dᵀ = op(B)ᵀ op(A)ᵀ, so the
// library is called with the operands swapped, m and n exchanged, and each
// matrix's row-major storage read as its column-major transpose. The bias,
// one value per column of the row-major D, is then one per row of Dᵀ, as
// cuBLASLt's bias epilogues add it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUBLASLTMATMUL_H
#define FUSEC_RUNTIME_CUDA_CUBLASLTMATMUL_H

#include "runtime/cuda/CublasLtApi.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/gpu/GpuDevice.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/plan/Plan.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace fusec::runtime::cuda {

/// The workspace cuBLASLt's algorithms may use: what NVIDIA recommends for
/// Hopper (smaller GPUs need less; the heuristic picks within it).
inline constexpr uint64_t kCublasLtWorkspaceBytes = uint64_t{32} << 20;

class CublasLtMatmuls {
public:
  /// Opens cuBLASLt from `library` and allocates the workspace on `driver`'s
  /// device (entered by the caller). Throws Error if the library cannot be
  /// loaded or a call fails.
  CublasLtMatmuls(const CudaDevice &driver, const Plan &plan, const std::string &library);
  ~CublasLtMatmuls();
  CublasLtMatmuls(const CublasLtMatmuls &) = delete;
  CublasLtMatmuls &operator=(const CublasLtMatmuls &) = delete;

  /// Enqueues `step`, a launch of a cuBLASLt variant, on `stream`; `args`
  /// are its buffers' addresses (inputs, then outputs).
  void run(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream, gpu::Where where) const;

  const CublasLtApi &api() const { return *api_; }

private:
  struct Prepared;
  /// kernel, variant, batch, and the alignments of A, B, C and D.
  using Key = std::tuple<size_t, size_t, int32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

  const Prepared &prepare(const Key &key, const LibraryMatmul &matmul, const LaunchStep &step, gpu::Where where) const;

  const CudaDevice &driver_;
  const Plan &plan_;
  std::shared_ptr<const CublasLtApi> api_;
  cublasLtHandle_t handle_ = nullptr;
  gpu::DevicePtr workspace_ = 0;
  mutable std::mutex mutex_;
  mutable std::map<Key, std::unique_ptr<Prepared>> prepared_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUBLASLTMATMUL_H
