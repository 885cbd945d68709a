//===- ConvertToChannelsLast.cpp - Keep images NHWC between convs ---------===//
//
// Implicit-GEMM convolutions read their input along the reduction: with
// NHWC a tap's channels are adjacent, so every conv (not only pointwise
// ones) copies 16-byte vectors, and the result tile is stored with the
// channel innermost, as the next conv reads it. The pass works in the
// usual way of layout propagation:
//
//   1. each conv and pool becomes transpose -> channels_last op ->
//      transpose back (the conv's weight transpose folds into the
//      constant);
//   2. the "back" transposes sink towards the consumers, through ops that
//      do not care about the layout (elementwise ops, concat, pad, global
//      average pooling) when every other operand is the same transpose, a
//      value the graph already transposes to NHWC, or a constant, so no new
//      transpose kernel appears;
//   3. a transpose of a transpose composes (TransposeOp::fold), so the
//      "back" of one conv cancels against the "to" of the next; one that
//      moves only unit axes is a reshape.
//
// Each rewrite keeps the graph computing the same values, so the pass can
// stop anywhere: what it cannot move stays as a transpose kernel.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/ConstantData.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace fusec {
#define GEN_PASS_DEF_CONVERTTOCHANNELSLAST
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

Value transpose(PatternRewriter &rewriter, Location loc, Value value, ArrayRef<int64_t> perm) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  return rewriter.create<TransposeOp>(loc, permutedTensorType(type, perm), value, rewriter.getDenseI64ArrayAttr(perm));
}

bool isRank4(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getRank() == 4; }

/// The NHWC value `value` is the NCHW view of, when it is one: the result of
/// a transpose NHWC -> NCHW.
Value channelsLastSource(Value value) {
  auto transposeOp = value.getDefiningOp<TransposeOp>();
  if (!transposeOp || transposeOp.getPerm() != ArrayRef<int64_t>(kNhwcToNchw))
    return {};
  return transposeOp.getInput();
}

/// Whether `value` is an f32 constant that broadcasts against a rank-4
/// image (so channelsLastConstant can permute it).
bool isPermutableConstant(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() <= 4 && type.getElementType().isF32() && type.hasStaticShape() &&
         value.getDefiningOp<ConstantOp>() && getConstantData(value).has_value();
}

/// An f32 constant that broadcasts against an NCHW image, as the
/// constant that broadcasts the same way against the NHWC image: padded to
/// rank 4 and permuted (a per-channel [C, 1, 1] becomes [1, 1, 1, C]).
Value channelsLastConstant(PatternRewriter &rewriter, Location loc, Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  std::vector<float> data = *getConstantData(value);
  SmallVector<int64_t> nchw(4 - type.getRank(), 1);
  nchw.append(type.getShape().begin(), type.getShape().end());
  SmallVector<int64_t> nhwc = {nchw[0], nchw[2], nchw[3], nchw[1]};
  const int64_t c = nchw[1], h = nchw[2], w = nchw[3];
  std::vector<float> permutedData(data.size());
  for (int64_t n = 0; n < nchw[0]; ++n)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t channel = 0; channel < c; ++channel)
          permutedData[((n * h + y) * w + x) * c + channel] = data[((n * c + channel) * h + y) * w + x];
  return createConstant(rewriter, loc, constantNameAt(loc, "channels_last"), nhwc, permutedData);
}

