//===- CudnnConv.h - Library variants run on cuDNN ------------------------===//
//
// A plan's cuDNN variants (support/LibraryConv.h) on one device,
// through cuDNN 9's backend (graph) API. Everything cuDNN decides is decided
// once per kernel, variant, batch and operand alignment, the first time it
// is needed: when unsupported() asks, when a bucket's CUDA graph is
// captured, or when a plain run at a new batch starts. A replay enqueues
// only what the captured cudnnBackendExecute enqueued; a run() builds a
// variant pack (host work) and executes the prepared plan. The workspace is
// allocated once, with the kernels.
//
// The operation graph of one LibraryConv:
//
//   x, w --CONVOLUTION_FORWARD (alpha, beta 0)--> t0
//        --POINTWISE ADD bias--> t1 --POINTWISE ADD (alpha2 = beta) residual--> t2
//        --POINTWISE RELU_FWD--> y
//
// with only the steps the conv has; the last writes the real output and the
// others virtual f32 tensors (the sums stay in f32 until the output is
// rounded once). Tensors are described by their logical dimensions, always
// N, C, H, W (the filter's K, C / groups, R, S: cuDNN infers the groups from
// the filter's channels), and strides that express the layout: NCHW/KCRS or
// NHWC/KRSC, dense. The bias is [1, K, 1, 1], broadcast.
//
// Engines come from the heuristics in mode A, then mode FALLBACK; the first
// engine config whose execution plan finalizes and fits the workspace is
// kept. f32 operands under LibraryConv::Compute::F32 must be computed in
// f32: configs whose engine notes CUDNN_NUMERICAL_NOTE_TENSOR_CORE or
// DOWN_CONVERT_INPUTS (TF32 tensor cores) are skipped, so cuDNN may then have
// no engine at all (a fused f32 graph often runs only on tensor cores) and
// the kernel keeps its generated variant. Compute::Tf32 and 16-bit operands
// take any engine.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUDNNCONV_H
#define FUSEC_RUNTIME_CUDA_CUDNNCONV_H

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudnnApi.h"
#include "runtime/gpu/GpuDevice.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/plan/Plan.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace fusec::runtime::cuda {

/// The workspace cuDNN's engines may use. The fused implicit-GEMM engines
/// a conv with its epilogue runs on need little or none; FFT and Winograd
/// engines, and split reductions on large filters, ask for tens of MiB. 64
/// MiB admits those at ResNet-like sizes, costs little beside a model's
/// activations, and an engine needing more is skipped for the next one.
inline constexpr uint64_t kCudnnWorkspaceBytes = uint64_t{64} << 20;

/// The byte alignment the tensors are declared with, and so assumed by the
/// engine: 16 (vector loads), what fusec's buffers give (arena buffers start
/// at multiples of 64, inputs, outputs and weights at 256). A launch whose
/// addresses are less aligned (a view into a buffer) gets its own plan,
/// declared with the alignment its addresses have.
inline constexpr uint32_t kCudnnTensorAlignment = 16;

class CudnnConvs {
public:
  /// Opens cuDNN from `library`, creates a handle and allocates the
  /// workspace on `driver`'s device (entered by the caller). Throws Error
  /// if the library cannot be loaded or a call fails.
  CudnnConvs(const CudaDevice &driver, const Plan &plan, const std::string &library);
  ~CudnnConvs();
  CudnnConvs(const CudnnConvs &) = delete;
  CudnnConvs &operator=(const CudnnConvs &) = delete;

  /// "" when cuDNN has an engine for variant `variant` (a cuDNN variant) of
  /// kernel `kernel`, prepared at batch 1; else why not (the heuristics
  /// offered no engine config that finalizes, or every one needs more
  /// workspace than kCudnnWorkspaceBytes). Only cuDNN's "not supported"
  /// answers are reasons: any other failure throws Error. The prepared plan
  /// is kept for run().
  std::string unsupported(size_t kernel, size_t variant) const;

  /// Enqueues `step`, a launch of a cuDNN variant, on `stream`; `args` are
  /// its buffers' addresses (inputs, then outputs). Throws Error if cuDNN
  /// has no engine for it at this batch, or a call fails.
  void run(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream, gpu::Where where) const;

  const CudnnApi &api() const { return *api_; }

private:
  struct Prepared;
  /// kernel, variant, batch, and the alignment (bytes) every operand has.
  using Key = std::tuple<size_t, size_t, int32_t, uint32_t>;

  /// The entry of `key`, prepared if it is not yet; the mutex held.
  const Prepared &prepared(const Key &key, gpu::Where where) const;
  std::unique_ptr<Prepared> prepare(const Key &key, const std::string &where) const;

  const CudaDevice &driver_;
  const Plan &plan_;
  std::shared_ptr<const CudnnApi> api_;
  cudnnHandle_t handle_ = nullptr;
  gpu::DevicePtr workspace_ = 0;
  mutable std::mutex mutex_;
  mutable std::map<Key, std::unique_ptr<Prepared>> prepared_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDNNCONV_H
