//===- AttentionConfig.cpp - Kernel configs of attention kernels ----------===//
#include "ir/AttentionConfig.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/StridedView.h"

#include <numeric>

using namespace mlir;

namespace fusec::fuse {
namespace {

int64_t headDimOf(Value value) { return llvm::cast<ShapedType>(value.getType()).getShape().back(); }

std::string str(int64_t value) { return std::to_string(value); }

} // namespace

bool attentionTakesTensorCores(AttentionOp attention) {
  Type type = elementTypeOf(attention.getQuery());
  if (!(type.isF16() || type.isBF16() || type.isF32()) || elementTypeOf(attention.getKey()) != type ||
      elementTypeOf(attention.getValue()) != type)
    return false;
  // The head dimensions are whole k steps (k16 for halves, k8 for tf32).
  const int64_t step = type.isF32() ? 8 : 16;
  const int64_t d = headDimOf(attention.getQuery()), dv = headDimOf(attention.getValue());
  return d % step == 0 && dv % step == 0 && d <= kMaxAttentionHeadDim && dv <= kMaxAttentionHeadDim;
}

int64_t attentionVectorElements(AttentionOp attention) { return elementTypeOf(attention.getQuery()).isF32() ? 4 : 8; }

int64_t attentionRowAlignment(AttentionOp attention) {
  int64_t alignment = 0;
  for (Value operand : {attention.getQuery(), attention.getKey(), attention.getValue()}) {
    SmallVector<Operation *> chain; // nearest first
    for (Operation *op = operand.getDefiningOp(); op && isViewOp(op); op = op->getOperand(0).getDefiningOp())
      chain.push_back(op);
    if (chain.empty()) {
      alignment = std::gcd(alignment, headDimOf(operand));
      continue;
    }
    std::optional<StridedView> view = composeViewChain(chain, /*reads=*/true);
    if (!view)
      return 1;
    // Aligned at every batch: both parts of each linear offset and stride.
    for (const BatchLinear &step : llvm::ArrayRef(view->strides).drop_back())
      alignment = std::gcd(std::gcd(alignment, step.perBatch), step.fixed);
    alignment = std::gcd(std::gcd(alignment, view->offset.perBatch), view->offset.fixed);
  }
  return alignment == 0 ? 1 : alignment;
}

std::string attentionConfigProblem(AttentionOp attention, const KernelConfig &config) {
  if (!config.isAttention())
    return "template " + templateName(config.kind).str() + " computes convolutions or matrix products, not attention";
  const int64_t d = headDimOf(attention.getQuery()), dv = headDimOf(attention.getValue());
  std::string problem;
  if (d > kMaxAttentionHeadDim || dv > kMaxAttentionHeadDim) {
    problem =
        "head dimensions are at most " + str(kMaxAttentionHeadDim) + " (D = " + str(d) + ", Dv = " + str(dv) + ")";
  } else if (config.kind == KernelTemplate::TensorCoreAttention) {
    const Type type = elementTypeOf(attention.getQuery());
    const OperandType operands = type.isF16() ? OperandType::F16 : type.isBF16() ? OperandType::BF16 : OperandType::F32;
    const int64_t vector = attentionVectorElements(attention);
    if (!attentionTakesTensorCores(attention))
      problem = "it takes f16 or bf16 Q, K and V of one type with head dimensions that are multiples of 16, or f32 "
                "ones with head dimensions that are multiples of 8";
    else if (config.operands != operands)
      problem =
          "precision \"" + config.toAttr(attention.getContext()).getPrecision().str() + "\" is not the operands' type";
    else if (int64_t alignment = attentionRowAlignment(attention); alignment % vector != 0)
      problem = "its 16-byte copies need every row of Q, K and V to start at a multiple of " + str(vector) +
                " elements (rows here are aligned to " + str(alignment) + ")";
    else if (operands == OperandType::F32 && config.blockN != 16 && config.blockN != 32)
      problem = "f32 heads take 16 or 32 keys per tile, not " + str(config.blockN);
    else if (config.blockN == 64 && (d > 64 || dv > 64))
      problem = "64-key tiles take heads up to 64 (D = " + str(d) + ", Dv = " + str(dv) + "): use 32";
  }
  if (!problem.empty())
    return "template " + templateName(config.kind).str() + " cannot compute this op: " + problem;
  if (const int64_t shared = attentionSharedBytes(config, d, dv); shared > kMaxSharedBytes)
    return "the config needs " + str(shared) + " bytes of shared memory, above the " + str(kMaxSharedBytes) +
           " every sm_80+ GPU grants one block";
  return "";
}

std::string describeAttentionConfigProblem(KernelTemplate kind, ArrayRef<int64_t> block, ArrayRef<int64_t> warp,
                                           int64_t stages, StringRef mma, StringRef precision, int64_t splitK,
                                           ArrayRef<int64_t> vector) {
  auto is = [](ArrayRef<int64_t> values, std::initializer_list<int64_t> expected) {
    return llvm::equal(values, expected);
  };
  if (kind == KernelTemplate::SimtAttention)
    return is(block, {kAttentionSimtRows, kAttentionSimtKeys, 1}) && is(warp, {4, kAttentionSimtKeys}) && stages == 1 &&
                   mma == "none" && precision == "f32" && is(vector, {1, 1})
               ? ""
               : "simt_attention is block [16, 32, 1], warp [4, 32], 1 stage, mma \"none\", precision \"f32\", "
                 "vector [1, 1]";
  const int64_t keys = block.size() == 3 ? block[1] : 0;
  if (precision == "3xtf32" || precision == "tf32")
    return block.size() == 3 && block[0] == kAttentionTensorCoreRows && (keys == 16 || keys == 32) && block[2] == 8 &&
                   is(warp, {16, keys}) && stages == 2 && mma == "m16n8k8" && is(vector, {4, 4})
               ? ""
               : "tensor_core_attention on f32 heads is block [64, 16 or 32, 8], warp [16, block N], 2 stages, mma "
                 "\"m16n8k8\", precision \"3xtf32\" or \"tf32\", vector [4, 4]";
  return block.size() == 3 && block[0] == kAttentionTensorCoreRows && (keys == 32 || keys == 64) && block[2] == 16 &&
                 is(warp, {16, keys}) && stages == 2 && mma == "m16n8k16" &&
                 (precision == "f16" || precision == "bf16") && is(vector, {8, 8})
             ? ""
             : "tensor_core_attention is block [64, 32 or 64, 16], warp [16, block N], 2 stages, mma \"m16n8k16\", "
               "precision \"f16\" or \"bf16\", vector [8, 8]; on f32 heads block [64, 16 or 32, 8], mma \"m16n8k8\", "
               "precision \"3xtf32\" or \"tf32\", vector [4, 4]";
}

int64_t attentionSplitFloats(const KernelConfig &config, int64_t valueDim) {
  // Per thread: the output tiles (n8 tiles of 4 floats), then the rows'
  // maxima and sums; the SIMT loop holds 4 rows per warp and a column per
  // lane per chunk of 32.
  if (config.kind == KernelTemplate::TensorCoreAttention)
    return 4 * config.threads() * (valueDim / 8 + 1);
  return 4 * config.threads() * ((valueDim + 31) / 32 + 2);
}

int64_t attentionSharedBytes(const KernelConfig &config, int64_t headDim, int64_t valueDim) {
  if (config.kind == KernelTemplate::TensorCoreAttention && config.operands == OperandType::F32) {
    // FusecAttentionTf32: Q and K rows padded by 4 words, V rows to 8 or 24
    // words mod 32.
    const int64_t vStride = valueDim + 8 + ((valueDim + 8) % 16 == 0 ? 8 : 0);
    return 4 * (config.blockM * (headDim + 4) + 2 * config.blockN * (headDim + 4 + vStride));
  }
  if (config.kind == KernelTemplate::TensorCoreAttention)
    return 2 * (config.blockM * (headDim + 8) + 2 * config.blockN * (headDim + 8 + valueDim + 8));
  // FusecAttention::Shared: Q, K (rows padded to an odd number of float4s,
  // or by 1 float for scalar reads), V and the warps' probability rows.
  const int64_t kStride = headDim % 4 != 0 ? headDim + 1 : (headDim / 4) % 2 == 0 ? headDim + 4 : headDim + 8;
  return 4 *
         (config.blockM * headDim + config.blockN * kStride + config.blockN * valueDim + config.blockM * config.blockN);
}

} // namespace fusec::fuse
