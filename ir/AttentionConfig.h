//===- AttentionConfig.h - Kernel configs of attention kernels -*- C++ -*-===//
//
// The #fuse.config of a fuse.attention superkernel names one of its two
// main loops, with the tile it runs:
//
//  * tensor_core_attention (codegen/include/fusec_attention_half.h): f16 or
//    bf16 Q, K and V of one type, head dimensions that are multiples of 16,
//    rows 16-byte aligned. Block [64 query rows, 32 or 64 keys per tile, 16
//    (the k16 step)], warp [16, keys] (4 warps of 16 rows), 2 stages (K and
//    V double-buffered), mma "m16n8k16", precision the operands' type,
//    vector [8, 8] (16-byte copies). 64-key tiles hold heads up to 64;
//    wider heads take 32 keys per tile (their accumulators and tiles are
//    twice as large). On f32 heads that are multiples of 8
//    (fusec_attention_tf32.h): block [64, 32 or 16, 8] (16 keys where 32
//    would need more than 99 KiB of shared memory), mma "m16n8k8",
//    precision "3xtf32" (f32 accuracy, the default) or "tf32"
//    (--precision=tf32), vector [4, 4];
//  * simt_attention (fusec_attention.h): any head dimension up to
//    kMaxAttentionHeadDim, any element type, f32 arithmetic. Block [16, 32,
//    1], warp [4, 32] (a lane per key, 4 rows per warp), 1 stage.
//
// Both have 128 threads. split_k above 1 splits the key sequence
// (flash-decoding): the most key slices the runtime may run a query tile
// with, chosen by the split-K rule (config/TileSelection.h) for grids too small for the GPU. The shared memory depends
// on the head dimensions (attentionSharedBytes), not on the config alone.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_ATTENTIONCONFIG_H
#define FUSEC_IR_ATTENTIONCONFIG_H

#include "ir/KernelConfig.h"

namespace fusec::fuse {

class AttentionOp;

/// The tiles the loops are written for: the tensor-core loop's query rows;
/// the SIMT loop's query rows and keys per tile.
inline constexpr int64_t kAttentionTensorCoreRows = 64, kAttentionSimtRows = 16, kAttentionSimtKeys = 32;

/// Whether `attention`'s operands suit a tensor-core loop: Q, K and V of
/// one type, f16 or bf16 with head dimensions that are multiples of 16, or
/// f32 with multiples of 8, up to kMaxAttentionHeadDim (the rows' alignment
/// is attentionRowAlignment's).
bool attentionTakesTensorCores(AttentionOp attention);

/// The elements of one 16-byte copy of `attention`'s rows: 8 halves or 4
/// floats.
int64_t attentionVectorElements(AttentionOp attention);

/// What the first element of every row of Q, K and V is a multiple of, in
/// elements, following each operand's Slice/Reshape/Flatten/Transpose views
/// back to the tensor they read (a superkernel's input): the head dimension
/// for dense operands; 1 where a view does not compose.
int64_t attentionRowAlignment(AttentionOp attention);

/// Why `config` cannot compute `attention`, or "".
std::string attentionConfigProblem(AttentionOp attention, const KernelConfig &config);

/// Why these #fuse.config fields describe no attention loop, or "" (for
/// kinds tensor_core_attention and simt_attention; structure only).
std::string describeAttentionConfigProblem(KernelTemplate kind, llvm::ArrayRef<int64_t> block,
                                           llvm::ArrayRef<int64_t> warp, int64_t stages, llvm::StringRef mma,
                                           llvm::StringRef precision, int64_t splitK, llvm::ArrayRef<int64_t> vector);

/// The floats a block of `config`'s loop publishes per split slice (its
/// kSplitFloats) for value heads of `valueDim`.
int64_t attentionSplitFloats(const KernelConfig &config, int64_t valueDim);

/// The shared memory of `config`'s loop for heads of `headDim` (Q, K) and
/// `valueDim` (V): the tensor-core loop's Q tile and two stages of K and V
/// tiles, rows padded by 8 elements (f32 heads: Q and K by 4, V to 8 or 24
/// words mod 32); the SIMT loop's f32 Q, K, V and probability tiles.
int64_t attentionSharedBytes(const KernelConfig &config, int64_t headDim, int64_t valueDim);

} // namespace fusec::fuse

#endif // FUSEC_IR_ATTENTIONCONFIG_H
