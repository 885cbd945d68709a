//===- FormLayerNorm.cpp - LayerNorm from its decomposition ---------------===//
//
// ONNX has LayerNormalization from opset 17 only; exporters writing an
// older opset spell it out:
//
//   mean = ReduceMean(x, trailing axes, keepdims)
//   d    = x - mean
//   var  = ReduceMean(Pow(d, 2) or d * d, the same axes, keepdims)
//   y    = d / Sqrt(var + eps)            [* scale] [+ bias]
//
// As ops of their own those are three kernels (two reductions and the
// normalisation), each reading the rows again; fuse.layer_norm is one row
// kernel, which fusion then treats as any other norm. The rewrite requires
// every intermediate to have no other user, eps a one-element constant, and
// scale and bias constants of the normalised axes' shape; without them the
// scale is ones and the bias absent. The result is the same arithmetic
// (two passes over the row) with the division by the deviation as a
// multiplication by its reciprocal.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/ConstantData.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fusec {
#define GEN_PASS_DEF_FORMLAYERNORM
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

RankedTensorType tensorType(Value value) { return llvm::cast<RankedTensorType>(value.getType()); }

/// The one float of a one-element constant.
std::optional<float> scalarConstant(Value value) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  std::optional<std::vector<float>> data = getConstantData(attr);
  if (!data)
    return std::nullopt;
  return data->front();
}

/// The first axis of a reduction over the trailing axes of its input with
/// the dimensions kept, or std::nullopt.
template <typename Reduce> std::optional<int64_t> trailingAxis(Reduce reduce) {
  if (!reduce || !reduce.getKeepdims())
    return std::nullopt;
  ArrayRef<int64_t> axes = reduce.getAxes();
  const int64_t rank = tensorType(reduce.getInput()).getRank();
  if (axes.empty() || axes.back() != rank - 1)
    return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - int64_t(axes.size()) + int64_t(i))
      return std::nullopt;
  return axes.front();
}

/// Whether `value` squares `d`: Pow(d, 2) or d * d.
bool isSquareOf(Value value, Value d) {
  if (auto pow = value.getDefiningOp<PowOp>())
    return pow.getLhs() == d && scalarConstant(pow.getRhs()) == 2.0f;
  if (auto mul = value.getDefiningOp<MulOp>())
    return mul.getLhs() == d && mul.getRhs() == d;
  return false;
}

/// The constant operand of a binary op whose other operand is `value`, when
/// its shape is `shape` (the normalised axes).
Value constantBeside(Operation *op, Value value, ArrayRef<int64_t> shape) {
  if (op->getNumOperands() != 2)
    return Value();
  Value other = op->getOperand(0) == value ? op->getOperand(1) : op->getOperand(0);
  if (other == value || !matchPattern(other, m_Constant()) || tensorType(other).getShape() != shape)
    return Value();
  return other;
}

struct FormLayerNormFromParts : OpRewritePattern<DivOp> {
  FormLayerNormFromParts(MLIRContext *context, llvm::Statistic &numFormed)
      : OpRewritePattern(context), numFormed(numFormed) {}

  LogicalResult matchAndRewrite(DivOp div, PatternRewriter &rewriter) const override {
    // d = x - mean(x)
    auto sub = div.getLhs().getDefiningOp<SubOp>();
    if (!sub)
      return failure();
    Value x = sub.getLhs(), d = sub.getResult();
    auto mean = sub.getRhs().getDefiningOp<ReduceMeanOp>();
    std::optional<int64_t> axis = trailingAxis(mean);
    if (!axis || mean.getInput() != x || !mean->hasOneUse() || tensorType(x) != tensorType(d))
      return rewriter.notifyMatchFailure(div, "not (x - mean(x)) over trailing axes");
    // sqrt(mean(d^2) + eps)
    auto sqrt = div.getRhs().getDefiningOp<SqrtOp>();
    auto add = sqrt ? sqrt.getInput().getDefiningOp<AddOp>() : AddOp();
    if (!add || !sqrt->hasOneUse() || !add->hasOneUse())
      return rewriter.notifyMatchFailure(div, "not divided by sqrt(var + eps)");
    auto variance = add.getLhs().getDefiningOp<ReduceMeanOp>();
    std::optional<float> epsilon = scalarConstant(add.getRhs());
    if (!variance) {
      variance = add.getRhs().getDefiningOp<ReduceMeanOp>();
      epsilon = scalarConstant(add.getLhs());
    }
    if (!variance || !epsilon || trailingAxis(variance) != axis || !variance->hasOneUse() ||
        !isSquareOf(variance.getInput(), d) || !variance.getInput().hasOneUse())
      return rewriter.notifyMatchFailure(div, "the variance is not mean((x - mean)^2) over the same axes");
    // d is read by the square (once or twice) and the division only.
    for (Operation *user : d.getUsers())
      if (user != div && user != variance.getInput().getDefiningOp())
        return rewriter.notifyMatchFailure(div, "x - mean(x) has another user");
    // [* scale] [+ bias], constants of the normalised axes' shape.
    const ArrayRef<int64_t> normalised = tensorType(x).getShape().drop_front(*axis);
    if (llvm::any_of(normalised, [](int64_t dim) { return dim <= 0; }))
      return rewriter.notifyMatchFailure(div, "normalises over a run-time dimension");
    Operation *last = div;
    Value scale, bias;
    if (div->hasOneUse() && llvm::isa<MulOp>(*div->getUsers().begin())) {
      scale = constantBeside(*div->getUsers().begin(), div.getResult(), normalised);
      if (scale)
        last = *div->getUsers().begin();
    }
    if (last->hasOneUse() && llvm::isa<AddOp>(*last->getUsers().begin())) {
      bias = constantBeside(*last->getUsers().begin(), last->getResult(0), normalised);
      if (bias)
        last = *last->getUsers().begin();
    }
    if (symbolicShape(last->getResult(0).getType()) != symbolicShape(x.getType()))
      return rewriter.notifyMatchFailure(div, "the result's shape is not the input's");
    rewriter.setInsertionPoint(last);
    if (!scale) {
      int64_t count = 1;
      for (int64_t dim : normalised)
        count *= dim;
      const std::vector<float> ones(size_t(count), 1.0f);
      scale =
          createConstant(rewriter, div.getLoc(), constantNameAt(div.getLoc(), "_layer_norm_scale"), normalised, ones);
    }
    auto norm = rewriter.create<LayerNormOp>(last->getLoc(), last->getResult(0).getType(), x, scale, bias,
                                             rewriter.getI64IntegerAttr(*axis), rewriter.getF32FloatAttr(*epsilon));
    rewriter.replaceOp(last, norm.getResult());
    ++numFormed;
    return success();
  }

  llvm::Statistic &numFormed;
};

struct FormLayerNormPass : fusec::impl::FormLayerNormBase<FormLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FormLayerNormFromParts>(&getContext(), numFormed);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
