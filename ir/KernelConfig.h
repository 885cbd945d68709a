//===- KernelConfig.h - How conv and GEMM superkernels are instantiated -*- C++ -*-===//
//
// The C++ view of #fuse.config and what each template can compute. For a
// conv, Gemm or MatMul op it answers which templates can compute it
// (checkKernelConfig: shapes a template takes, its 32-bit index limits, its
// shared memory), so a config pinned by hand in the IR is refused with a
// reason rather than miscompiled. Which config fusec compiles is the
// config library's choice (config/TileSelection.h), made once by
// fuse-select-kernel-configs; codegen instantiates the attribute.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_KERNELCONFIG_H
#define FUSEC_IR_KERNELCONFIG_H

#include "ir/FuseAttributes.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusec::fuse {

class ConvOp;

enum class KernelTemplate {
  TensorCoreGemm,
  TensorCoreConv,
  SimtGemm,
  SimtGemv,
  SimtConv,
  DirectConv,
  /// fuse.attention's main loops (ir/AttentionConfig.h).
  TensorCoreAttention,
  SimtAttention,
  /// The Hopper GEMM (fusec_gemm_sm90.h: TMA, mbarrier pipeline, wgmma;
  /// sm_90a only): f16/bf16 products with B as N x K.
  WgmmaGemm
};

/// What a conv/GEMM's products are computed with: fp32 accuracy (3xTF32 on
/// the tensor cores, FMA on SIMT) or plain TF32 (`--precision=tf32`).
enum class ProductPrecision { Fp32, Tf32 };

/// The element type a tensor-core template multiplies: f32 (FusecGemmTf32,
/// mma.m16n8k8) or f16/bf16 (FusecGemmHalf, mma.m16n8k16). It is the core
/// op's operand type; SIMT templates keep F32 (they compute in f32 whatever
/// they load).
enum class OperandType { F32, F16, BF16 };

/// Offsets the templates compute in 32-bit arithmetic stay at or below this.
inline constexpr int64_t kLargest32BitOffset = (int64_t(1) << 31) - 1;
/// The static shared memory one kernel may declare; above it, kernels use
/// dynamic shared memory with the opt-in set when the module is loaded.
inline constexpr int64_t kStaticSharedBytes = int64_t{48} * 1024;
/// The shared memory a config may need: what every sm_80+ GPU grants one
/// block with the opt-in (99 KiB on sm_86/sm_89; 163 KiB on sm_80, 227 KiB
/// on sm_90).
inline constexpr int64_t kMaxSharedBytes = int64_t{99} * 1024;

/// The most k-slices a split-capable kernel's output tiles may be split
/// into (fusec_split_k.h; the runtime picks the slices per launch).
inline constexpr int64_t kMaxSplitK = 16;

/// The C++ view of #fuse.config (see FuseAttributes.td for the fields).
struct KernelConfig {
  KernelTemplate kind = KernelTemplate::SimtGemm;
  int64_t blockM = 16, blockN = 16, blockK = 16;
  int64_t warpM = 1, warpN = 1;
  int64_t stages = 1;
  /// 3: the 3xTF32 split; 1: plain TF32 or SIMT FMA.
  int64_t passes = 1;
  /// Tensor-core templates: above 1, the kernel is split-capable and the
  /// runtime may split each output tile's k-range into up to this many
  /// slices (support/SplitK.h picks them per launch); 1: no split.
  int64_t splitK = 1;
  /// Elements per copy (a 16-byte copy is 4 floats or 8 halves).
  int64_t aVector = 1, bVector = 1;
  OperandType operands = OperandType::F32;

  bool usesTensorCores() const {
    return kind == KernelTemplate::TensorCoreGemm || kind == KernelTemplate::TensorCoreConv ||
           kind == KernelTemplate::TensorCoreAttention || kind == KernelTemplate::WgmmaGemm;
  }
  /// One of fuse.attention's main loops.
  bool isAttention() const {
    return kind == KernelTemplate::TensorCoreAttention || kind == KernelTemplate::SimtAttention;
  }
  /// A tensor-core config on f16 or bf16 operands.
  bool halfOperands() const { return usesTensorCores() && operands != OperandType::F32; }
  /// Bytes of one operand element in the shared tiles.
  int64_t elementBytes() const { return halfOperands() ? 2 : 4; }
  /// Threads per block.
  int64_t threads() const;
  /// Registers per thread the template's kernel needs, estimated from the
  /// config (accumulators, mma fragments, and the template's addressing
  /// and epilogue state); TensorCoreCoverageTest checks the estimate against
  /// ptxas for the configs fusec chooses.
  int64_t estimatedRegisters() const;
  /// Static shared memory of the pipeline, B's tile N x K (`bTransposed`)
  /// or K x N (tensor-core templates, by element size; the SIMT tiles' two
  /// T x (T + 1) floats). 0 for the attention loops, whose shared memory
  /// depends on the head dimensions (attentionSharedBytes).
  int64_t sharedBytes(bool bTransposed) const;

