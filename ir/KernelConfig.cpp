//===- KernelConfig.cpp - How conv and GEMM superkernels are instantiated -===//
#include "ir/KernelConfig.h"
#include "ir/AttentionConfig.h"
#include "ir/ConvPrologue.h"
#include "ir/ConvShape.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"
#include "ir/StridedView.h"
#include "support/IndexedBatch.h"
#include "support/SplitK.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;

namespace fusec::fuse {
namespace {

constexpr const char *kMmaTf32 = "m16n8k8";
constexpr const char *kMmaHalf = "m16n8k16";
/// wgmma_gemm's instruction: wgmma.mma_async m64nNk16, N the block's.
constexpr const char *kMmaWgmma = "m64nNk16";
/// The Hopper shared memory one block may use (sm_90's 227 KiB).
constexpr int64_t kHopperSharedBytes = int64_t{227} * 1024;

} // namespace

std::optional<OperandType> operandTypeOf(Type type) {
  if (type.isF32())
    return OperandType::F32;
  if (type.isF16())
    return OperandType::F16;
  if (type.isBF16())
    return OperandType::BF16;
  return std::nullopt;
}

namespace {

StringRef operandTypeName(OperandType type) {
  switch (type) {
  case OperandType::F32:
    return "f32";
  case OperandType::F16:
    return "f16";
  case OperandType::BF16:
    return "bf16";
  }
  return "";
}

/// Why a tensor-core `config` cannot multiply operands of `type`, or "".
std::string operandProblem(const KernelConfig &config, Type type) {
  const std::optional<OperandType> operands = operandTypeOf(type);
  if (!operands)
    return "its operands are f32, f16 or bf16 only";
  if (*operands == config.operands)
    return "";
  const std::string precision = config.operands == OperandType::F32 ? (config.passes == 3 ? "3xtf32" : "tf32")
                                                                    : operandTypeName(config.operands).str();
  return "precision \"" + precision + "\" does not multiply " + operandTypeName(*operands).str() + " operands (" +
         (*operands == OperandType::F32 ? "\"3xtf32\" or \"tf32\"" : "\"" + operandTypeName(*operands).str() + "\"") +
         " does)";
}

std::optional<KernelTemplate> parseTemplate(StringRef name) {
  return llvm::StringSwitch<std::optional<KernelTemplate>>(name)
      .Case("tensor_core_gemm", KernelTemplate::TensorCoreGemm)
      .Case("tensor_core_conv", KernelTemplate::TensorCoreConv)
      .Case("simt_gemm", KernelTemplate::SimtGemm)
      .Case("simt_gemv", KernelTemplate::SimtGemv)
      .Case("simt_conv", KernelTemplate::SimtConv)
      .Case("direct_conv", KernelTemplate::DirectConv)
      .Case("tensor_core_attention", KernelTemplate::TensorCoreAttention)
      .Case("simt_attention", KernelTemplate::SimtAttention)
      .Case("wgmma_gemm", KernelTemplate::WgmmaGemm)
      .Default(std::nullopt);
}

/// Why the threads cannot share the copies of a Rows x Cols tile in vectors
/// of `width` the way the main loop's TileLoads does, or "".
std::string tileLoadProblem(const char *what, int64_t rows, int64_t cols, int64_t width, int64_t threads) {
  const int64_t perRow = cols / width;
  if (cols % width != 0 || rows * perRow % threads != 0 || rows * perRow < threads ||
      (threads % perRow != 0 && perRow % threads != 0))
    return std::string(what) + " tile of " + std::to_string(rows) + " x " + std::to_string(cols) + " elements in " +
           std::to_string(width) + "-element copies does not divide evenly over " + std::to_string(threads) +
           " threads";
  return "";
}

std::string str(int64_t value) { return std::to_string(value); }

ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }

/// A size's largest value: the dynamic dimension is the batch.
int64_t largest(int64_t dim) { return ShapedType::isDynamic(dim) ? kLargestIndexedBatch : dim; }

int64_t largestProduct(ArrayRef<int64_t> shape) {
  int64_t product = 1;
  for (int64_t dim : shape)
    product = std::min(product * largest(dim), int64_t(1) << 62);
  return product;
}

/// Why the tensor-core convolution cannot compute `conv` with `config`, or "".
std::string tensorCoreConvProblem(ConvOp conv, const KernelConfig &config) {
  auto in = shapeOf(conv.getInput()), weight = shapeOf(conv.getWeight()), out = shapeOf(conv.getOutput());
  if (std::string problem = operandProblem(config, elementTypeOf(conv.getInput())); !problem.empty())
    return problem;
  if (conv.getGroup() != 1)
    return "it computes group-1 convolutions only (group " + str(conv.getGroup()) + ")";
  for (ArrayRef<int64_t> shape : {in.drop_front(), weight, out.drop_front()})
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return "every size but the batch must be static";
  const ConvShape s = convShapeOf(conv);
  const int64_t taps = s.taps(), pixels = s.pixels();
  const int64_t slack = std::max(config.blockM, config.blockN);
  // An input that is a slice of a concatenation's channels (ir/SliceViews.h)
  // is addressed with the concatenation's image size, and its first element
  // lies `offset` channels into it.
  std::optional<SliceView> slice;
  if (auto kernel = conv->getParentOfType<SuperkernelOp>())
    if (auto source = llvm::dyn_cast<BlockArgument>(convInputSource(conv));
        source && source.getOwner() == &kernel.getBody().front())
      slice = sliceViewOf(kernel.getInputs()[source.getArgNumber()]);
  const int64_t imageElements = slice ? slice->extent * s.height * s.width : s.imageElements();
  if (imageElements > kLargest32BitOffset || (s.filters + slack) * taps > kLargest32BitOffset ||
      largest(s.batch) * pixels + slack > kLargest32BitOffset)
    return "its 32-bit offsets cannot address this convolution up to batch " + str(kLargestIndexedBatch);
  if (taps % config.aVector != 0)
    return "weight rows of " + str(taps) + " elements are not whole " + str(config.aVector) + "-element vectors";
  if (s.channelsLast) {
    // The input is read as pixels x taps (k contiguous): a vector is
    // adjacent channels of one tap, and each thread copies one k column of
    // whole rows (FusecIm2colNhwcB keeps state per row).
    if (config.bVector > 1 && s.channels % config.bVector != 0)
      return "vector copies of an NHWC input need the channels (" + str(s.channels) + ") to be a multiple of the " +
             "vector";
    // A vector copy is aligned to its size: in a slice, every pixel's first
    // channel must be too.
    if (config.bVector > 1 && slice && (slice->offset % config.bVector != 0 || slice->extent % config.bVector != 0))
      return "vector copies of a slice of a concatenation's channels need its offset (" + str(slice->offset) +
             ") and the concatenation's channels (" + str(slice->extent) + ") to be multiples of the vector";
    if (config.threads() % (config.blockK / config.bVector) != 0)
      return "each thread must copy one k column of the NHWC input (block K / vector must divide the threads)";
    return tileLoadProblem("the input", config.blockN, config.blockK, config.bVector, config.threads());
  }
  const bool pointwise = s.kernelH == 1 && s.kernelW == 1 &&
                         llvm::all_of(conv.getStrides(), [](int64_t stride) { return stride == 1; }) &&
                         llvm::all_of(conv.getPads(), [](int64_t pad) { return pad == 0; });
  if (config.bVector > 1 && (!pointwise || pixels % config.bVector != 0))
    return "vector copies of the input need a 1x1, stride-1, unpadded convolution whose pixel count is a multiple "
           "of the vector";
  if (config.threads() % (config.blockN / config.bVector) != 0)
    return "each thread must copy one input column (block N / vector must divide the threads)";
  return tileLoadProblem("the input", config.blockK, config.blockN, config.bVector, config.threads());
}

/// Why A's rows, read where they lie in another tensor (rule operand-views,
/// matrixRowsOf), are not whole `vector`-element copies, or "".
std::string rowViewProblem(Operation *core, int64_t vector) {
  std::optional<MatrixRows> rows = matrixRowsOf(core->getOperand(0));
  if (!rows || (rows->offset % vector == 0 && rows->rowStride % vector == 0))
    return "";
  return "A's rows start at element " + str(rows->offset) + " of their tensor and every " + str(rows->rowStride) +
         " after it: not whole " + str(vector) + "-element vectors";
}

/// Why the tensor-core GEMM cannot compute the matrix product `core`, or "".
std::string tensorCoreGemmProblem(Operation *core, const KernelConfig &config) {
  const MatrixProductShape shape = matrixProductShape(core);
  if (std::string problem = operandProblem(config, elementTypeOf(core->getOperand(0))); !problem.empty())
    return problem;
  if (shape.transA)
    return "it takes A untransposed only";
  if (ShapedType::isDynamic(shape.k) || ShapedType::isDynamic(shape.n))
    return "K and N must be static";
  // A block's rows start at a 64-bit offset (fusec_gemm.h); what stays
  // 32-bit is the row index (M, with a block's overhang), the offsets inside
  // one block's rows of A and those inside one matrix B.
  if (shape.largestRows + config.blockM > kLargest32BitOffset)
    return "its 32-bit row index cannot count " + str(shape.largestRows) + " rows (at batch " +
           str(kLargestIndexedBatch) + ")";
  if (shape.k * shape.n > kLargest32BitOffset || config.blockM * shape.k > kLargest32BitOffset)
    return "its 32-bit offsets cannot address B (" + str(shape.k) + " x " + str(shape.n) + ") or a block's rows of A";
  const int64_t ldb = shape.transB ? shape.k : shape.n;
  if (shape.k % config.aVector != 0 || ldb % config.bVector != 0)
    return "matrix rows are not whole vectors (K = " + str(shape.k) + ", N = " + str(shape.n) + ")";
  if (std::string problem = rowViewProblem(core, config.aVector); !problem.empty())
    return problem;
  // A block's rows of A lie BM strides apart, addressed with 32-bit
  // offsets: with A read as rows of another tensor the stride is the view's.
  if (std::optional<MatrixRows> rows = matrixRowsOf(core->getOperand(0));
      rows && config.blockM * rows->rowStride > kLargest32BitOffset)
    return "its 32-bit offsets cannot address a block's rows of A, " + str(rows->rowStride) + " elements apart";
  return shape.transB ? tileLoadProblem("B", config.blockN, config.blockK, config.bVector, config.threads())
                      : tileLoadProblem("B", config.blockK, config.blockN, config.bVector, config.threads());
}

/// Why the Hopper GEMM (fusec_gemm_sm90.h) cannot compute the matrix
/// product `core`, or "": its operands reach shared memory through 2-D TMA
/// maps of A (M x K) and B (N x K, or K x N, which wgmma reads N-major), so
/// B is one matrix, A's batch matrices fold into its rows, and rows are
/// 16-byte aligned (K, and N for a K x N B, multiples of 8).
std::string wgmmaGemmProblem(Operation *core, const KernelConfig &config) {
  const MatrixProductShape shape = matrixProductShape(core);
  if (config.operands == OperandType::F32)
    return "it multiplies f16 or bf16 operands";
  if (std::string problem = operandProblem(config, elementTypeOf(core->getOperand(0))); !problem.empty())
    return problem;
  if (shape.transA)
    return "it takes A untransposed only";
  if (matrixRowsOf(core->getOperand(0)))
    return "its TMA map reads A dense, not as rows of another tensor (operand-views)";
  if (ShapedType::isDynamic(shape.k) || ShapedType::isDynamic(shape.n))
    return "K and N must be static";
  if (!namedSymbolsOf(core->getResult(0).getType()).empty())
    return "its rows run over a range, and a tensor map counts the rows of one size";
  if (shapeOf(core->getOperand(1)).size() != 2 || (shapeOf(core->getResult(0)).size() > 2 && !shape.foldedBatch))
    return "B must be one matrix and A's batch matrices fold into its rows (2-D tensor maps)";
  if (shape.k % 8 != 0 || (!shape.transB && shape.n % 8 != 0))
    return "TMA needs rows of 16-byte multiples: K = " + str(shape.k) + (shape.transB ? "" : ", N = " + str(shape.n)) +
           " must be multiples of 8";
  if (shape.largestRows + config.blockM > kLargest32BitOffset || shape.n > kLargest32BitOffset)
    return "its 32-bit TMA coordinates cannot count " + str(shape.largestRows) + " rows (at batch " +
           str(kLargestIndexedBatch) + ")";
  return "";
}

/// Whether `conv` is a pointwise product of pixels by weights: 1x1,
/// stride 1, unpadded.
bool isPointwiseProduct(ConvOp conv, const ConvShape &s) {
  return s.kernelH == 1 && s.kernelW == 1 && llvm::all_of(conv.getStrides(), [](int64_t v) { return v == 1; }) &&
         llvm::all_of(conv.getPads(), [](int64_t v) { return v == 0; });
}

/// Why the Hopper templates cannot compute `conv` with `config`, or "": a
/// channels-last group-1 conv whose input the tensor maps read as stored
/// (dense, no prologue) with C a multiple of 8 (TMA rows of 16-byte
/// multiples). A pointwise conv is a product of the batch's pixels (rows
/// of C channels) by the weights (Co x C, K-major) on the GEMM; any other
/// window, stride (up to 8, TMA's traversal strides), padding or dilation
/// runs fusec_conv_sm90.h's implicit GEMM, one 4-D box per tap.
std::string wgmmaConvProblem(ConvOp conv, const KernelConfig &config) {
  if (config.operands == OperandType::F32)
    return "it multiplies f16 or bf16 operands";
  if (std::string problem = operandProblem(config, elementTypeOf(conv.getInput())); !problem.empty())
    return problem;
  const ConvShape s = convShapeOf(conv);
  if (!s.channelsLast || conv.getGroup() != 1)
    return "it computes channels-last group-1 convolutions only";
  for (int64_t dim : {s.channels, s.height, s.width, s.filters})
    if (ShapedType::isDynamic(dim))
      return "every size but the batch must be static";
  if (!convInputChain(conv).ops.empty())
    return "its TMA map reads the input as stored, with no prologue";
  if (auto kernel = conv->getParentOfType<SuperkernelOp>())
    if (auto source = llvm::dyn_cast<BlockArgument>(conv.getInput()))
      if (sliceViewOf(kernel.getInputs()[source.getArgNumber()]))
        return "its TMA map reads a dense input, not a slice of a concatenation";
  if (s.channels % 8 != 0)
    return "TMA needs rows of 16-byte multiples: C = " + str(s.channels) + " must be a multiple of 8";
  if (s.filters > kLargest32BitOffset)
    return "its 32-bit TMA coordinates cannot count " + str(s.filters) + " filters";
  if (isPointwiseProduct(conv, s)) {
    if (largest(s.batch) * s.pixels() + config.blockM > kLargest32BitOffset)
      return "its 32-bit TMA coordinates cannot count " + str(largest(s.batch) * s.pixels()) + " pixels (at batch " +
             str(kLargestIndexedBatch) + ")";
    return "";
  }
  if (llvm::any_of(conv.getStrides(), [](int64_t v) { return v > 8; }))
    return "TMA's traversal strides reach 8, not a stride of " + str(llvm::max_element(conv.getStrides())[0]);
  const WgmmaConvTiling tiling = wgmmaConvTiling(conv, config.blockM);
  // Each tap's k-tiles are 64 channels wide (8 chunks of 8 channels under
  // 32): the rest are zeros the tensor cores multiply anyway. Past half of
  // them wasted, the mma.sync template, which packs the taps, does less
  // work (a strided 1x1 on 16 channels: 4x the useful products).
  if (tiling.usefulK < 0.5)
    return "its k-tiles would be mostly zeros (C = " + str(s.channels) + ", " + str(s.kernelH * s.kernelW) + " taps)";
  const int64_t tilesPerImage = tiling.tilesPerImage;
  if (tilesPerImage == 0)
    return "no tile of its output fits a TMA box (256 input elements a dimension)";
  if (largest(s.batch) * tilesPerImage > kLargest32BitOffset || std::max(s.height, s.width) > kLargest32BitOffset)
    return "its 32-bit block indices and TMA coordinates cannot count the batch's tiles (at batch " +
           str(kLargestIndexedBatch) + ")";
  return "";
}

} // namespace

