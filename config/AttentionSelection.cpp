//===- AttentionSelection.cpp - The loop fusec compiles attention with ----===//
#include "config/AttentionSelection.h"

#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"

using namespace mlir;

namespace fusec::config {
namespace {

int64_t headDimOf(Value value) { return llvm::cast<ShapedType>(value.getType()).getShape().back(); }

/// The keys per tile fusec picks for f16/bf16 heads of D and Dv: 64, or 32
/// for heads above 64 (the largest whose accumulators stay in registers).
int64_t tensorCoreKeys(int64_t headDim, int64_t valueDim) { return headDim > 64 || valueDim > 64 ? 32 : 64; }

} // namespace

fuse::KernelConfig chooseAttentionConfig(fuse::AttentionOp attention, fuse::ProductPrecision precision) {
  using fuse::KernelTemplate;
  using fuse::OperandType;
  fuse::KernelConfig config;
  const int64_t vector = fuse::attentionVectorElements(attention);
  if (fuse::attentionTakesTensorCores(attention) && fuse::attentionRowAlignment(attention) % vector == 0) {
    config.kind = KernelTemplate::TensorCoreAttention;
    config.blockM = fuse::kAttentionTensorCoreRows;
    config.stages = 2;
    config.aVector = config.bVector = vector;
    const Type type = fuse::elementTypeOf(attention.getQuery());
    if (type.isF32()) { // 3xTF32 (f32 accuracy), or tf32 as --precision asks
      config.operands = OperandType::F32;
      config.passes = precision == fuse::ProductPrecision::Tf32 ? 1 : 3;
      // 32 keys per tile, or 16 where 32 would need more shared memory than
      // a block may have (heads of about 124 and more).
      config.blockK = 8;
      config.blockN = 32;
      if (fuse::attentionSharedBytes(config, headDimOf(attention.getQuery()), headDimOf(attention.getValue())) >
          fuse::kMaxSharedBytes)
        config.blockN = 16;
    } else {
      config.operands = type.isF16() ? OperandType::F16 : OperandType::BF16;
      config.blockN = tensorCoreKeys(headDimOf(attention.getQuery()), headDimOf(attention.getValue()));
      config.blockK = 16;
    }
    config.warpM = 16, config.warpN = config.blockN;
    if (fuse::attentionConfigProblem(attention, config).empty())
      return config;
    config = fuse::KernelConfig();
  }
  config.kind = KernelTemplate::SimtAttention;
  config.blockM = fuse::kAttentionSimtRows, config.blockN = fuse::kAttentionSimtKeys, config.blockK = 1;
  config.warpM = 4, config.warpN = fuse::kAttentionSimtKeys;
  return config;
}

} // namespace fusec::config