  KernelConfigAttr toAttr(mlir::MLIRContext *context) const;
  /// The attribute's fields (it is verified, so they are consistent).
  static KernelConfig fromAttr(KernelConfigAttr attr);
};

llvm::StringRef templateName(KernelTemplate kind);

/// The operand type of a tensor-core template for operands of `type`; none
/// for types no tensor-core template multiplies.
std::optional<OperandType> operandTypeOf(mlir::Type type);

/// Why these #fuse.config fields describe no instantiable template, or ""
/// (structure only: the shapes are checkKernelConfig's).
std::string describeConfigProblem(llvm::StringRef kind, llvm::ArrayRef<int64_t> block, llvm::ArrayRef<int64_t> warp,
                                  int64_t stages, llvm::StringRef mma, llvm::StringRef precision, int64_t splitK,
                                  llvm::ArrayRef<int64_t> vector);

/// The k-tiles of `core`'s reduction for `config` (K / BK, rounded up; 0
/// for a K known only at run time, which no tensor-core template takes).
int64_t kTileCount(mlir::Operation *core, const KernelConfig &config);

/// Why `config`'s template cannot compute `core` (see checkKernelConfig),
/// or "".
std::string kernelConfigProblem(mlir::Operation *core, const KernelConfig &config);

/// Fails, reporting on `core` why, when `config`'s template cannot compute
/// `core`: the wrong kind of op, a precision that is not its operands' type
/// (f16/bf16 on f32 operands, tf32 on f16 ones), a shape it does not take (a transposed A,
/// a size other than the batch known only at run time, offsets beyond its
/// 32-bit index math, groups), or shared memory beyond the static limit.
mlir::LogicalResult checkKernelConfig(mlir::Operation *core, const KernelConfig &config);

/// How the Hopper templates tile a channels-last conv's output pixels
/// (wgmma_gemm on a conv). A pointwise conv (1x1, stride 1, unpadded) is a
/// `product`: the batch's pixels are the GEMM's rows, blockM at a time
/// (fusec_gemm_sm90.h). Any other is fusec_conv_sm90.h's implicit GEMM: a
/// block computes `tileHeight` rows of `tileWidth` output pixels of one
/// image (at most blockM), each filter tap one TMA box of the input.
struct WgmmaConvTiling {
  bool product = false;
  int64_t tileWidth = 0, tileHeight = 0;
  /// The blocks along one image's output (spatial tiling).
  int64_t tilesPerImage = 0;
  /// The share of the blocks' rows that hold output pixels, in (0, 1].
  double usefulRows = 1;
  /// 8, 16 or 24 channels (spatial tiling): a k-tile is 8 chunks of 8
  /// channels, (tap, chunk) in the weights' order, unswizzled 16-byte
  /// boxes, rather than 64 channels of one tap.
  bool narrow = false;
  /// The reduction's k-tiles of 64, and the share of their K that is not
  /// padding (channels past C, taps past the window).
  int64_t kTiles = 0;
  double usefulK = 1;
};
/// `conv`'s tiling for blocks of `blockM` rows: for the spatial tiling the
/// tile with the fewest blocks per image (hence the fewest idle rows),
/// among those whose TMA boxes span at most 256 input elements a
/// dimension; of equals the widest (longer contiguous rows to fetch).
WgmmaConvTiling wgmmaConvTiling(ConvOp conv, int64_t blockM);

/// A matrix product's M x K by K x N view: K, N and the most rows of A at
/// any batch, and whether the batch matrices of A fold into the rows of one
/// matrix (B has no batch dimensions, so A's and C's matrices are
/// consecutive in memory). K or N may be dynamic.
struct MatrixProductShape {
  int64_t largestRows = 0, k = 0, n = 0;
  bool transA = false, transB = false;
  bool foldedBatch = false;
};
MatrixProductShape matrixProductShape(mlir::Operation *core);

} // namespace fusec::fuse

#endif // FUSEC_IR_KERNELCONFIG_H