WgmmaConvTiling wgmmaConvTiling(ConvOp conv, int64_t blockM) {
  const ConvShape s = convShapeOf(conv);
  WgmmaConvTiling tiling;
  constexpr int64_t kBlockK = 64; // wgmma_gemm's k-tile: 64 halves, the 128-byte swizzle
  if (ShapedType::isDynamic(s.groupChannels) || s.groupChannels < 1)
    return tiling;
  const int64_t channelBlocks = (s.groupChannels + kBlockK - 1) / kBlockK, taps = s.kernelH * s.kernelW;
  if (isPointwiseProduct(conv, s)) {
    tiling.product = true;
    tiling.kTiles = channelBlocks;
    tiling.usefulK = double(s.groupChannels) / double(channelBlocks * kBlockK);
    return tiling;
  }
  // Under 32 channels a tap's 64-channel k-tile would be mostly zeros:
  // k-tiles of 8 chunks of 8 channels pack the taps (fusec_conv_sm90.h's
  // kNarrow, which makes the same cut). From 32 on, half a k-tile or more
  // is real, in one 128-byte box rather than eight 16-byte ones.
  tiling.narrow = s.groupChannels < 32 && s.groupChannels % 8 == 0;
  tiling.kTiles = tiling.narrow ? (taps * s.groupChannels / 8 + 7) / 8 : taps * channelBlocks;
  tiling.usefulK = double(taps * s.groupChannels) / double(tiling.kTiles * kBlockK);
  auto strides = conv.getStrides();
  const int64_t strideH = strides[0], strideW = strides[1];
  if (ShapedType::isDynamic(s.outHeight) || ShapedType::isDynamic(s.outWidth) || strideH < 1 || strideW < 1)
    return tiling;
  for (int64_t width = std::min({s.outWidth, blockM, 256 / strideW}); width >= 1; --width) {
    const int64_t height = std::min({s.outHeight, blockM / width, 256 / strideH});
    if (height < 1)
      continue;
    const int64_t tiles = ((s.outWidth + width - 1) / width) * ((s.outHeight + height - 1) / height);
    if (tiling.tilesPerImage == 0 || tiles < tiling.tilesPerImage) {
      tiling.tileWidth = width;
      tiling.tileHeight = height;
      tiling.tilesPerImage = tiles;
    }
  }
  if (tiling.tilesPerImage > 0)
    tiling.usefulRows = double(s.pixels()) / double(tiling.tilesPerImage * blockM);
  return tiling;
}

