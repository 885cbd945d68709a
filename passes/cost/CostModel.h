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

#include "passes/cost/DeviceProfile.h"

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

class CostModel {
public:
  virtual ~CostModel();
  virtual std::string name() const = 0;
  /// Prices one kernel computing `ops` (in program order). `contains` says
  /// whether an op belongs to the kernel; values produced by other ops are
  /// read from memory.
  virtual CostEstimate estimateKernel(llvm::ArrayRef<mlir::Operation *> ops,
                                      llvm::function_ref<bool(mlir::Operation *)> contains) const = 0;
};

/// Roofline: time = max(bytes / bandwidth, flops / peak) + launch overhead,
/// at batch 1 (a dynamic dimension counts as 1).
class RooflineCostModel : public CostModel {
public:
  explicit RooflineCostModel(DeviceProfile profile) : profile(std::move(profile)) {}
  std::string name() const override { return "roofline"; }
  CostEstimate estimateKernel(llvm::ArrayRef<mlir::Operation *> ops,
                              llvm::function_ref<bool(mlir::Operation *)> contains) const override;
  const DeviceProfile &getProfile() const { return profile; }

private:
  DeviceProfile profile;
};

/// Bytes of a tensor value at batch 1.
double tensorBytes(mlir::Value value);
/// Floating-point operations of one op at batch 1.
double opFlops(mlir::Operation *op);

} // namespace fusec

#endif // FUSEC_PASSES_COST_COSTMODEL_H
