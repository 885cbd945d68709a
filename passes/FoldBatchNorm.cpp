//===- FoldBatchNorm.cpp - Fold BatchNormalization into Conv --------------===//
#include "passes/FusionAttributes.h"
#include "passes/Passes.h"

#include "ir/ConstantData.h"
#include "ir/FuseOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace fusec {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  FoldBatchNormIntoConv(MLIRContext *context, llvm::Statistic &numFolded)
      : OpRewritePattern(context), numFolded(numFolded) {}

  LogicalResult matchAndRewrite(BatchNormOp norm, PatternRewriter &rewriter) const override {
    auto conv = norm.getInput().getDefiningOp<ConvOp>();
    if (!conv)
      return rewriter.notifyMatchFailure(norm, "input is not a conv");
    if (conv.getChannelsLast())
      return rewriter.notifyMatchFailure(norm, "the conv is channels-last; batch norm normalises axis 1");
    // Another user (or a graph output) still needs the un-normalised values.
    if (!conv->hasOneUse())
      return rewriter.notifyMatchFailure(norm, "conv result has other users");
    auto weightConstant = conv.getWeight().getDefiningOp<ConstantOp>();
    std::optional<std::vector<float>> weightCopy;
    std::optional<ArrayRef<float>> weight;
    if (weightConstant) {
      weight = viewConstantData(weightConstant.getValue());
      if (!weight) {
        weightCopy = getConstantData(weightConstant.getValue());
        if (weightCopy)
          weight = ArrayRef<float>(*weightCopy);
      }
    }
    auto scale = getConstantData(norm.getScale()), shift = getConstantData(norm.getBias());
    auto mean = getConstantData(norm.getMean()), variance = getConstantData(norm.getVariance());
    std::optional<std::vector<float>> bias;
    if (conv.getBias()) {
      bias = getConstantData(conv.getBias());
      if (!bias)
        return rewriter.notifyMatchFailure(norm, "conv bias is not constant");
    }
    if (!weight || !scale || !shift || !mean || !variance)
      return rewriter.notifyMatchFailure(norm, "weights or statistics are not constant");

    auto weightType = llvm::cast<RankedTensorType>(conv.getWeight().getType());
    int64_t filters = weightType.getDimSize(0);
    int64_t perFilter = weightType.getNumElements() / filters;
    double epsilon = norm.getEpsilon().convertToDouble();
    std::vector<double> factors(filters);
    std::vector<float> foldedBias(filters);
    for (int64_t o = 0; o < filters; ++o) {
      factors[o] = double((*scale)[o]) / std::sqrt(double((*variance)[o]) + epsilon);
      double b = bias ? double((*bias)[o]) : 0.0;
      foldedBias[o] = float((b - double((*mean)[o])) * factors[o] + double((*shift)[o]));
    }

    Location loc = rewriter.getFusedLoc({conv.getLoc(), norm.getLoc()});
    Value newWeight = createConstant(rewriter, conv.getWeight().getLoc(), constantNameAt(loc, "folded_weight"),
                                     weightType.getShape(), [&](MutableArrayRef<float> folded) {
                                       for (int64_t o = 0; o < filters; ++o)
                                         for (int64_t i = 0; i < perFilter; ++i)
                                           folded[o * perFilter + i] =
                                               float(double((*weight)[o * perFilter + i]) * factors[o]);
                                     });
    Value newBias = createConstant(rewriter, loc, constantNameAt(loc, "folded_bias"), {filters}, foldedBias);
    auto folded = rewriter.create<ConvOp>(loc, norm.getType(), conv.getInput(), newWeight, newBias,
                                          conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
                                          conv.getGroupAttr(), conv.getChannelsLastAttr());
    SmallVector<Attribute> foldedOps;
    if (auto previous = conv->getAttrOfType<ArrayAttr>(fusec::kFoldedAttr))
      foldedOps.append(previous.begin(), previous.end());
    foldedOps.push_back(rewriter.getStringAttr("bn"));
    folded->setAttr(fusec::kFoldedAttr, rewriter.getArrayAttr(foldedOps));
    rewriter.replaceOp(norm, folded.getResult());
    rewriter.eraseOp(conv);
    ++numFolded;
    return success();
  }

  llvm::Statistic &numFolded;
};

struct FoldBatchNormPass : fusec::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoConv>(&getContext(), numFolded);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
