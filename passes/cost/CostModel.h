//===- CostModel.h - Pricing a kernel ---------------------------*- C++ -*-===//
//
// The planner compares a candidate fused kernel with the kernels it replaces.
// A cost model prices one kernel given the ops it computes: the bytes it
// reads (each external value once) and writes (each value used outside it, or
// returned), its FLOPs, and its launch. Users may register their own models
// (FusionRegistry).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PASSES_COST_COSTMODEL_H
#define FUSEC_PASSES_COST_COSTMODEL_H

#include "config/ConfigTarget.h"
#include "passes/cost/DeviceProfile.h"

#include "support/LibraryMatmul.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace fusec {

struct CostEstimate {
  double bytesRead = 0;
  double bytesWritten = 0;
  double flops = 0;
  int launches = 0;
  double timeUs = 0;

  double bytes() const { return bytesRead + bytesWritten; }
  CostEstimate &operator+=(const CostEstimate &other);
};

/// What a cost model prices kernels for: the GPU, the batch the plan is
/// tuned for (fusec --cost-batch), and the compile's product precision and
/// target, so that a conv or product is priced on the kernel config
/// fuse-select-kernel-configs will compile it with.
struct CostTarget {
  DeviceProfile profile;
  int64_t batch = 1;
  fuse::ProductPrecision precision = fuse::ProductPrecision::Fp32;
  bool hopper = false;

  /// The config library's view of this target (config/ConfigTarget.h).
  config::ConfigTarget configTarget() const;
};

class CostModel {
public:
  virtual ~CostModel();
  virtual std::string name() const = 0;
  /// Prices one kernel computing `ops` (in program order). `contains` says
  /// whether an op belongs to the kernel; values produced by other ops are
  /// read from memory.
  virtual CostEstimate estimateKernel(llvm::ArrayRef<mlir::Operation *> ops,
                                      llvm::function_ref<bool(mlir::Operation *)> contains) const = 0;
  /// Prices `op` as the kernels it stood for before fusion (the report's
  /// "unfused" side): one kernel computing it, unless it is an op a rewrite
  /// formed from several (fuse.attention).
  virtual CostEstimate estimateUnfused(mlir::Operation *op) const;
};

/// Roofline: time = max(bytes / bandwidth, flops / peak) + launch overhead,
/// with the batch dimension at the target's batch; convs and products at
/// their template's share of the peak.
class RooflineCostModel : public CostModel {
public:
  explicit RooflineCostModel(CostTarget target) : target(std::move(target)) {}
  /// fp32 products, no Hopper templates.
  explicit RooflineCostModel(DeviceProfile profile, int64_t batch = 1)
      : RooflineCostModel(CostTarget{std::move(profile), batch}) {}
  std::string name() const override { return "roofline"; }
  CostEstimate estimateKernel(llvm::ArrayRef<mlir::Operation *> ops,
                              llvm::function_ref<bool(mlir::Operation *)> contains) const override;
  /// fuse.attention as the MatMul, scale, [mask Add], Softmax, MatMul
  /// kernels it replaced, each writing or reading the S x Sk scores.
  CostEstimate estimateUnfused(mlir::Operation *op) const override;
  const DeviceProfile &getProfile() const { return target.profile; }

private:
  CostTarget target;
};

/// The time of one call of vendor library `library` ("cublaslt", "cudnn")
/// computing the kernel that `kernel` prices: the same bytes, the FLOPs at
/// the library's share of the peak its arithmetic runs on (DeviceProfile
/// efficiencies `<library>_half` of the f16/bf16 tensor peak,
/// `<library>_tf32` of the TF32 peak, `<library>_fp32` of the FP32 peak),
/// one graph node.
double libraryCallTimeUs(const CostEstimate &kernel, const DeviceProfile &profile, const std::string &library,
                         LibraryMatmul::Compute compute, bool halfOperands);

/// Bytes of a tensor value with the batch dimension at `batch`.
double tensorBytes(mlir::Value value, int64_t batch = 1);
/// Floating-point operations of one op with the batch dimension at `batch`.
double opFlops(mlir::Operation *op, int64_t batch = 1);

} // namespace fusec

#endif // FUSEC_PASSES_COST_COSTMODEL_H
