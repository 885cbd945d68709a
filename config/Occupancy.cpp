//===- Occupancy.cpp - How a kernel config fills the GPU ------------------===//
#include "config/Occupancy.h"

#include "ir/ConvShape.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "ir/ShapeUtils.h"
#include "support/SplitK.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace fusec::config {
namespace {

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

} // namespace

int64_t blocksPerSm(int64_t threads, int64_t registers, int64_t sharedBytes, int64_t sharedBytesPerSm) {
  constexpr int64_t kThreadsPerSm = 2048, kBlocksPerSm = 32, kRegistersPerSm = 65536, kRegisterUnit = 256;
  const int64_t warps = (threads + 31) / 32;
  int64_t blocks = std::min(kBlocksPerSm, kThreadsPerSm / std::max<int64_t>(threads, 1));
  const int64_t registersPerWarp =
      (std::max<int64_t>(registers, 1) * 32 + kRegisterUnit - 1) / kRegisterUnit * kRegisterUnit;
  blocks = std::min(blocks, kRegistersPerSm / registersPerWarp / warps);
  if (sharedBytes > 0)
    blocks = std::min(blocks, sharedBytesPerSm / sharedBytes);
  return blocks;
}

double waveUtilization(const fuse::KernelConfig &config, double blocks, int64_t smCount, int64_t sharedBytesPerSm) {
  const int64_t perSm =
      blocksPerSm(config.threads(), config.estimatedRegisters(), config.sharedBytes(false), sharedBytesPerSm);
  const double slots = double(std::max<int64_t>(1, perSm)) * double(smCount);
  return blocks <= 0 ? 0 : blocks / (std::ceil(blocks / slots) * slots);
}

namespace {

/// A dimension of `value`'s type at the size configs are chosen for: the
/// batch at `batch`, a range's dimension at its opt (the cost batch where
/// the module records no range).
double sizedAt(Operation *core, Value value, size_t axis, int64_t batch) {
  const int64_t dim = shapeOf(value)[axis];
  if (!ShapedType::isDynamic(dim))
    return double(dim);
  std::optional<fuse::SymbolRange> range = fuse::symbolRange(core, fuse::symbolicShape(value.getType())[axis]);
  return double(range ? range->opt : batch);
}

} // namespace

OutputExtent outputExtent(Operation *core, int64_t batch) {
  auto sized = [&](size_t axis) { return sizedAt(core, core->getResult(0), axis, batch); };
  auto out = shapeOf(core->getResult(0));
  if (auto conv = llvm::dyn_cast<fuse::ConvOp>(core)) {
    const fuse::ConvShape s = fuse::convShapeOf(conv);
    const double images = ShapedType::isDynamic(s.batch) ? double(batch) : double(s.batch);
    return {double(s.filters), images * double(s.pixels()), false, ShapedType::isDynamic(s.batch)};
  }
  const fuse::MatrixProductShape shape = fuse::matrixProductShape(core);
  OutputExtent extent{1, double(shape.n), false, false};
  for (size_t axis = shape.foldedBatch ? 0 : out.size() - 2; axis + 1 < out.size(); ++axis) {
    extent.rows *= sized(axis);
    extent.rowsGrow |= ShapedType::isDynamic(out[axis]);
  }
  return extent;
}

double outputTilesAt(Operation *core, const fuse::KernelConfig &config, int64_t batch) {
  if (llvm::isa<fuse::AttentionOp>(core)) { // a block per query tile of each (batch, head) matrix
    const Value out = core->getResult(0);
    const size_t rank = shapeOf(out).size();
    double matrices = 1;
    for (size_t axis = 0; axis + 2 < rank; ++axis)
      matrices *= sizedAt(core, out, axis, batch);
    return matrices * std::ceil(sizedAt(core, out, rank - 2, batch) / double(config.blockM));
  }
  const OutputExtent extent = outputExtent(core, batch);
  if (auto conv = llvm::dyn_cast<fuse::ConvOp>(core); conv && config.kind == fuse::KernelTemplate::WgmmaGemm) {
    // The Hopper implicit GEMM's blocks are spatial tiles of each image.
    const fuse::WgmmaConvTiling tiling = fuse::wgmmaConvTiling(conv, config.blockM);
    if (!tiling.product) {
      const fuse::ConvShape s = fuse::convShapeOf(conv);
      const double images = ShapedType::isDynamic(s.batch) ? double(batch) : double(s.batch);
      return images * double(tiling.tilesPerImage) * std::ceil(double(s.filters) / double(config.blockN));
    }
  }
  return std::ceil(extent.rows / double(config.blockM)) * std::ceil(extent.columns / double(config.blockN));
}

int64_t splitSlicesAt(Operation *core, const fuse::KernelConfig &config, int64_t batch, int64_t smCount) {
  if (config.splitK < 2)
    return 1;
  return splitKSlices(int64_t(outputTilesAt(core, config, batch)), fuse::kTileCount(core, config), config.splitK,
                      smCount);
}

} // namespace fusec::config