/// Step 1: conv, max_pool and average_pool on NCHW images become their
/// channels_last forms between two transposes.
template <typename ImageOp> struct MakeChannelsLast : OpRewritePattern<ImageOp> {
  MakeChannelsLast(MLIRContext *context, llvm::Statistic &numConverted, bool inputConvsNchw, int64_t padChannels)
      : OpRewritePattern<ImageOp>(context), numConverted(numConverted), inputConvsNchw(inputConvsNchw),
        padChannels(padChannels) {}

  /// The channels `conv`'s NHWC input is padded to, or 0: fewer than
  /// padChannels input channels, group 1, f32 constant weights.
  int64_t paddedChannels(ImageOp op) const {
    if constexpr (std::is_same_v<ImageOp, ConvOp>) {
      const int64_t channels = llvm::cast<RankedTensorType>(op.getInput().getType()).getShape()[1];
      auto weight = llvm::cast<RankedTensorType>(op.getWeight().getType());
      if (padChannels > 0 && op.getGroup() == 1 && !ShapedType::isDynamic(channels) && channels < padChannels &&
          weight.getElementType().isF32() && weight.hasStaticShape() && getConstantData(op.getWeight()))
        return padChannels;
    }
    return 0;
  }

  LogicalResult matchAndRewrite(ImageOp op, PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return rewriter.notifyMatchFailure(op, "already channels-last");
    if (!isRank4(op.getInput()))
      return rewriter.notifyMatchFailure(op, "not a rank-4 image");
    // A conv that alone reads the model's (NCHW) input stays NCHW: the
    // transpose of its result that the next layer makes joins its kernel
    // (epilogue-transpose), where a transpose of the input would be a kernel
    // of its own. An input other ops read too (a residual) is transposed
    // once for all of them.
    // A conv whose few channels are padded (the Hopper conv's 8-channel
    // rows) is transposed and padded by a kernel of its own instead.
    const int64_t padded = paddedChannels(op);
    if (std::is_same_v<ImageOp, ConvOp> && inputConvsNchw && !padded && llvm::isa<BlockArgument>(op.getInput()) &&
        op.getInput().hasOneUse())
      return rewriter.notifyMatchFailure(op, "alone reads the model's input");
    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getInput(), kNchwToNhwc);
    auto converted = llvm::cast<ImageOp>(rewriter.clone(*op));
    // OIHW -> OHWI is the same permutation; a constant weight folds.
    if constexpr (std::is_same_v<ImageOp, ConvOp>) {
      rewriter.setInsertionPoint(converted);
      if (padded) {
        // Zeros past the channels: in the input (a Pad of the last axis)
        // and in the weights (an OHWI constant), so the sums are unchanged.
        auto nhwc = llvm::cast<RankedTensorType>(input.getType());
        SmallVector<int64_t> paddedShape(nhwc.getShape());
        const int64_t channels = paddedShape[3];
        paddedShape[3] = padded;
        input = rewriter.create<PadOp>(loc, RankedTensorType::get(paddedShape, nhwc.getElementType()), input,
                                       rewriter.getDenseI64ArrayAttr({0, 0, 0, 0, 0, 0, 0, padded - channels}),
                                       rewriter.getStringAttr("constant"), rewriter.getF32FloatAttr(0.0f));
        auto oihw = llvm::cast<RankedTensorType>(op.getWeight().getType()).getShape();
        const std::vector<float> data = *getConstantData(op.getWeight());
        const int64_t filters = oihw[0], kh = oihw[2], kw = oihw[3];
        std::vector<float> ohwi(size_t(filters * kh * kw * padded), 0.0f);
        for (int64_t o = 0; o < filters; ++o)
          for (int64_t c = 0; c < channels; ++c)
            for (int64_t y = 0; y < kh; ++y)
              for (int64_t x = 0; x < kw; ++x)
                ohwi[size_t(((o * kh + y) * kw + x) * padded + c)] =
                    data[size_t(((o * channels + c) * kh + y) * kw + x)];
        converted->setOperand(
            1, createConstant(rewriter, loc, constantNameAt(loc, "channels_padded"), {filters, kh, kw, padded}, ohwi));
      } else {
        converted->setOperand(1, transpose(rewriter, loc, op.getWeight(), kNchwToNhwc));
      }
      rewriter.setInsertionPoint(op);
    }
    converted->setOperand(0, input);
    converted.setChannelsLast(true);
    auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    converted->getResult(0).setType(permutedTensorType(resultType, kNchwToNhwc));
    rewriter.replaceOp(op, transpose(rewriter, loc, converted->getResult(0), kNhwcToNchw));
    ++numConverted;
    return success();
  }

  llvm::Statistic &numConverted;
  bool inputConvsNchw;
  int64_t padChannels;
};