namespace {

/// Why the few-row template (fusec_gemv.h) cannot compute the matrix
/// product `core`, or "".
std::string gemvProblem(Operation *core, const KernelConfig &config) {
  const MatrixProductShape shape = matrixProductShape(core);
  const Type aType = elementTypeOf(core->getOperand(0)), bType = elementTypeOf(core->getOperand(1));
  if (!operandTypeOf(aType) || aType != bType)
    return "A and B must have one element type, f32, f16 or bf16";
  if (shape.transA)
    return "it takes A untransposed only";
  if (ShapedType::isDynamic(shape.k) || ShapedType::isDynamic(shape.n))
    return "K and N must be static";
  if (shape.largestRows > kLargest32BitOffset || shape.k * shape.n > kLargest32BitOffset)
    return "its 32-bit sizes cannot hold these matrices up to batch " + str(kLargestIndexedBatch);
  if (shape.transB && config.blockN != 8)
    return "with B as N x K a warp computes each column: block N must be 8 (the warps of a block)";
  if (!shape.transB && (config.blockN != 32 || config.aVector != 1))
    return "with B as K x N a lane computes each column: block N must be 32 and the vector 1";
  if (config.aVector == 4 && (!aType.isF32() || shape.k % 4 != 0))
    return "16-byte loads need f32 operands and K a multiple of 4 (K = " + str(shape.k) + ")";
  return rowViewProblem(core, config.aVector);
}

/// Why `core` cannot be split into config.splitK k-slices, or "".
std::string splitKProblem(Operation *core, const KernelConfig &config) {
  const int64_t kTiles = kTileCount(core, config);
  if (llvm::isa<AttentionOp>(core)) {
    if (kTiles < config.splitK)
      return "split_k = " + str(config.splitK) + " needs at least as many key tiles of " + str(config.blockN) +
             " (the keys make " + str(kTiles) + ")";
    return "";
  }
  if (kTiles < config.splitK)
    return "split_k = " + str(config.splitK) + " needs at least as many k-tiles of " + str(config.blockK) + " (K has " +
           str(kTiles) + ")";
  if (llvm::isa<GemmOp, MatMulOp>(core)) {
    auto out = shapeOf(core->getResult(0));
    if (out.size() > 2 && !matrixProductShape(core).foldedBatch && largestProduct(out.drop_back(2)) > 1)
      return "split_k needs one matrix, or batch matrices that fold into the rows (grid.z holds the slices)";
  }
  return "";
}

} // namespace

