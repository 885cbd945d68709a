//===- CostModel.cpp - Pricing a kernel -----------------------------------===//
#include "passes/cost/CostModel.h"

#include "ir/FuseOps.h"
#include "ir/OpClassification.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec {

CostEstimate &CostEstimate::operator+=(const CostEstimate &other) {
  bytesRead += other.bytesRead;
  bytesWritten += other.bytesWritten;
  flops += other.flops;
  launches += other.launches;
  timeUs += other.timeUs;
  return *this;
}

CostModel::~CostModel() = default;

namespace {
double elementsOf(Type type, int64_t batch) {
  double elements = 1;
  for (int64_t dim : llvm::cast<RankedTensorType>(type).getShape())
    elements *= ShapedType::isDynamic(dim) ? batch : dim;
  return elements;
}
} // namespace

double tensorBytes(Value value, int64_t batch) { return elementsOf(value.getType(), batch) * sizeof(float); }

double opFlops(Operation *op, int64_t batch) {
  double out = op->getNumResults() ? elementsOf(op->getResult(0).getType(), batch) : 0;
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case([&](fuse::ConvOp conv) {
        auto weight = llvm::cast<RankedTensorType>(conv.getWeight().getType()).getShape();
        return 2.0 * out * weight[1] * weight[2] * weight[3];
      })
      .Case([&](fuse::MatMulOp matmul) {
        auto lhs = llvm::cast<RankedTensorType>(matmul.getLhs().getType()).getShape();
        return 2.0 * out * lhs.back();
      })
      .Case([&](fuse::GemmOp gemm) {
        auto a = llvm::cast<RankedTensorType>(gemm.getA().getType()).getShape();
        return 2.0 * out * (gemm.getTransA() ? a[0] : a[1]);
      })
      .Case<fuse::MaxPoolOp, fuse::AveragePoolOp>([&](auto pool) {
        auto kernel = pool.getKernelShape();
        return out * kernel[0] * kernel[1];
      })
      .Case<fuse::SoftmaxOp, fuse::LayerNormOp>([&](auto) { return 5.0 * out; })
      .Case<fuse::ReduceMeanOp, fuse::GlobalAveragePoolOp>(
          [&](auto reduce) { return elementsOf(reduce.getInput().getType(), batch); })
      .Case<fuse::ErfOp, fuse::GeluOp, fuse::TanhOp, fuse::SigmoidOp, fuse::PowOp, fuse::BatchNormOp>(
          [&](auto) { return 4.0 * out; })
      .Default([&](Operation *) { return fuse::classifyOp(op) == fuse::OpClass::DataMovement ? 0.0 : out; });
}

CostEstimate RooflineCostModel::estimateKernel(ArrayRef<Operation *> ops,
                                               function_ref<bool(Operation *)> contains) const {
  CostEstimate cost;
  cost.launches = 1;
  llvm::SmallDenseSet<Value, 16> read;
  bool tensorCore = false;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if ((!producer || !contains(producer)) && read.insert(operand).second)
        cost.bytesRead += tensorBytes(operand, batch);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) { return !contains(user); }))
        cost.bytesWritten += tensorBytes(result, batch);
    cost.flops += opFlops(op, batch);
    auto opClass = fuse::classifyOp(op);
    tensorCore |= opClass == fuse::OpClass::Conv || opClass == fuse::OpClass::Gemm;
  }
  double peak = (tensorCore ? profile.peakTensorTflops : profile.peakFp32Tflops) * 1e6; // flop/us
  double bandwidth = profile.hbmBandwidthGBps * 1e3;                                    // byte/us
  cost.timeUs = std::max(cost.bytes() / bandwidth, cost.flops / peak) + profile.launchOverheadUs;
  return cost;
}

} // namespace fusec
