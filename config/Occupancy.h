//===- Occupancy.h - How a kernel config fills the GPU ----------*- C++ -*-===//
//
// The GPU-filling arithmetic both the config choice and the cost model use:
// blocks per SM from a config's threads, registers and shared memory, the
// share of the GPU's block slots a grid keeps busy, the output tiles a
// config cuts an op into, and the k-slices the runtime splits them into.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CONFIG_OCCUPANCY_H
#define FUSEC_CONFIG_OCCUPANCY_H

#include "ir/KernelConfig.h"

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace fusec::config {

/// The blocks of `threads` threads, `registers` registers each and
/// `sharedBytes` of shared memory one SM holds (sm_80 and sm_90): at most
/// 2048 threads, 32 blocks, `sharedBytesPerSm` bytes of shared memory and
/// 65536 registers, allocated per warp in units of 256.
int64_t blocksPerSm(int64_t threads, int64_t registers, int64_t sharedBytes, int64_t sharedBytesPerSm);

/// The share of the GPU's block slots that a grid of `blocks` blocks of
/// `config` keeps busy, averaged over its waves: slots are SMs x the blocks
/// one SM holds (blocksPerSm, by threads, estimated registers and shared
/// memory, `sharedBytesPerSm`).
double waveUtilization(const fuse::KernelConfig &config, double blocks, int64_t smCount, int64_t sharedBytesPerSm);

/// The output of a conv or matrix product as the tensor-core templates
/// tile it, at a batch: rows (a conv's output channels; a product's rows of
/// A, its batch matrices folded in when they fold) by columns (a conv's
/// pixels over the batch; a product's N).
struct OutputExtent {
  double rows = 0, columns = 0;
  /// Whether a side grows with the batch.
  bool rowsGrow = false, columnsGrow = false;
};
OutputExtent outputExtent(mlir::Operation *core, int64_t batch);

/// The blocks `config` launches for `core` at `batch`, unsplit: its output
/// tiles, or for attention one per query tile of each (batch, head) matrix.
double outputTilesAt(mlir::Operation *core, const fuse::KernelConfig &config, int64_t batch);

/// The k-slices the runtime runs a launch of `config` for `core` with at
/// `batch` on a GPU of `smCount` SMs (support/SplitK.h): 1 unless
/// `config` is split-capable and its tiles leave SMs idle.
int64_t splitSlicesAt(mlir::Operation *core, const fuse::KernelConfig &config, int64_t batch, int64_t smCount);

} // namespace fusec::config

#endif // FUSEC_CONFIG_OCCUPANCY_H