std::string kernelConfigProblem(Operation *core, const KernelConfig &config) {
  if (auto attention = llvm::dyn_cast<AttentionOp>(core)) {
    std::string problem = attentionConfigProblem(attention, config);
    if (!problem.empty() || config.splitK == 1)
      return problem;
    problem = splitKProblem(core, config);
    return problem.empty() ? "" : "template " + templateName(config.kind).str() + " cannot split this op: " + problem;
  }
  const bool isConv = llvm::isa<ConvOp>(core), isProduct = llvm::isa<GemmOp, MatMulOp>(core);
  if (!isConv && !isProduct)
    return "'" + core->getName().getStringRef().str() + "' has no kernel config";
  switch (config.kind) {
  case KernelTemplate::TensorCoreConv:
  case KernelTemplate::SimtConv:
  case KernelTemplate::DirectConv:
    if (!isConv)
      return "template " + templateName(config.kind).str() + " computes convolutions, not matrix products";
    break;
  case KernelTemplate::WgmmaGemm: // products, and pointwise convs as products
    break;
  case KernelTemplate::TensorCoreGemm:
  case KernelTemplate::SimtGemm:
  case KernelTemplate::SimtGemv:
    if (!isProduct)
      return "template " + templateName(config.kind).str() + " computes matrix products, not convolutions";
    break;
  case KernelTemplate::TensorCoreAttention:
  case KernelTemplate::SimtAttention:
    return "template " + templateName(config.kind).str() + " computes attention, not " +
           (isConv ? "convolutions" : "matrix products");
  }
  std::string problem;
  if (config.kind == KernelTemplate::TensorCoreConv)
    problem = tensorCoreConvProblem(llvm::cast<ConvOp>(core), config);
  else if (config.kind == KernelTemplate::TensorCoreGemm)
    problem = tensorCoreGemmProblem(core, config);
  else if (config.kind == KernelTemplate::SimtGemv)
    problem = gemvProblem(core, config);
  else if (config.kind == KernelTemplate::WgmmaGemm)
    problem = isConv ? wgmmaConvProblem(llvm::cast<ConvOp>(core), config) : wgmmaGemmProblem(core, config);
  else if (config.kind == KernelTemplate::SimtConv && llvm::cast<ConvOp>(core).getGroup() != 1)
    problem = "it computes group-1 convolutions only";
  if (problem.empty() && config.splitK > 1)
    problem = splitKProblem(core, config);
  if (!problem.empty())
    return "template " + templateName(config.kind).str() + " cannot compute this op: " + problem;
  if (config.kind == KernelTemplate::WgmmaGemm) // describeConfigProblem bounds it by sm_90's 227 KiB
    return "";
  // B's tile is [BN][BK + pad] for transB products and channels-last convs.
  auto gemm = llvm::dyn_cast<GemmOp>(core);
  auto conv = llvm::dyn_cast<ConvOp>(core);
  const int64_t shared = config.sharedBytes((gemm && gemm.getTransB()) || (conv && conv.getChannelsLast()));
  if (shared > kMaxSharedBytes)
    return "the config needs " + str(shared) + " bytes of shared memory, above the " + str(kMaxSharedBytes) +
           " every sm_80+ GPU grants one block";
  return "";
}

