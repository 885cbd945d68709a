//===- CostModel.cpp - Pricing a kernel -----------------------------------===//
#include "passes/cost/CostModel.h"

#include "config/Occupancy.h"
#include "config/TileSelection.h"
#include "ir/AttentionConfig.h"
#include "ir/ConvShape.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "ir/OpClassification.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

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

CostEstimate CostModel::estimateUnfused(Operation *op) const {
  return estimateKernel({op}, [&](Operation *other) { return other == op; });
}

namespace {
/// A dimension's size as the model prices it: a run-time one (the batch, or
/// a named dimension over a range) at the cost batch.
double sizeOf(int64_t dim, int64_t batch) { return ShapedType::isDynamic(dim) ? double(batch) : double(dim); }

double elementsOf(Type type, int64_t batch) {
  double elements = 1;
  for (int64_t dim : llvm::cast<RankedTensorType>(type).getShape())
    elements *= sizeOf(dim, batch);
  return elements;
}
} // namespace

double tensorBytes(Value value, int64_t batch) {
  return elementsOf(value.getType(), batch) * static_cast<double>(fuse::elementByteSize(fuse::elementTypeOf(value)));
}

double opFlops(Operation *op, int64_t batch) {
  double out = op->getNumResults() ? elementsOf(op->getResult(0).getType(), batch) : 0;
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case([&](fuse::ConvOp conv) { return 2.0 * out * double(fuse::convShapeOf(conv).taps()); })
      .Case([&](fuse::MatMulOp matmul) {
        auto lhs = llvm::cast<RankedTensorType>(matmul.getLhs().getType()).getShape();
        return 2.0 * out * lhs.back();
      })
      .Case([&](fuse::GemmOp gemm) {
        auto a = llvm::cast<RankedTensorType>(gemm.getA().getType()).getShape();
        return 2.0 * out * (gemm.getTransA() ? a[0] : a[1]);
      })
      .Case([&](fuse::AttentionOp attention) {
        // Q Kt and P V over the attended (row, key) pairs, plus scale, mask,
        // exp and the running-max bookkeeping per pair; causal attends to
        // S (Sk - S) + S (S + 1) / 2 pairs of S x Sk.
        auto q = llvm::cast<RankedTensorType>(attention.getQuery().getType()).getShape();
        auto k = llvm::cast<RankedTensorType>(attention.getKey().getType()).getShape();
        auto o = llvm::cast<RankedTensorType>(attention.getOutput().getType()).getShape();
        const double seq = sizeOf(q[q.size() - 2], batch), keySeq = sizeOf(k[k.size() - 2], batch), headDim = q.back(),
                     valueDim = o.back();
        const double pairs = attention.getCausal() ? seq * (keySeq - seq) + seq * (seq + 1) / 2 : seq * keySeq;
        return out / (seq * valueDim) * pairs * (2.0 * (headDim + valueDim) + 5.0);
      })
      .Case<fuse::MaxPoolOp, fuse::AveragePoolOp>([&](auto pool) {
        auto kernel = pool.getKernelShape();
        return out * kernel[0] * kernel[1];
      })
      .Default([&](Operation *) {
        // Everything else at its declared FLOPs per element (ODS facts): of
        // the input for reductions, of the output otherwise.
        auto facts = llvm::dyn_cast<fuse::OpFactsInterface>(op);
        if (!facts)
          return out;
        if (facts.getKernelClass() == fuse::OpClass::Reduction)
          return facts.getFlopsPerElement() * elementsOf(op->getOperand(0).getType(), batch);
        return facts.getFlopsPerElement() * out;
      });
}