/// Whether the graph already has `value` in NHWC: a transpose NCHW -> NHWC
/// of it (a residual block's input also feeds the block's first conv). A
/// second such transpose is free, CSE merges the two.
bool hasChannelsLastTwin(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    auto transposeOp = llvm::dyn_cast<TransposeOp>(user);
    return transposeOp && transposeOp.getPerm() == ArrayRef<int64_t>(kNchwToNhwc);
  });
}

/// The operands of `op` in NHWC: each a sunk transpose's source, the NHWC
/// twin of a value the graph already transposes, or a permuted constant;
/// empty when some operand is none of these, or none is a sunk transpose
/// (nothing would move). So a sink never adds a transpose kernel. Checks
/// every operand before it creates anything: a pattern that fails has
/// changed nothing.
SmallVector<Value> channelsLastOperands(PatternRewriter &rewriter, Operation *op, bool allowConstants) {
  bool sinksTranspose = false;
  for (Value operand : op->getOperands()) {
    if (channelsLastSource(operand))
      sinksTranspose = true;
    else if (!(isRank4(operand) && hasChannelsLastTwin(operand)) && !(allowConstants && isPermutableConstant(operand)))
      return {};
  }
  if (!sinksTranspose)
    return {};
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    if (Value source = channelsLastSource(operand))
      operands.push_back(source);
    else if (isRank4(operand) && hasChannelsLastTwin(operand))
      operands.push_back(transpose(rewriter, op->getLoc(), operand, kNchwToNhwc));
    else
      operands.push_back(channelsLastConstant(rewriter, op->getLoc(), operand));
  }
  return operands;
}

/// Rewrites `op` (whose result is an NCHW image) to compute the NHWC image
/// from `operands`, with `update` adjusting its attributes, and replaces
/// its uses by the transpose back.
void sinkThrough(PatternRewriter &rewriter, Operation *op, ArrayRef<Value> operands,
                 llvm::function_ref<void(Operation *)> update = {}) {
  Operation *sunk = rewriter.clone(*op);
  sunk->setOperands(operands);
  for (OpResult result : sunk->getResults())
    result.setType(permutedTensorType(llvm::cast<RankedTensorType>(result.getType()), kNchwToNhwc));
  if (update)
    update(sunk);
  SmallVector<Value> back;
  for (Value result : sunk->getResults())
    back.push_back(transpose(rewriter, op->getLoc(), result, kNhwcToNchw));
  rewriter.replaceOp(op, back);
}

bool hasRank4Results(Operation *op) {
  return op->getNumResults() > 0 && llvm::all_of(op->getResults(), [](Value result) { return isRank4(result); });
}

/// Step 2: elementwise ops do not care about the layout. Batch norm (its
/// channel axis is 1) and trilu (its last two axes) do.
struct SinkThroughElementwise : RewritePattern {
  explicit SinkThroughElementwise(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), 1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (classifyOp(op) != OpClass::Elementwise || llvm::isa<BatchNormOp, TriluOp>(op) || !hasRank4Results(op))
      return failure();
    SmallVector<Value> operands = channelsLastOperands(rewriter, op, /*allowConstants=*/true);
    if (operands.empty())
      return rewriter.notifyMatchFailure(op, "an operand is neither the NHWC transpose nor a constant");
    sinkThrough(rewriter, op, operands);
    return success();
  }
};