StringRef templateName(KernelTemplate kind) {
  switch (kind) {
  case KernelTemplate::TensorCoreGemm:
    return "tensor_core_gemm";
  case KernelTemplate::TensorCoreConv:
    return "tensor_core_conv";
  case KernelTemplate::SimtGemm:
    return "simt_gemm";
  case KernelTemplate::SimtGemv:
    return "simt_gemv";
  case KernelTemplate::SimtConv:
    return "simt_conv";
  case KernelTemplate::DirectConv:
    return "direct_conv";
  case KernelTemplate::TensorCoreAttention:
    return "tensor_core_attention";
  case KernelTemplate::SimtAttention:
    return "simt_attention";
  case KernelTemplate::WgmmaGemm:
    return "wgmma_gemm";
  }
  return "";
}

int64_t KernelConfig::threads() const {
  if (kind == KernelTemplate::WgmmaGemm) // a producer warpgroup and one consumer per 64 rows
    return 128 * (blockM / 64 + 1);
  if (kind == KernelTemplate::SimtAttention) // 4 rows per warp
    return 32 * blockM / warpM;
  if (usesTensorCores())
    return 32 * (blockM / warpM) * (blockN / warpN);
  if (kind == KernelTemplate::SimtGemv)
    return 256;
  if (kind == KernelTemplate::DirectConv)
    return blockM;
  return blockM * blockN;
}

