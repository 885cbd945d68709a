//===- ConfigTarget.h - What kernel configs are chosen for ------*- C++ -*-===//
//
// The one description of a compile that the kernel-config policy reads: the
// precision products are computed in, the batch a plan is tuned for, and
// the GPU it runs on. fuse-select-kernel-configs chooses each superkernel's
// #fuse.config with it, and the cost model prices hypothetical kernels with
// the same one, so the config priced during fusion is the config compiled.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CONFIG_CONFIGTARGET_H
#define FUSEC_CONFIG_CONFIGTARGET_H

#include "ir/KernelConfig.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace fusec::config {

struct ConfigTarget {
  /// fp32 accuracy (3xTF32 on the tensor cores) or plain TF32 for f32
  /// operands (`--precision=tf32`); f16/bf16 operands take their own type.
  fuse::ProductPrecision precision = fuse::ProductPrecision::Fp32;
  /// The batch tiles are chosen for (fusec's --cost-batch). A larger tile
  /// (128 x 128, then 128 x 64) replaces the 64 x 64 one where it still gives
  /// every SM a block at that batch and its waves fill the GPU at least as
  /// well (fewer bytes per FLOP from L2 and fewer instructions per mma,
  /// which the cost model does not price yet, so it must not lose on waves).
  int64_t batch = 1;
  int64_t smCount = 132;
  int64_t sharedBytesPerSm = int64_t{227} * 1024;
  /// The plan runs on sm_90a only (fusec --target=sm_90a): the Hopper
  /// templates (wgmma_gemm) apply.
  bool hopper = false;
};

/// The product precision a compile's `precision` option names ("fp32",
/// "tf32"), or none.
inline std::optional<fuse::ProductPrecision> productPrecisionNamed(llvm::StringRef name) {
  if (name == "fp32")
    return fuse::ProductPrecision::Fp32;
  if (name == "tf32")
    return fuse::ProductPrecision::Tf32;
  return std::nullopt;
}

/// Whether plans for `target` (fusec --target: "sm_80", "sm_90", "sm_90a")
/// may use the Hopper templates: only sm_90a code has wgmma and setmaxnreg.
inline bool isHopperTarget(llvm::StringRef target) { return target == "sm_90a"; }

} // namespace fusec::config

#endif // FUSEC_CONFIG_CONFIGTARGET_H