/// Batch norm normalises along NCHW's axis 1; with constant statistics it
/// is the per-channel scale and shift x * a + b (a = scale / sqrt(variance
/// + epsilon), b = bias - mean * a, computed in double precision), which on
/// the NHWC image are constants of shape [C]: its last axis. Pre-activation
/// networks (DenseNet) put one before every conv; left NCHW, each would
/// cost a transpose kernel on either side.
struct SinkThroughBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp norm, PatternRewriter &rewriter) const override {
    Value source = channelsLastSource(norm.getInput());
    auto type = llvm::cast<RankedTensorType>(norm.getType());
    if (!source || !isRank4(norm.getInput()) || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(norm, "not an f32 image the pass made NCHW");
    auto scale = getConstantData(norm.getScale()), shift = getConstantData(norm.getBias());
    auto mean = getConstantData(norm.getMean()), variance = getConstantData(norm.getVariance());
    if (!scale || !shift || !mean || !variance)
      return rewriter.notifyMatchFailure(norm, "statistics are not constant");
    const int64_t channels = type.getDimSize(1);
    const double epsilon = norm.getEpsilon().convertToDouble();
    std::vector<float> factor(channels), offset(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const double a = double((*scale)[c]) / std::sqrt(double((*variance)[c]) + epsilon);
      factor[c] = float(a);
      offset[c] = float(double((*shift)[c]) - double((*mean)[c]) * a);
    }
    Location loc = norm.getLoc();
    Value a = createConstant(rewriter, loc, constantNameAt(loc, "nhwc_scale"), {channels}, factor);
    Value b = createConstant(rewriter, loc, constantNameAt(loc, "nhwc_shift"), {channels}, offset);
    const RankedTensorType nhwc = permutedTensorType(type, kNchwToNhwc);
    Value scaled = rewriter.create<MulOp>(loc, TypeRange{nhwc}, ValueRange{source, a});
    Value shifted = rewriter.create<AddOp>(loc, TypeRange{nhwc}, ValueRange{scaled, b});
    rewriter.replaceOp(norm, transpose(rewriter, loc, shifted, kNhwcToNchw));
    return success();
  }
};

/// Concat along an NCHW axis is concat along its NHWC position.
struct SinkThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp concat, PatternRewriter &rewriter) const override {
    if (!hasRank4Results(concat))
      return failure();
    SmallVector<Value> operands = channelsLastOperands(rewriter, concat, /*allowConstants=*/false);
    if (operands.empty())
      return rewriter.notifyMatchFailure(concat, "an input is not the NHWC transpose");
    const auto axis = static_cast<int64_t>(concat.getAxis());
    const int64_t nhwcAxis = llvm::find(kNchwToNhwc, axis) - std::begin(kNchwToNhwc);
    sinkThrough(rewriter, concat, operands, [&](Operation *sunk) { llvm::cast<ConcatOp>(sunk).setAxis(nhwcAxis); });
    return success();
  }
};

/// Pad amounts are per axis: permute them with the axes.
struct SinkThroughPad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PadOp pad, PatternRewriter &rewriter) const override {
    Value source = channelsLastSource(pad.getInput());
    if (!source || !isRank4(pad.getInput()))
      return failure();
    ArrayRef<int64_t> amounts = pad.getPads();
    SmallVector<int64_t> nhwc;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t axis : kNchwToNhwc)
        nhwc.push_back(amounts[half * 4 + axis]);
    sinkThrough(rewriter, pad, {source}, [&](Operation *sunk) { llvm::cast<PadOp>(sunk).setPads(nhwc); });
    return success();
  }
};

/// A global average pool of the NCHW view is a mean over the NHWC spatial
/// axes.
struct SinkThroughGlobalAveragePool : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GlobalAveragePoolOp pool, PatternRewriter &rewriter) const override {
    Value source = channelsLastSource(pool.getInput());
    if (!source || !isRank4(pool.getInput()))
      return failure();
    auto resultType = permutedTensorType(llvm::cast<RankedTensorType>(pool.getType()), kNchwToNhwc);
    auto mean = rewriter.create<ReduceMeanOp>(pool.getLoc(), resultType, source, rewriter.getDenseI64ArrayAttr({1, 2}),
                                              rewriter.getBoolAttr(true));
    rewriter.replaceOp(pool, transpose(rewriter, pool.getLoc(), mean, kNhwcToNchw));
    return success();
  }
};

