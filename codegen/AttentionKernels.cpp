//===- AttentionKernels.cpp - fuse.attention as one flash-attention kernel ===//
//
// Binds the (batch, head) matrix of blockIdx.x and the query tile of
// blockIdx.y to a flash-attention main loop, with the mask read through
// numpy broadcasting as a lambda and the fused epilogue (elementwise ops on
// the attention output, then the stores) as another. Matrices go on grid.x
// because their count grows with the batch; query tiles on grid.y.
//
// Q, K and V are kernel inputs or strided views of them (the head split of
// a fused QKV projection, fuse-form-attention-views): each matrix starts at
// its view's offset for the (batch, head) coordinates, and its rows are one
// row stride apart. The result is stored the same way through the views
// that merge the heads back, when the kernel has them instead of an
// epilogue.
//
// With split_k > 1 the key sequence is split over grid.z (flash-decoding,
// for grids too small for the GPU); the runtime chooses the slices per
// launch as for split-K.
//
// Three main loops, as the kernel's #fuse.config says (ir/AttentionConfig.h
// decides which applies): FusecAttentionHalf (fusec_attention_half.h,
// mma.m16n8k16 for both products) where Q, K and V are f16 or bf16 of one
// type with head dimensions that are multiples of 16 and 16-byte aligned
// rows; FusecAttentionTf32 (fusec_attention_tf32.h, mma.m16n8k8 in 3xTF32,
// f32 accuracy, or tf32) for f32 heads that are multiples of 8; the SIMT
// FusecAttention (fusec_attention.h) otherwise.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/AttentionConfig.h"
#include "ir/ElementTypes.h"
#include "ir/StridedView.h"

using namespace mlir;

