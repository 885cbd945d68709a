//===- KernelEmulation.h - Run a fused module's generated kernels -*- C++ -*-===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H
#define FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H

#include "codegen/KernelSource.h"
#include "runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fusec::test {

/// The split-K scratch of one launch, as the runtime gives it: partial sums
/// NaN (never read before they are written), one counter per tile, zero.
class SplitScratch {
public:
  /// For `tiles` blocks (grid.x x grid.y) of a launch of `launch`, split
  /// into `slices` (0: the slices the runtime picks on an H200, 132 SMs; 1
  /// for a kernel that is not split-capable).
  SplitScratch(const codegen::KernelLaunch &launch, size_t tiles, int64_t slices = 0);

  /// The launch's grid.z.
  unsigned slices() const { return slices_; }
  /// Appends the two buffers to the arguments (and their sizes) of a
  /// split-capable kernel; nothing for another.
  void appendTo(std::vector<void *> &args, std::vector<size_t> &bytes);
  /// Whether every counter is zero again, as the next launch needs them.
  bool countersCleared() const;

private:
  bool split_;
  unsigned slices_;
  std::vector<float> partials_;
  std::vector<uint32_t> counters_;
};

/// Emits every superkernel of the fused `module`, compiles the CUDA text
/// through the emulation header and runs the kernels in order at `batch`.
/// Split-capable kernels run with `splitSlices` k-slices (at most their
/// own maximum), or with 0 the slices the runtime picks on an H200 (132
/// SMs). Returns the graph outputs by name.
std::map<std::string, runtime::Tensor> emulate(mlir::ModuleOp module,
                                               const std::map<std::string, runtime::Tensor> &inputs, int batch,
                                               int64_t splitSlices = 0);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H