int64_t KernelConfig::estimatedRegisters() const {
  // Fitted to ptxas (CUDA 13, sm_80 and sm_90) on the kernels of ResNet-50,
  // the shared models and BERT/GPT-2 layers; TensorCoreCoverageTest checks
  // the fit (docs/codegen.md, "Registers: the estimate against ptxas").
  if (kind == KernelTemplate::TensorCoreAttention) // heads of 64: 128-142
    return 140;
  if (kind == KernelTemplate::WgmmaGemm) // 65536 / 384 threads, what ptxas allocates at launch; setmaxnreg
    return 168;                          // then moves registers from the producer to the consumers
  if (!usesTensorCores())                // SIMT and direct loops: few registers (not fitted)
    return 40;
  // Per thread: the warp tile's f32 accumulators, one k step's A and B
  // fragments, and addresses, loop state and the epilogue; 3xTF32 keeps
  // the small halves and the split's temporaries besides.
  const int64_t mmaM = warpM / 16, mmaN = warpN / 8;
  return std::min<int64_t>(255, mmaM * mmaN * 4 + mmaM * 4 + mmaN * 2 + (passes == 3 ? 45 : 25));
}

int64_t KernelConfig::sharedBytes(bool bTransposed) const {
  if (isAttention())
    return 0;
  if (kind == KernelTemplate::WgmmaGemm) // A and B stages of 64 halves per row, two mbarriers per stage
    return stages * ((blockM + blockN) * blockK * 2 + 16);
  if (kind == KernelTemplate::SimtGemv) // the 8 warps' partial sums (B as K x N)
    return bTransposed ? 4 : int64_t{4} * 8 * blockM * 32;
  if (!usesTensorCores())
    return kind == KernelTemplate::DirectConv ? 0 : int64_t{8} * blockM * (blockM + 1);
  // Rows padded as the templates pad them: 4 floats / 8 halves along k, 8
  // elements along n.
  const int64_t kPad = halfOperands() ? 8 : 4;
  const int64_t aStage = blockM * (blockK + kPad);
  const int64_t bStage = bTransposed ? blockN * (blockK + kPad) : blockK * (blockN + 8);
  // After the main loop the same memory stages the f32 output tile: rows
  // padded to BN + 8, or columns to BM + 4 (FusecStagedEpilogue).
  const int64_t stagedTile = int64_t{4} * std::max(blockM * (blockN + 8), blockN * (blockM + 4));
  return std::max(elementBytes() * stages * (aStage + bStage), stagedTile);
}

KernelConfigAttr KernelConfig::toAttr(MLIRContext *context) const {
  const int64_t block[] = {blockM, blockN, blockK}, warp[] = {warpM, warpN}, vector[] = {aVector, bVector};
  StringRef precision = !usesTensorCores()             ? "f32"
                        : operands != OperandType::F32 ? operandTypeName(operands)
                        : passes == 3                  ? "3xtf32"
                                                       : "tf32";
  StringRef mma = !usesTensorCores()                  ? "none"
                  : kind == KernelTemplate::WgmmaGemm ? kMmaWgmma
                  : operands == OperandType::F32      ? kMmaTf32
                                                      : kMmaHalf;
  return KernelConfigAttr::get(context, templateName(kind), block, warp, stages, mma, precision, splitK, vector);
}