/// A reduction over NCHW axes is one over their NHWC positions: with
/// `keepdims` its result is an NHWC image (the transpose moves on), without
/// it the axes left keep their order when the channel is among them only
/// with the batch (a `ReduceMean` over H and W: the exporters' spatial
/// pooling), and then the result is the same tensor.
template <typename ReduceOp> struct SinkThroughReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp reduce, PatternRewriter &rewriter) const override {
    Value source = channelsLastSource(reduce.getInput());
    if (!source || !isRank4(reduce.getInput()))
      return failure();
    SmallVector<int64_t> axes;
    for (int64_t axis : reduce.getAxes())
      axes.push_back(llvm::find(kNchwToNhwc, axis) - std::begin(kNchwToNhwc));
    llvm::sort(axes);
    auto type = llvm::cast<RankedTensorType>(reduce.getType());
    if (reduce.getKeepdims()) {
      Value sunk = rewriter.create<ReduceOp>(reduce.getLoc(), permutedTensorType(type, kNchwToNhwc), source,
                                             rewriter.getDenseI64ArrayAttr(axes), rewriter.getBoolAttr(true));
      rewriter.replaceOp(reduce, transpose(rewriter, reduce.getLoc(), sunk, kNhwcToNchw));
      return success();
    }
    // The axes kept, in NCHW order and in the NHWC tensor's order.
    SmallVector<int64_t> keptNchw, keptNhwc;
    for (int64_t axis = 0; axis < 4; ++axis) {
      if (!llvm::is_contained(reduce.getAxes(), axis))
        keptNchw.push_back(axis);
      if (!llvm::is_contained(axes, axis))
        keptNhwc.push_back(kNchwToNhwc[axis]);
    }
    if (keptNchw != keptNhwc)
      return rewriter.notifyMatchFailure(reduce, "the axes kept change order in NHWC");
    rewriter.replaceOpWithNewOp<ReduceOp>(reduce, type, source, rewriter.getDenseI64ArrayAttr(axes),
                                          rewriter.getBoolAttr(false));
    return success();
  }
};

/// `type` as a reshape's `shape`: static sizes, and each symbol (the batch,
/// a range's dimension) as 0 (copy) where it keeps its axis, else -1
/// (inferred; several -1 take the moved symbols in order).
SmallVector<int64_t> reshapeTarget(RankedTensorType from, RankedTensorType to) {
  const SmallVector<int64_t> fromDims = symbolicShape(from);
  SmallVector<int64_t> shape;
  for (auto [axis, size] : llvm::enumerate(symbolicShape(to))) {
    if (!isSymbolic(size))
      shape.push_back(size);
    else
      shape.push_back(axis < fromDims.size() && fromDims[axis] == size ? 0 : -1);
  }
  return shape;
}

/// Step 3: a transpose that moves only unit axes keeps the elements in
/// order: a reshape, which codegen reads through instead of copying.
struct UnitTransposeToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto inputType = llvm::cast<RankedTensorType>(op.getInput().getType());
    int64_t previous = -1;
    for (int64_t axis : op.getPerm()) {
      if (inputType.getDimSize(axis) == 1)
        continue;
      if (axis < previous)
        return rewriter.notifyMatchFailure(op, "moves an axis of more than one element");
      previous = axis;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput(), reshapeTarget(inputType, op.getType()));
    return success();
  }
};

/// Flatten and reshape only read their input's elements in order, so one
/// of a reshape reads the reshape's input.
struct CollapseReshapeChain : RewritePattern {
  explicit CollapseReshapeChain(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), 1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!llvm::isa<ReshapeOp, FlattenOp>(op))
      return failure();
    auto inner = op->getOperand(0).getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    auto source = llvm::cast<RankedTensorType>(inner.getInput().getType());
    auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType, inner.getInput(), reshapeTarget(source, resultType));
    return success();
  }
};

struct ConvertToChannelsLastPass : fusec::impl::ConvertToChannelsLastBase<ConvertToChannelsLastPass> {
  using ConvertToChannelsLastBase::ConvertToChannelsLastBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<MakeChannelsLast<ConvOp>, MakeChannelsLast<MaxPoolOp>, MakeChannelsLast<AveragePoolOp>>(
        context, numConverted, inputConvsNchw, padChannels);
    patterns.add<SinkThroughElementwise, SinkThroughBatchNorm, SinkThroughConcat, SinkThroughPad,
                 SinkThroughGlobalAveragePool, SinkThroughReduce<ReduceMeanOp>, SinkThroughReduce<ReduceSumOp>,
                 SinkThroughReduce<ReduceMaxOp>, SinkThroughReduce<ReduceMinOp>, UnitTransposeToReshape,
                 CollapseReshapeChain>(context);
    // Every rewrite keeps the values: a graph the driver leaves before it
    // converges is still correct, only with more transposes.
    GreedyRewriteConfig config;
    config.maxIterations = GreedyRewriteConfig::kNoLimit;
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
