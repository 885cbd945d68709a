//===- TileSelection.h - The kernel config fusec compiles -------*- C++ -*-===//
//
// The kernel-config policy, in one place for the whole compiler: for a conv,
// Gemm, MatMul or Attention op, which template and tile fusec compiles
// (chooseKernelConfig) and which others a plan carries for the tuner
// (kernelConfigVariants). fuse-select-kernel-configs calls it once per
// superkernel and stores the answer as #fuse.config; codegen instantiates
// that attribute and never chooses; the cost model prices it. What a
// template can compute at all is ir/KernelConfig.h's (checkKernelConfig):
// every config chosen here passes it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CONFIG_TILESELECTION_H
#define FUSEC_CONFIG_TILESELECTION_H

#include "config/ConfigTarget.h"
#include "ir/KernelConfig.h"

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <vector>

namespace fusec::config {

/// The config fusec uses for a conv, Gemm, MatMul or Attention op
/// (attention: chooseAttentionConfig, config/AttentionSelection.h). Conv and
/// products: on f16/bf16 operands the half template (`target.precision`
/// applies to f32 operands only); with `target.hopper` the Hopper GEMM for
/// f16/bf16 products it can read. A tensor-core config whose tiles at batch
/// 1 give fewer than half of `target`'s SMs a block, with a long enough K,
/// is split-capable (split_k is the most slices the runtime may use).
fuse::KernelConfig chooseKernelConfig(mlir::Operation *core, const ConfigTarget &target);

/// Up to `count` - 1 other configs that can compute `core`, for the plan
/// to carry as variants the runtime may time and choose among (fuserun
/// --tune): for a tensor-core `chosen`, first for a product of at most 16
/// rows at `target.batch` the few-row template (simt_gemv; exact SIMT 8 x 8
/// where it does not apply), then the other block tiles that fit the output
/// (each split-capable by the same rule as `chosen`), nearest in size first
/// (of equally near ones the smaller where `chosen` leaves SMs idle at
/// `target.batch`, else the larger). For wgmma_gemm, the sm_80 template's
/// choice and its variants. None for SIMT and direct configs, which are
/// chosen only where no tensor-core template can compute the op. For the
/// tensor-core attention loop, the other number of keys per tile where the
/// heads allow it (32 for 64, 64 for 32 on heads up to 64).
std::vector<fuse::KernelConfig> kernelConfigVariants(mlir::Operation *core, const fuse::KernelConfig &chosen,
                                                     int64_t count, const ConfigTarget &target);

} // namespace fusec::config

#endif // FUSEC_CONFIG_TILESELECTION_H