KernelConfig KernelConfig::fromAttr(KernelConfigAttr attr) {
  KernelConfig config;
  config.kind = *parseTemplate(attr.getKind());
  config.blockM = attr.getBlock()[0], config.blockN = attr.getBlock()[1], config.blockK = attr.getBlock()[2];
  config.warpM = attr.getWarp()[0], config.warpN = attr.getWarp()[1];
  config.stages = attr.getStages();
  config.passes = attr.getPrecision() == "3xtf32" ? 3 : 1;
  if (config.usesTensorCores())
    config.operands = attr.getPrecision() == "f16"    ? OperandType::F16
                      : attr.getPrecision() == "bf16" ? OperandType::BF16
                                                      : OperandType::F32;
  config.splitK = attr.getSplitK();
  config.aVector = attr.getVector()[0], config.bVector = attr.getVector()[1];
  return config;
}

std::string describeConfigProblem(StringRef kind, ArrayRef<int64_t> block, ArrayRef<int64_t> warp, int64_t stages,
                                  StringRef mma, StringRef precision, int64_t splitK, ArrayRef<int64_t> vector) {
  auto parsed = parseTemplate(kind);
  if (!parsed)
    return "unknown template '" + kind.str() +
           "' (expected tensor_core_gemm, tensor_core_conv, simt_gemm, simt_gemv, simt_conv, direct_conv, "
           "tensor_core_attention, simt_attention or wgmma_gemm)";
  if (block.size() != 3 || warp.size() != 2 || vector.size() != 2)
    return "block has 3 sizes, warp 2 and vector 2";
  auto positive = [](int64_t value) { return value > 0; };
  if (!llvm::all_of(block, positive) || !llvm::all_of(warp, positive) || stages < 1)
    return "sizes and stages must be positive";
  if (splitK < 1 || splitK > kMaxSplitK)
    return "split_k is 1 (no split) to " + str(kMaxSplitK) + " k-slices";
  if (*parsed == KernelTemplate::TensorCoreAttention || *parsed == KernelTemplate::SimtAttention)
    return describeAttentionConfigProblem(*parsed, block, warp, stages, mma, precision, splitK, vector);
  if (*parsed == KernelTemplate::WgmmaGemm) {
    if (precision != "f16" && precision != "bf16")
      return "wgmma_gemm multiplies f16 or bf16 operands (precision \"f16\" or \"bf16\")";
    if (mma != kMmaWgmma)
      return std::string("wgmma_gemm uses mma \"") + kMmaWgmma + "\"";
    if ((block[0] != 64 && block[0] != 128) || (block[1] != 64 && block[1] != 128 && block[1] != 256) || block[2] != 64)
      return "wgmma_gemm's block is [64 or 128, 64, 128 or 256, 64]: 64 rows per consumer warpgroup, N the wgmma's, "
             "64 halves (the 128-byte swizzle) per k-tile";
    if (warp[0] != 64 || warp[1] != block[1])
      return "wgmma_gemm's warp tile is a consumer warpgroup's: [64, BN]";
    if (stages < 2 || stages > 8)
      return "the pipeline has 2 to 8 stages";
    if (splitK != 1)
      return "wgmma_gemm does not split the reduction";
    if (vector[0] != 8 || vector[1] != 8)
      return "wgmma_gemm's copies are TMA boxes of 8-half (16-byte) units: vector [8, 8]";
    const int64_t shared = stages * ((block[0] + block[1]) * block[2] * 2 + 16);
    if (shared > kHopperSharedBytes)
      return "the config needs " + str(shared) + " bytes of shared memory, above the " + str(kHopperSharedBytes) +
             " a Hopper block may have";
    return "";
  }
  KernelConfig config;
  config.kind = *parsed;
  config.blockM = block[0], config.blockN = block[1], config.blockK = block[2];
  config.warpM = warp[0], config.warpN = warp[1];
  config.stages = stages;
  config.aVector = vector[0], config.bVector = vector[1];
  if (config.kind == KernelTemplate::SimtGemv) {
    if (splitK != 1)
      return "split_k = " + str(splitK) + ": only the tensor-core templates split the reduction";
    if (mma != "none" || precision != "f32" || warp[0] != 1 || warp[1] != 1 || stages != 1 || vector[1] != 1 ||
        (vector[0] != 1 && vector[0] != 4))
      return "simt_gemv is SIMT: mma \"none\", precision \"f32\", warp [1, 1], 1 stage, vector [1 or 4, 1]";
    return (block[0] == 1 || block[0] == 2 || block[0] == 4 || block[0] == 8) && (block[1] == 8 || block[1] == 32) &&
                   block[2] == 1
               ? ""
               : "simt_gemv's block is [rows, columns, 1]: 1, 2, 4 or 8 rows, 8 or 32 columns";
  }
  if (splitK != 1 && !config.usesTensorCores())
    return "split_k = " + str(splitK) + ": only the tensor-core templates split the reduction";
  if (!config.usesTensorCores()) {
    if (mma != "none" || precision != "f32" || warp[0] != 1 || warp[1] != 1 || stages != 1 || vector[0] != 1 ||
        vector[1] != 1)
      return kind.str() + " is SIMT: mma \"none\", precision \"f32\", warp [1, 1], 1 stage, vector [1, 1]";
    if (config.kind == KernelTemplate::DirectConv)
      return block[0] >= 32 && block[0] <= 1024 && block[0] % 32 == 0 && block[1] == 1 && block[2] == 1
                 ? ""
                 : "direct_conv's block is [threads, 1, 1], threads a multiple of 32 up to 1024";
    return block[0] == block[1] && block[1] == block[2] && (block[0] == 8 || block[0] == 16)
               ? ""
               : kind.str() + "'s block is a square tile [T, T, T], T = 8 or 16";
  }
  const bool half = precision == "f16" || precision == "bf16";
  if (!half && precision != "3xtf32" && precision != "tf32")
    return "tensor-core precision is \"3xtf32\" or \"tf32\" (f32 operands), \"f16\" or \"bf16\"";
  if (mma != (half ? kMmaHalf : kMmaTf32))
    return "precision \"" + precision.str() + "\" uses mma \"" + (half ? kMmaHalf : kMmaTf32) + "\"";
  if (config.blockM % config.warpM != 0 || config.blockN % config.warpN != 0)
    return "the block tile must be made of whole warp tiles";
  if (config.warpM % 16 != 0 || config.warpN % 8 != 0)
    return "warp tiles are made of 16 x 8 mma tiles";
  if (config.blockK % (half ? 16 : 8) != 0)
    return half ? "BK is made of k16 steps (a multiple of 16)" : "BK is made of k8 steps (a multiple of 8)";
  if (stages < 2 || stages > 8)
    return "the pipeline has 2 to 8 stages";
  auto validVector = [&](int64_t value) { return value == 1 || value == 2 || value == 4 || (half && value == 8); };
  if (!validVector(vector[0]) || !validVector(vector[1]))
    return half ? "copies move 1, 2, 4 or 8 halves" : "copies move 1, 2 or 4 floats";
  if (config.threads() > 1024)
    return "the block would have " + str(config.threads()) + " threads (at most 1024)";
  return tileLoadProblem("the A", config.blockM, config.blockK, config.aVector, config.threads());
}