namespace {

/// The FLOP/us `config`'s main loop reaches on whole tiles: its template's
/// share of its peak. f16/bf16 operands run on the half tensor peak (the
/// template's `_half` efficiency), f32 ones on the TF32 peak divided by the
/// passes, SIMT templates on the FP32 peak.
double templateRate(const fuse::KernelConfig &config, const DeviceProfile &profile) {
  const double peak = !config.usesTensorCores() ? profile.peakFp32Tflops
                      : config.halfOperands()   ? profile.peakHalfTensorTflops
                                                : profile.peakTensorTflops / double(config.passes);
  const std::string efficiencyName = fuse::templateName(config.kind).str() + (config.halfOperands() ? "_half" : "");
  return peak * 1e6 * profile.efficiencyOf(efficiencyName);
}

/// The config `core`'s superkernel has, or the one
/// fuse-select-kernel-configs will give it for `target`.
fuse::KernelConfig configOf(Operation *core, const CostTarget &target) {
  auto kernel = core->getParentOfType<fuse::SuperkernelOp>();
  if (kernel && kernel.getConfigAttr())
    return fuse::KernelConfig::fromAttr(kernel.getConfigAttr());
  return config::chooseKernelConfig(core, target.configTarget());
}

/// Microseconds the conv or matrix product `core` (`flops` at the cost
/// batch) takes on the template of its kernel config: the template's
/// share of its peak, on the work of whole block tiles (ragged tiles compute
/// their padding too), spread over the SMs in waves (a grid of fewer blocks
/// than the GPU holds leaves SMs idle: batch-1 convolutions on small images).
double templateTimeUs(Operation *core, double flops, const CostTarget &target) {
  const DeviceProfile &profile = target.profile;
  const int64_t batch = target.batch;
  const fuse::KernelConfig config = configOf(core, target);
  auto out = llvm::cast<RankedTensorType>(core->getResult(0).getType()).getShape();
  auto at = [&](int64_t dim) { return ShapedType::isDynamic(dim) ? double(batch) : double(dim); };
  // The product's rows x columns as the template tiles them.
  double rows = 1, columns = at(out.back());
  if (auto conv = llvm::dyn_cast<fuse::ConvOp>(core)) {
    const fuse::ConvShape s = fuse::convShapeOf(conv);
    rows = at(s.filters);
    columns = at(s.batch) * at(s.outHeight) * at(s.outWidth);
  } else {
    for (int64_t dim : out.drop_back())
      rows *= at(dim);
  }
  const double tileRows = config.kind == fuse::KernelTemplate::DirectConv ? 1 : double(config.blockM);
  const double tileColumns = config.kind == fuse::KernelTemplate::DirectConv ? double(config.blockM)
                             : config.kind == fuse::KernelTemplate::SimtConv ? double(config.blockM)
                                                                             : double(config.blockN);
  double tiles = std::ceil(rows / tileRows) * std::ceil(columns / tileColumns);
  double padded = flops * (tiles * tileRows * tileColumns) / std::max(rows * columns, 1.0);
  if (auto conv = llvm::dyn_cast<fuse::ConvOp>(core); conv && config.kind == fuse::KernelTemplate::WgmmaGemm) {
    // The Hopper templates tile pixels (the rows) by filters, in spatial
    // tiles of one image for the implicit GEMM (their idle rows computed
    // too), and read 64-channel k-tiles (per tap, or 8 taps of 8 channels),
    // their zeros multiplied.
    tiles = config::outputTilesAt(core, config, batch);
    padded = flops * (tiles * double(config.blockM) * double(config.blockN)) / std::max(rows * columns, 1.0) /
             std::max(fuse::wgmmaConvTiling(conv, config.blockM).usefulK, 1e-3);
  }
  // Split-K: at this batch the runtime gives every tile `slices` blocks
  // (support/SplitK.h), each storing its partial sums, which the
  // tile's last block reads back (fusec_split_k.h): L2 traffic the kernel's
  // HBM figures do not count, charged here at HBM speed.
  const double slices = double(config::splitSlicesAt(core, config, batch, profile.smCount));
  const double splitUs =
      slices > 1 ? 2 * slices * tiles * tileRows * tileColumns * 4 / (profile.hbmBandwidthGBps * 1e3) : 0;
  const double utilization =
      config::waveUtilization(config, tiles * slices, profile.smCount, int64_t(profile.sharedMemoryPerBlockKB) * 1024);
  return padded / (templateRate(config, profile) * utilization) + splitUs;
}

/// Microseconds fuse.attention `attention` (`flops`: both products and the
/// softmax) takes on its kernel config's main loop at `batch`, at the
/// loop's share of its peak (the f16 tensor peak for the tensor-core loop,
/// FP32 for SIMT) on the SMs its blocks fill: one per query tile of each
/// (batch, head) matrix, times the key slices the runtime splits a small
/// grid into (fusec_split_k.h), whose partial rows the last block reads
/// back (L2 traffic, charged at HBM speed).
double attentionTimeUs(Operation *attention, double flops, const CostTarget &target) {
  const DeviceProfile &profile = target.profile;
  const int64_t batch = target.batch;
  const fuse::KernelConfig config = configOf(attention, target);
  const double tiles = config::outputTilesAt(attention, config, batch);
  const double slices = double(config::splitSlicesAt(attention, config, batch, profile.smCount));
  const int64_t valueDim = llvm::cast<RankedTensorType>(attention->getResult(0).getType()).getShape().back();
  // Per slice: the block's rows' unnormalised outputs, maxima and sums.
  const double splitFloats = double(fuse::attentionSplitFloats(config, valueDim));
  const double splitUs = slices > 1 ? 2 * slices * tiles * splitFloats * 4 / (profile.hbmBandwidthGBps * 1e3) : 0;
  // A block's 4 warps keep an SM's four schedulers busy (FlashAttention-2's
  // shape; registers and shared tiles leave room for few more), so the
  // blocks run in waves of one per SM.
  const double blocks = tiles * slices, sms = double(profile.smCount);
  const double utilization = blocks <= 0 ? 1.0 : blocks / (std::ceil(blocks / sms) * sms);
  return flops / (templateRate(config, profile) * utilization) + splitUs;
}

} // namespace

config::ConfigTarget CostTarget::configTarget() const {
  return config::ConfigTarget{precision, batch, profile.smCount, int64_t(profile.sharedMemoryPerBlockKB) * 1024,
                              hopper};
}

