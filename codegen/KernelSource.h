//===- KernelSource.h - A generated CUDA kernel -----------------*- C++ -*-===//
//
// What codegen produces for one fuse.superkernel: CUDA C++ text and how to
// launch it. Grid sizes are linear in the batch size, so one image serves
// every batch bucket: each grid dimension is ceil((perBatch * batch + fixed)
// / divisor). No MLIR types here: the plan writer records this as data.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_KERNELSOURCE_H
#define FUSEC_CODEGEN_KERNELSOURCE_H

#include "support/BatchLinear.h"
#include "support/TensorMapDesc.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fusec::codegen {

struct KernelLaunch {
  std::array<GridDim, 3> grid;
  /// Each grid dimension's work is also multiplied by the sizes of these
  /// ranges (named dimensions the plan runs over a range, fusec --dim
  /// seq=1:512), one name per factor: `[batch, seq, 32]` elements are
  /// work {32, 0} times "seq".
  std::array<std::vector<std::string>, 3> gridRanges;
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Dynamic shared memory per block (kernels whose pipeline needs more than
  /// the 48 KiB a static array may have).
  int64_t sharedBytes = 0;
  /// Split-K (fusec_split_k.h): above 1, the kernel is split-capable: the
  /// runtime launches grid.z = slices (1 to splitMaxSlices, chosen per
  /// launch from the tiles, splitKTiles and the device's SMs) and the kernel
  /// takes two more parameters before `batch`: `float *partials`
  /// (splitPartialFloats per block) and `unsigned *counters` (one per output
  /// tile, grid.x x grid.y, zero before the first launch).
  int64_t splitMaxSlices = 1;
  int64_t splitKTiles = 0;
  int64_t splitPartialFloats = 0;
  /// Scalar arguments (KernelBuilder::scalarArgument): the kernel takes
  /// them after `batch` as one `FusecArguments<N>` parameter.
  std::vector<uint32_t> arguments;
  /// The arguments that hold a range's size, set per size at run time
  /// (their value in `arguments` is a placeholder): (position, range name).
  std::vector<std::pair<size_t, std::string>> rangeArguments;
  /// TMA descriptors the runtime encodes and passes after the scalar
  /// arguments (or `batch`), as `const __grid_constant__ FusecTensorMap`s.
  std::vector<TensorMapDesc> tensorMaps;
};

struct GeneratedKernel {
  /// The kernel's symbol name (the superkernel's sym_name).
  std::string name;
  std::string kind;
  /// The #fuse.config it instantiates, as printed (conv and gemm kernels;
  /// "" for the others).
  std::string config;
  /// A complete translation unit: includes the prelude, defines
  /// `extern "C" __global__ void <name>(inputs..., outputs..., int batch)`
  /// (a split-K kernel: `..., float *partials, unsigned *counters, int batch`;
  /// a kernel with scalar arguments: `..., int batch, FusecArguments<N> fusec_args`)
  /// and, under FUSEC_EMULATION, the host thunk `<name>__emulated`.
  std::string source;
  KernelLaunch launch;
};

/// The name of the prelude every generated kernel includes.
inline constexpr const char *kPreludeName = "fusec_cuda_prelude.h";

/// The prelude's text (embedded at build time from codegen/include/).
const char *preludeSource();

/// A header generated kernels may include, by the name they include it by.
struct DeviceHeader {
  const char *name;
  const char *text;
};

/// Every header of codegen/include/ (embedded at build time), the prelude
/// first: fusec_mma.h (tensor-core and cp.async primitives) and
/// fusec_gemm.h (the tensor-core GEMM template) follow it.
const std::vector<DeviceHeader> &deviceHeaders();

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_KERNELSOURCE_H
