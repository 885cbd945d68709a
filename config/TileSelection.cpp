//===- TileSelection.cpp - The kernel config fusec compiles ---------------===//
#include "config/TileSelection.h"

#include "config/AttentionSelection.h"
#include "config/Occupancy.h"
#include "ir/ConvShape.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "support/SplitK.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace fusec::fuse;

namespace fusec::config {
namespace {

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

/// The square SIMT tile for an output of rows x columns: 16, or 8 when
/// either side is so small that 16 would leave most threads idle.
int64_t simtTile(int64_t rows, int64_t columns) { return std::min(rows, columns) <= 8 ? 8 : 16; }

KernelConfig simtConfig(KernelTemplate kind, int64_t tile) {
  KernelConfig config;
  config.kind = kind;
  config.blockM = config.blockN = config.blockK = tile;
  return config;
}

/// The few-row template for a product of `rows` rows at the target batch:
/// the rows of C a block computes (the power of two >= rows, at most 8), a
/// warp per column with 16-byte loads where B is N x K, else a lane per
/// column.
KernelConfig gemvConfig(Operation *core, double rows) {
  const MatrixProductShape shape = matrixProductShape(core);
  KernelConfig config;
  config.kind = KernelTemplate::SimtGemv;
  config.blockM = 1;
  while (config.blockM < 8 && double(config.blockM) < rows)
    config.blockM *= 2;
  config.blockN = shape.transB ? 8 : 32;
  config.blockK = 1;
  config.aVector = shape.transB && shape.k % 4 == 0 && elementTypeOf(core->getOperand(0)).isF32() ? 4 : 1;
  return config;
}

/// The 64 x 64 tile of four 32 x 32 warps, 4 stages: BK = 16 for f32
/// operands, 32 (two k16 steps, the same 64-byte rows) for 16-bit ones.
KernelConfig tensorCoreConfig(KernelTemplate kind, ProductPrecision precision, OperandType operands) {
  KernelConfig config;
  config.kind = kind;
  config.operands = operands;
  config.blockM = 64, config.blockN = 64, config.warpM = 32, config.warpN = 32, config.stages = 4;
  config.blockK = operands == OperandType::F32 ? 16 : 32;
  config.passes = operands == OperandType::F32 && precision == ProductPrecision::Fp32 ? 3 : 1;
  return config;
}

/// The widest copy (16 bytes at most) that divides `count` elements, for
/// half operands; f32 operands keep 4 floats or single ones.
int64_t vectorFor(int64_t count, OperandType operands) {
  if (ShapedType::isDynamic(count))
    return 1;
  if (operands == OperandType::F32)
    return count % 4 == 0 ? 4 : 1;
  for (int64_t vector : {8, 4, 2})
    if (count % vector == 0)
      return vector;
  return 1;
}

/// `config` with the largest block tile that passes `problem` and still
/// gives every SM a block for an output of rows x columns.
template <typename Problem>
KernelConfig widenTile(KernelConfig config, double rows, double columns, const ConfigTarget &target, Problem problem) {
  struct Tile {
    int64_t blockM, blockN, warpM, warpN, stages;
  };
  auto blocksOf = [&](const KernelConfig &tile) {
    return std::ceil(rows / double(tile.blockM)) * std::ceil(columns / double(tile.blockN));
  };
  const double baseline = waveUtilization(config, blocksOf(config), target.smCount, target.sharedBytesPerSm);
  for (Tile tile : {Tile{128, 128, 64, 32, 3}, Tile{128, 64, 32, 32, 3}}) {
    KernelConfig wider = config;
    wider.blockM = tile.blockM, wider.blockN = tile.blockN, wider.warpM = tile.warpM, wider.warpN = tile.warpN;
    wider.stages = tile.stages;
    const double blocks = blocksOf(wider);
    if (rows >= double(tile.blockM) && columns >= double(tile.blockN) && blocks >= double(target.smCount) &&
        waveUtilization(wider, blocks, target.smCount, target.sharedBytesPerSm) >= baseline && problem(wider).empty())
      return wider;
  }
  return config;
}

/// `config` compiled split-capable where the runtime's split-K rule
/// (support/SplitK.h) would split it at batch 1 on `target`'s SMs:
/// split_k is then the most slices the runtime may use (at most kMaxSplitK,
/// each slice at least kMinKTilesPerSlice k-tiles); the runtime picks the
/// slices per launch from the run's batch, so a kernel split at batch 1
/// runs unsplit where its tiles fill the GPU. Batch 1, not the cost batch:
/// the capability costs a branch where it goes unused, and batch 1 is where
/// it pays.
KernelConfig withSplitK(Operation *core, KernelConfig config, const ConfigTarget &target) {
  config.splitK = 1;
  const int64_t kTiles = kTileCount(core, config);
  const int64_t maxSlices = std::min(kMaxSplitK, kTiles / kMinKTilesPerSlice);
  if (splitKSlices(int64_t(outputTilesAt(core, config, 1)), kTiles, maxSlices, target.smCount) < 2)
    return config;
  KernelConfig split = config;
  split.splitK = maxSlices;
  return fuse::kernelConfigProblem(core, split).empty() ? split : config;
}

/// The Hopper GEMM's config for a product of `n` columns (a pointwise
/// conv's output channels): 128 x 128 tiles (two consumer warpgroups), 64
/// columns for narrow products, 4 stages of 32 KiB (3 for 128 x 256).
KernelConfig wgmmaConfig(int64_t n, OperandType operands) {
  KernelConfig config;
  config.kind = KernelTemplate::WgmmaGemm;
  config.operands = operands;
  config.blockM = 128;
  config.blockN = !ShapedType::isDynamic(n) && n <= 64 ? 64 : 128;
  config.blockK = 64;
  config.warpM = 64;
  config.warpN = config.blockN;
  config.stages = 4;
  config.aVector = config.bVector = 8;
  return config;
}

KernelConfig chooseConvConfig(ConvOp conv, const ConfigTarget &target) {
  const ConvShape s = convShapeOf(conv);
  if (conv.getGroup() != 1) {
    KernelConfig direct;
    direct.kind = KernelTemplate::DirectConv;
    direct.blockM = 256, direct.blockN = 1, direct.blockK = 1;
    return direct;
  }
  const OperandType operands = operandTypeOf(elementTypeOf(conv.getInput())).value_or(OperandType::F32);
  // sm_90a: a channels-last conv runs on the Hopper templates where
  // wgmmaConvProblem admits it: a pointwise one as the GEMM, any other as
  // the implicit GEMM over spatial tiles, whose blocks of 64 rows waste
  // fewer on small images (7 x 7: 49 of 64 rows against 49 of 128).
  if (target.hopper && operands != OperandType::F32) {
    KernelConfig hopper = wgmmaConfig(s.filters, operands);
    const fuse::WgmmaConvTiling tiling = fuse::wgmmaConvTiling(conv, hopper.blockM);
    if (!tiling.product && tiling.tilesPerImage > 0) {
      const fuse::WgmmaConvTiling half = fuse::wgmmaConvTiling(conv, 64);
      // Two consumer warpgroups share each B tile, so 128 rows keep the
      // edge unless 64 put a tenth more of their rows to use.
      if (half.tilesPerImage > 0 && half.usefulRows > 1.1 * tiling.usefulRows)
        hopper.blockM = 64;
    }
    if (fuse::kernelConfigProblem(conv, hopper).empty())
      return hopper;
  }
  KernelConfig config = tensorCoreConfig(KernelTemplate::TensorCoreConv, target.precision, operands);
  if (!ShapedType::isDynamic(s.filters) && s.filters <= 32) { // few output channels: half the rows, the same 4 warps
    config.blockM = 32;
    config.warpM = 16;
  }
  config.aVector = vectorFor(s.taps(), operands);
  // Vector copies of an NCHW input need a pointwise convolution, of an NHWC
  // one whole vectors of channels: the widest that passes, else single
  // elements.
  config.bVector = vectorFor(s.channelsLast ? s.channels : s.pixels(), operands);
  while (config.bVector > 1 && !fuse::kernelConfigProblem(conv, config).empty())
    config.bVector /= 2;
  if (fuse::kernelConfigProblem(conv, config).empty()) {
    const OutputExtent extent = outputExtent(conv, target.batch);
    return withSplitK(conv,
                      widenTile(config, extent.rows, extent.columns, target,
                                [&](const KernelConfig &wider) { return fuse::kernelConfigProblem(conv, wider); }),
                      target);
  }
  const int64_t pixels = ShapedType::isDynamic(s.batch) ? s.pixels() : s.batch * s.pixels();
  return simtConfig(KernelTemplate::SimtConv, simtTile(pixels, s.filters));
}

KernelConfig chooseProductConfig(Operation *core, const ConfigTarget &target) {
  const MatrixProductShape shape = matrixProductShape(core);
  const OperandType operands = operandTypeOf(elementTypeOf(core->getOperand(0))).value_or(OperandType::F32);
  if (target.hopper && operands != OperandType::F32) {
    const KernelConfig hopper = wgmmaConfig(shape.n, operands);
    if (fuse::kernelConfigProblem(core, hopper).empty())
      return hopper;
  }
  KernelConfig config = tensorCoreConfig(KernelTemplate::TensorCoreGemm, target.precision, operands);
  if (!ShapedType::isDynamic(shape.n) && shape.n <= 32) { // a narrow product: half the columns, the same 4 warps
    config.blockN = 32;
    config.warpN = 16;
  }
  const int64_t ldb = shape.transB ? shape.k : shape.n;
  if (operands == OperandType::F32) {
    config.aVector = config.bVector = shape.k % 4 == 0 && ldb % 4 == 0 ? 4 : 1;
  } else {
    config.aVector = vectorFor(shape.k, operands);
    config.bVector = vectorFor(ldb, operands);
  }
  auto out = shapeOf(core->getResult(0));
  if (fuse::kernelConfigProblem(core, config).empty()) {
    const OutputExtent extent = outputExtent(core, target.batch);
    return withSplitK(core,
                      widenTile(config, extent.rows, extent.columns, target,
                                [&](const KernelConfig &wider) { return fuse::kernelConfigProblem(core, wider); }),
                      target);
  }
  // A batch-sized side grows with the batch: it never makes the tile small.
  auto extent = [](int64_t dim) { return ShapedType::isDynamic(dim) ? int64_t(1) << 30 : dim; };
  return simtConfig(KernelTemplate::SimtGemm, simtTile(extent(out[out.size() - 2]), extent(out.back())));
}

} // namespace

KernelConfig chooseKernelConfig(Operation *core, const ConfigTarget &target) {
  if (auto attention = llvm::dyn_cast<AttentionOp>(core))
    return withSplitK(attention, chooseAttentionConfig(attention, target.precision), target);
  if (auto conv = llvm::dyn_cast<ConvOp>(core))
    return chooseConvConfig(conv, target);
  return chooseProductConfig(core, target);
}

std::vector<KernelConfig> kernelConfigVariants(Operation *core, const KernelConfig &chosen, int64_t count,
                                               const ConfigTarget &target) {
  std::vector<KernelConfig> variants;
  if (count <= 1 || !chosen.usesTensorCores())
    return variants;
  if (chosen.kind == KernelTemplate::WgmmaGemm) {
    // The sm_80 template's choice and its variants: the tuner measures the
    // Hopper kernel against them (and the library).
    ConfigTarget ampere = target;
    ampere.hopper = false;
    const KernelConfig fallback = chooseKernelConfig(core, ampere);
    variants.push_back(fallback);
    for (KernelConfig &other : kernelConfigVariants(core, fallback, count - 1, ampere))
      variants.push_back(other);
    return variants;
  }
  if (chosen.isAttention()) {
    // The other key tile, where the heads allow it, split as the rule says
    // for its key tiles.
    KernelConfig other = chosen;
    if (chosen.halfOperands())
      other.blockN = other.warpN = chosen.blockN == 64 ? 32 : 64;
    else
      other.blockN = other.warpN = chosen.blockN == 32 ? 16 : 32;
    other.splitK = 1;
    if (fuse::kernelConfigProblem(core, other).empty())
      variants.push_back(withSplitK(core, other, target));
    return variants;
  }
  const OutputExtent extent = outputExtent(core, target.batch);
  std::vector<KernelConfig> candidates;
  // Few rows (a classifier at batch 1): every tensor-core tile computes at
  // least 16 rows, and the work is reading B once. The few-row template
  // does that at memory speed where it applies; exact SIMT FMA on an 8 x 8
  // tile elsewhere.
  if (llvm::isa<GemmOp, MatMulOp>(core) && extent.rows <= 16) {
    const KernelConfig gemv = gemvConfig(core, extent.rows);
    if (fuse::kernelConfigProblem(core, gemv).empty())
      candidates.push_back(gemv);
    else if (!chosen.halfOperands())
      candidates.push_back(simtConfig(KernelTemplate::SimtGemm, 8));
  }
  struct Tile {
    int64_t blockM, blockN, warpM, warpN, stages;
  };
  std::vector<KernelConfig> tiles;
  for (Tile tile : {Tile{128, 128, 64, 32, 3}, Tile{128, 64, 32, 32, 3}, Tile{64, 64, 32, 32, 4},
                    Tile{64, 32, 32, 16, 4}, Tile{32, 64, 16, 32, 4}}) {
    KernelConfig config = chosen;
    config.blockM = tile.blockM, config.blockN = tile.blockN, config.warpM = tile.warpM, config.warpN = tile.warpN;
    config.stages = tile.stages;
    config = withSplitK(core, config, target);
    // A tile more than twice a side that does not grow with the batch
    // computes mostly padding at every batch.
    if ((!extent.rowsGrow && double(tile.blockM) > 2 * extent.rows) ||
        (!extent.columnsGrow && double(tile.blockN) > 2 * extent.columns))
      continue;
    tiles.push_back(config);
  }
  // Nearest in area to the chosen tile first (the heuristic is rarely far
  // off); of two equally near ones, the smaller when the chosen tile leaves
  // SMs without a block at the target batch, else the larger.
  const double blocks =
      std::ceil(extent.rows / double(chosen.blockM)) * std::ceil(extent.columns / double(chosen.blockN));
  const bool preferSmaller = blocks < double(target.smCount);
  auto distance = [&](const KernelConfig &config) {
    return std::abs(std::log2(double(config.blockM * config.blockN) / double(chosen.blockM * chosen.blockN)));
  };
  std::stable_sort(tiles.begin(), tiles.end(), [&](const KernelConfig &a, const KernelConfig &b) {
    if (distance(a) != distance(b))
      return distance(a) < distance(b);
    const int64_t areaA = a.blockM * a.blockN, areaB = b.blockM * b.blockN;
    return preferSmaller ? areaA < areaB : areaA > areaB;
  });
  candidates.insert(candidates.end(), tiles.begin(), tiles.end());
  MLIRContext *context = core->getContext();
  const KernelConfigAttr chosenAttr = chosen.toAttr(context);
  for (const KernelConfig &candidate : candidates) {
    if (int64_t(variants.size()) + 1 >= count)
      break;
    const KernelConfigAttr attr = candidate.toAttr(context);
    if (attr == chosenAttr || !fuse::kernelConfigProblem(core, candidate).empty() ||
        llvm::any_of(variants, [&](const KernelConfig &taken) { return taken.toAttr(context) == attr; }))
      continue;
    variants.push_back(candidate);
  }
  return variants;
}

} // namespace fusec::config