CostEstimate RooflineCostModel::estimateKernel(ArrayRef<Operation *> ops,
                                               function_ref<bool(Operation *)> contains) const {
  const DeviceProfile &profile = target.profile;
  const int64_t batch = target.batch;
  CostEstimate cost;
  cost.launches = 1;
  llvm::SmallDenseSet<Value, 16> read;
  double computeUs = 0;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if ((!producer || !contains(producer)) && read.insert(operand).second)
        cost.bytesRead += tensorBytes(operand, batch);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) { return !contains(user); }))
        cost.bytesWritten += tensorBytes(result, batch);
    const double flops = opFlops(op, batch);
    cost.flops += flops;
    if (llvm::isa<fuse::ConvOp, fuse::GemmOp, fuse::MatMulOp>(op))
      computeUs += templateTimeUs(op, flops, target);
    else if (llvm::isa<fuse::AttentionOp>(op))
      computeUs += attentionTimeUs(op, flops, target);
    else // epilogue arithmetic in registers, at the SIMT rate
      computeUs += flops / (profile.peakFp32Tflops * 1e6);
  }
  const double bandwidth = profile.hbmBandwidthGBps * 1e3; // byte/us
  // Plans replay as CUDA graphs: a kernel costs a graph node, not a launch.
  cost.timeUs = std::max(cost.bytes() / bandwidth, computeUs) + profile.graphLaunchOverheadUs;
  return cost;
}

double libraryCallTimeUs(const CostEstimate &kernel, const DeviceProfile &profile, const std::string &library,
                         LibraryMatmul::Compute compute, bool halfOperands) {
  double rate = 0;
  if (halfOperands)
    rate = profile.peakHalfTensorTflops * profile.efficiencyOf(library + "_half");
  else if (compute == LibraryMatmul::Compute::Tf32)
    rate = profile.peakTensorTflops * profile.efficiencyOf(library + "_tf32");
  else
    rate = profile.peakFp32Tflops * profile.efficiencyOf(library + "_fp32");
  const double bandwidth = profile.hbmBandwidthGBps * 1e3; // byte/us
  return std::max(kernel.bytes() / bandwidth, kernel.flops / (rate * 1e6)) + profile.graphLaunchOverheadUs;
}

CostEstimate RooflineCostModel::estimateUnfused(Operation *op) const {
  auto attention = llvm::dyn_cast<fuse::AttentionOp>(op);
  if (!attention)
    return CostModel::estimateUnfused(op);
  const DeviceProfile &profile = target.profile;
  const int64_t batch = target.batch;
  auto shape = [](Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); };
  const double element = fuse::elementByteSize(fuse::elementTypeOf(attention.getQuery()));
  const double headDim = shape(attention.getQuery()).back(), valueDim = shape(attention.getValue()).back();
  const double keySeq = sizeOf(shape(attention.getKey()).drop_back().back(), batch);
  // Every score is computed and stored by the unfused chain, causal or not.
  const double scores = elementsOf(attention.getQuery().getType(), batch) / headDim * keySeq;
  const double scoreBytes = scores * element;
  const double bandwidth = profile.hbmBandwidthGBps * 1e3; // byte/us
  // The products at the tensor-core GEMM's rate (3xTF32 for f32), the rest
  // at the SIMT rate.
  const bool half = element < 4;
  const double gemmRate = (half ? profile.peakHalfTensorTflops : profile.peakTensorTflops / 3) * 1e6 *
                          profile.efficiencyOf(half ? "tensor_core_gemm_half" : "tensor_core_gemm");
  CostEstimate total;
  auto kernel = [&](double read, double written, double flops, double rate) {
    CostEstimate cost;
    cost.bytesRead = read;
    cost.bytesWritten = written;
    cost.flops = flops;
    cost.launches = 1;
    cost.timeUs = std::max(cost.bytes() / bandwidth, flops / rate) + profile.graphLaunchOverheadUs;
    total += cost;
  };
  const double simtRate = profile.peakFp32Tflops * 1e6;
  kernel(tensorBytes(attention.getQuery(), batch) + tensorBytes(attention.getKey(), batch), scoreBytes,
         2 * scores * headDim, gemmRate);
  kernel(scoreBytes, scoreBytes, scores, simtRate); // the scale
  // A causal mask was a constant S x Sk tensor before fuse-form-attention.
  if (attention.getMask() || attention.getCausal()) {
    const double seq = sizeOf(shape(attention.getQuery()).drop_back().back(), batch);
    const double maskBytes = attention.getMask() ? tensorBytes(attention.getMask(), batch) : seq * keySeq * element;
    kernel(scoreBytes + maskBytes, scoreBytes, scores, simtRate);
  }
  kernel(scoreBytes, scoreBytes, 5 * scores, simtRate); // softmax
  kernel(scoreBytes + tensorBytes(attention.getValue(), batch), tensorBytes(attention.getOutput(), batch),
         2 * scores * valueDim, gemmRate);
  return total;
}

} // namespace fusec