namespace fusec::codegen {

namespace {

std::string literal(int64_t value) { return std::to_string(value) + "LL"; }

/// A size or stride as a scalar argument where it fits one (else a
/// literal): the kernel's text then depends on neither the sequence
/// lengths nor the batch strides, and a model compiled for several lengths
/// (shape variants) shares it.
std::string sizeArgument(KernelBuilder &builder, int64_t value) {
  if (value < 0 || value > int64_t{UINT32_MAX})
    return literal(value);
  return "(long long)" + builder.scalarArgument(uint32_t(value));
}

/// A view's offset or stride, linear in the batch (a sequence-first tensor's
/// row stride), from scalar arguments and the kernel's `batch`.
std::string linearArgument(KernelBuilder &builder, BatchLinear value) {
  if (value.isFixed())
    return sizeArgument(builder, value.fixed);
  std::string expression = sizeArgument(builder, value.perBatch) + " * " + dimExpr(ShapedType::kDynamic);
  if (value.fixed != 0)
    expression += " + " + sizeArgument(builder, value.fixed);
  return "(" + expression + ")";
}

/// `offset + coords[0] * strides[0] + ...` over the first coords.size()
/// dimensions of `view`, offset and strides as scalar arguments.
std::string viewOffset(KernelBuilder &builder, const fuse::StridedView &view, const std::vector<std::string> &coords) {
  const BatchLinear zero{}, one{0, 1};
  std::string offset = view.offset != zero ? linearArgument(builder, view.offset) : "";
  for (size_t d = 0; d < coords.size(); ++d)
    if (view.strides[d] == one) // contiguous columns: the compiler sees it
      offset += (offset.empty() ? "" : " + ") + coords[d];
    else if (view.strides[d] != zero)
      offset += (offset.empty() ? "" : " + ") + coords[d] + " * " + linearArgument(builder, view.strides[d]);
  return offset.empty() ? "0LL" : offset;
}

/// The kernel input the attention reads `value` (its `what`) from, with the
/// view ops on the way (nearest first) in `chain`; an error when another op
/// computes it.
FailureOr<Value> kernelInputThroughViews(Operation *attention, Value value, const char *what,
                                         SmallVectorImpl<Operation *> &chain) {
  while (Operation *op = value.getDefiningOp()) {
    if (!fuse::isViewOp(op))
      return attention->emitError() << "the attention kernel reads its " << what
                                    << " from kernel inputs or through Slice, Reshape, Flatten, Transpose and Expand "
                                       "views, not through "
                                    << op->getName();
    chain.push_back(op);
    value = op->getOperand(0);
  }
  return value;
}

/// Declares `name` (the first row of this block's matrix of `operand`) and
/// `name`_ld (its row stride). A kernel input is read as it is stored: the
/// matrices one after another, `rows` (S or SK) each. A view is followed
/// back to the kernel input it reads.
LogicalResult emitOperandRows(KernelBuilder &builder, std::string &code, Operation *attention, Value operand,
                              const std::string &name, const std::string &rows,
                              const std::vector<std::string> &matrixCoords) {
  SmallVector<Operation *> chain; // nearest first
  FailureOr<Value> source = kernelInputThroughViews(attention, operand, "operands", chain);
  if (failed(source))
    return failure();
  Value input = *source;
  auto shape = shapeOf(operand);
  const std::string columns = std::to_string(shape.back());
  if (chain.empty()) {
    code +=
        "  const auto *" + name + " = " + builder.inputName(input) + " + matrix * " + rows + " * " + columns + ";\n";
    code += "  const long long " + name + "_ld = " + columns + ";\n";
    return success();
  }
  std::optional<fuse::StridedView> view = fuse::composeViewChain(chain, /*reads=*/true);
  if (!view || !view->hasContiguousRows())
    return attention->emitError() << "the attention kernel's operand is not a strided view with contiguous rows of "
                                  << "its kernel input";
  code += "  const auto *" + name + " = " + builder.inputName(input) + " + (" +
          viewOffset(builder, *view, matrixCoords) + ");\n";
  code +=
      "  const long long " + name + "_ld = " + linearArgument(builder, view->strides[view->strides.size() - 2]) + ";\n";
  return success();
}

/// The views after the attention op that store its result, in order, with
/// the kernel output they end in; empty when the result is not stored
/// through views.
struct OutputViews {
  SmallVector<Operation *> chain;
  int64_t output = -1;
  fuse::StridedView view;
};

FailureOr<OutputViews> findOutputViews(KernelBuilder &builder, fuse::AttentionOp attention,
                                       ArrayRef<Operation *> epilogue) {
  OutputViews result;
  Value value = attention.getOutput();
  while (value.hasOneUse() && fuse::isViewOp(*value.getUsers().begin())) {
    result.chain.push_back(*value.getUsers().begin());
    value = result.chain.back()->getResult(0);
  }
  if (result.chain.empty())
    return result;
  if (epilogue.size() != result.chain.size())
    return attention.emitError() << "an attention kernel that stores through views has no other epilogue";
  std::vector<Value> yields = builder.yields();
  auto stored = llvm::find(yields, value);
  if (stored == yields.end())
    return attention.emitError() << "the attention kernel's output views end in a value it does not store";
  result.output = stored - yields.begin();
  std::optional<fuse::StridedView> view = fuse::composeViewChain(result.chain, /*reads=*/false);
  if (!view)
    return attention.emitError() << "the attention kernel's output views are not a strided view of its output";
  result.view = *view;
  return result;
}

} // namespace

FailureOr<GeneratedKernel> emitAttentionKernel(KernelBuilder &builder) {
  auto attentions = llvm::to_vector(builder.body().getOps<fuse::AttentionOp>());
  if (attentions.size() != 1)
    return builder.getKernel().emitError() << "an attention kernel has one fuse.attention op";
  fuse::AttentionOp attention = attentions.front();
  std::vector<Operation *> prologue, epilogue;
  splitAroundCore(builder, attention, prologue, epilogue);
  // The mask: a kernel input, or a strided view of one (a padding mask
  // reshaped and expanded over heads and queries, fuse-form-attention-views).
  Value maskInput = attention.getMask();
  SmallVector<Operation *> maskChain; // nearest first
  if (maskInput) {
    FailureOr<Value> source = kernelInputThroughViews(attention, maskInput, "mask", maskChain);
    if (failed(source))
      return failure();
    maskInput = *source;
  }
  std::optional<fuse::StridedView> maskView;
  if (!maskChain.empty()) {
    maskView = fuse::composeViewChain(maskChain, /*reads=*/true);
    if (!maskView)
      return attention.emitError() << "the attention kernel's mask is not a strided view of its kernel input";
  }
  Value query = attention.getQuery(), key = attention.getKey(), value = attention.getValue();
  Value result = attention.getResult();
  auto qShape = shapeOf(query), outShape = shapeOf(result);
  const size_t rank = qShape.size();
  const int64_t headDim = qShape.back(), valueDim = outShape.back();
  if (headDim > fuse::kMaxAttentionHeadDim || valueDim > fuse::kMaxAttentionHeadDim)
    return attention.emitError() << "the attention kernel takes head dimensions up to " << fuse::kMaxAttentionHeadDim
                                 << ", got D = " << headDim << " and Dv = " << valueDim;
  auto outputViews = findOutputViews(builder, attention, epilogue);
  if (failed(outputViews))
    return failure();
  const std::string seq = dimExpr(qShape[rank - 2]), keySeq = dimExpr(shapeOf(key)[rank - 2]);

  FailureOr<fuse::KernelConfig> config = kernelConfigFor(builder, attention);
  if (failed(config))
    return failure();
  const bool tensorCores = config->kind == fuse::KernelTemplate::TensorCoreAttention;

  std::string code;
  KernelLaunch launch;
  // The template's shared memory is the config's (a static_assert ties the
  // two, so the limits checked on the config hold for the kernel).
  const int64_t bytes = fuse::attentionSharedBytes(*config, headDim, valueDim);
  const bool tf32 = tensorCores && !config->halfOperands();
  // The loop's description: the config's fields and the head dimensions,
  // by name.
  const std::string tile = builder.declareTile(TileDescription::attention(*config, headDim, valueDim));
  if (tensorCores) {
    // Above 48 KiB, dynamic.
    code += "  using Attention = " + std::string(tf32 ? "FusecAttentionTf32<" : "FusecAttentionHalf<") + tile + ">;\n";
    emitPipelineSharedMemory(code, bytes, launch, "Attention", "attentionShared");
  } else {
    code += "  using Attention = FusecAttention<" + tile + ">;\n";
    code +=
        "  static_assert(sizeof(Attention::Shared) == " + std::to_string(bytes) + ", \"the config's shared size\");\n";
    code += "  __shared__ Attention::Shared attentionShared;\n";
  }
  // The sequence lengths are scalar arguments (the batch, if it is one,
  // stays `batch`), and every size and stride derived from them reads them.
  const int64_t seqSize = qShape[rank - 2], keySeqSize = shapeOf(key)[rank - 2];
  const std::string seqValue = seqSize < 0 ? seq : sizeArgument(builder, seqSize);
  const std::string keySeqValue = keySeqSize < 0 ? keySeq : sizeArgument(builder, keySeqSize);
  code += "  const long long S = " + seqValue + ";\n";
  code += "  const long long SK = " + keySeqValue + ";\n";
  code += "  const long long matrix = (long long)blockIdx.x;\n";
  std::vector<std::string> coords = emitCoordinates(code, "  ", outShape.drop_back(2), "matrix", "b");
  for (auto [operand, name, rows] : {std::tuple{query, "Q", "S"}, {key, "K", "SK"}, {value, "V", "SK"}})
    if (failed(emitOperandRows(builder, code, attention, operand, name, rows, coords)))
      return failure();
  // The mask and the epilogue's inputs are read through the same sizes.
  std::vector<int64_t> scoreShape(outShape.begin(), outShape.end());
  scoreShape.back() = keySeqSize;
  std::vector<std::string> dims;
  for (int64_t dim : outShape)
    dims.push_back(dimExpr(dim));
  dims[rank - 2] = "S";
  std::vector<std::string> scoreDims = dims;
  scoreDims.back() = "SK";
  std::vector<std::string> at = coords;
  at.push_back("row");
  at.push_back("key");
  builder.setIterationDims(scoreShape, scoreDims);
  std::string maskValue = "0.0f";
  if (maskView) {
    // Broadcast as numpy does: the mask's dimensions end at the scores'
    // last one, and an extent-1 dimension is read at 0.
    auto maskShape = shapeOf(attention.getMask());
    fuse::StridedView broadcast = *maskView;
    for (size_t d = 0; d < maskShape.size(); ++d)
      if (maskShape[d] == 1)
        broadcast.strides[d] = BatchLinear{};
    std::vector<std::string> maskCoords(at.end() - maskShape.size(), at.end());
    maskValue = builder.load(maskInput, viewOffset(builder, broadcast, maskCoords));
  } else if (attention.getMask()) {
    maskValue = builder.valueAt(attention.getMask(), at);
  }
  code += "  auto mask = [&](long long row, long long key) -> float { return " + maskValue + "; };\n";
  at.back() = "col";
  builder.setIterationDims(outShape, dims);
  code += "  auto epilogue = [&](long long row, long long col, float acc) {\n";
  const std::string rounded = roundedTo(fuse::elementTypeOf(result), "acc");
  if (outputViews->chain.empty()) {
    builder.bind(result, rounded);
    if (failed(builder.emitElementwise(code, "    ", epilogue, at)))
      return failure();
    builder.emitStores(code, "    ", outShape, *broadcastOffset(outShape, at, outShape, dims), at);
  } else {
    code += "    out" + std::to_string(outputViews->output) + "[" + viewOffset(builder, outputViews->view, at) +
            "] = " + storeExpression(fuse::elementTypeOf(result), rounded) + ";\n";
  }
  code += "  };\n";
  // A split over the keys (split_k > 1): the runtime sets the slices per
  // launch; a block's partials are its rows' outputs, maxima and sums.
  const int64_t splitFloats = fuse::attentionSplitFloats(*config, valueDim);
  const std::string split = emitSplitK(code, *config, fuse::kTileCount(attention, *config), launch, splitFloats);
  if (!split.empty())
    code +=
        "  static_assert(Attention::kSplitFloats == " + std::to_string(splitFloats) + ", \"the launch's partials\");\n";
  code += "  Attention::run(Q, Q_ld, K, K_ld, V, V_ld, S, SK, " + floatLiteral(attention.getScale().convertToDouble()) +
          ", " + (attention.getCausal() ? "true" : "false") +
          ", (long long)blockIdx.y * Attention::kBlockM, attentionShared, mask, epilogue" + split + ");\n";

  launch.block = {config->threads(), 1, 1};
  setGrid(launch, 0, outShape.drop_back(2), 1);
  setGrid(launch, 1, qShape.drop_back(1).take_back(1), config->blockM);
  return builder.finish(code, launch,
                        {tf32          ? "fusec_attention_tf32.h"
                         : tensorCores ? "fusec_attention_half.h"
                                       : "fusec_attention.h"});
}

} // namespace fusec::codegen