MatrixProductShape matrixProductShape(Operation *core) {
  auto lhs = shapeOf(core->getOperand(0)), rhs = shapeOf(core->getOperand(1)), out = shapeOf(core->getResult(0));
  MatrixProductShape shape;
  if (auto gemm = llvm::dyn_cast<GemmOp>(core)) {
    shape.transA = gemm.getTransA();
    shape.transB = gemm.getTransB();
  }
  const size_t rank = out.size();
  shape.k = shape.transA ? lhs[lhs.size() - 2] : lhs.back();
  shape.n = out.back();
  // The rows of every batch matrix fold into one matrix when each matrix
  // has a fixed number of rows, or a range's (a [batch, seq, E] activation
  // by a weight: batch * seq rows).
  const SmallVector<int64_t> symbols = symbolicShape(core->getResult(0).getType());
  const bool rowsPerMatrix = !ShapedType::isDynamic(out[rank - 2]) || symbols[rank - 2] != kDynamic;
  shape.foldedBatch = rank >= 3 && rhs.size() == 2 && lhs.size() == rank && rowsPerMatrix;
  // A range's dimension counts at its maximum where the module records it.
  auto largestOf = [&](size_t d) {
    std::optional<SymbolRange> range = symbolRange(core, symbols[d]);
    return range ? range->max : largest(out[d]);
  };
  if (shape.foldedBatch) {
    int64_t product = 1;
    for (size_t d = 0; d + 1 < rank; ++d)
      if (__builtin_mul_overflow(product, largestOf(d), &product) || product > (int64_t(1) << 62))
        product = int64_t(1) << 62;
    shape.largestRows = product;
  } else {
    shape.largestRows = largestOf(rank - 2);
  }
  return shape;
}

int64_t kTileCount(Operation *core, const KernelConfig &config) {
  if (auto attention = llvm::dyn_cast<AttentionOp>(core)) { // the key tiles a split divides (causal blocks stop
                                                            // earlier)
    const int64_t keys = shapeOf(attention.getKey()).drop_back().back();
    return ShapedType::isDynamic(keys) ? 0 : (keys + config.blockN - 1) / config.blockN;
  }
  int64_t k;
  if (auto conv = llvm::dyn_cast<ConvOp>(core)) {
    const ConvShape s = convShapeOf(conv);
    // The Hopper implicit GEMM's k-tiles are per filter tap (or 8 taps).
    if (config.kind == KernelTemplate::WgmmaGemm && !isPointwiseProduct(conv, s))
      return wgmmaConvTiling(conv, config.blockM).kTiles;
    k = s.taps();
  } else {
    k = matrixProductShape(core).k;
  }
  return ShapedType::isDynamic(k) ? 0 : (k + config.blockK - 1) / config.blockK;
}

LogicalResult checkKernelConfig(Operation *core, const KernelConfig &config) {
  std::string problem = kernelConfigProblem(core, config);
  if (!problem.empty())
    return core->emitError() << problem;
  return success();
}

} // namespace fusec::fuse
