//===- FoldPadIntoConv.cpp - Fold zero Pad into Conv padding --------------===//
#include "passes/FusionAttributes.h"
#include "passes/Passes.h"

#include "ir/FuseOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fusec {
#define GEN_PASS_DEF_FOLDPADINTOCONV
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

struct FoldZeroPadIntoConv : OpRewritePattern<ConvOp> {
  FoldZeroPadIntoConv(MLIRContext *context, llvm::Statistic &numFolded)
      : OpRewritePattern(context), numFolded(numFolded) {}

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    auto pad = conv.getInput().getDefiningOp<PadOp>();
    if (!pad)
      return rewriter.notifyMatchFailure(conv, "input is not a pad");
    // Runs before fuse-convert-to-channels-last; the axes below are NCHW's.
    if (conv.getChannelsLast())
      return rewriter.notifyMatchFailure(conv, "channels-last conv");
    if (pad.getMode() != "constant" || !pad.getValue().isZero())
      return rewriter.notifyMatchFailure(conv, "only zero constant pads equal conv padding");
    if (!pad->hasOneUse())
      return rewriter.notifyMatchFailure(conv, "the padded tensor has other users");
    // pads: [n, c, h, w] begins then [n, c, h, w] ends.
    ArrayRef<int64_t> amounts = pad.getPads();
    if (amounts.size() != 8 || amounts[0] || amounts[1] || amounts[4] || amounts[5])
      return rewriter.notifyMatchFailure(conv, "pads touch the batch or channel axis");
    if (llvm::any_of(amounts, [](int64_t a) { return a < 0; }))
      return rewriter.notifyMatchFailure(conv, "negative pads crop");
    ArrayRef<int64_t> convPads = conv.getPads(); // top, left, bottom, right
    SmallVector<int64_t> pads = {convPads[0] + amounts[2], convPads[1] + amounts[3], convPads[2] + amounts[6],
                                 convPads[3] + amounts[7]};
    Location loc = rewriter.getFusedLoc({conv.getLoc(), pad.getLoc()});
    auto folded = rewriter.create<ConvOp>(loc, conv.getType(), pad.getInput(), conv.getWeight(), conv.getBias(),
                                          conv.getStridesAttr(), rewriter.getDenseI64ArrayAttr(pads),
                                          conv.getDilationsAttr(), conv.getGroupAttr(), conv.getChannelsLastAttr());
    SmallVector<Attribute> foldedOps = {rewriter.getStringAttr("pad")};
    if (auto previous = conv->getAttrOfType<ArrayAttr>(fusec::kFoldedAttr))
      foldedOps.append(previous.begin(), previous.end());
    folded->setAttr(fusec::kFoldedAttr, rewriter.getArrayAttr(foldedOps));
    rewriter.replaceOp(conv, folded.getResult());
    rewriter.eraseOp(pad);
    ++numFolded;
    return success();
  }

  llvm::Statistic &numFolded;
};

struct FoldPadIntoConvPass : fusec::impl::FoldPadIntoConvBase<FoldPadIntoConvPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldZeroPadIntoConv>(&getContext(), numFolded);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
