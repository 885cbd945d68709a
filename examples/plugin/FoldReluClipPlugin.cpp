//===- FoldReluClipPlugin.cpp - An example fusec plugin -------------------===//
//
// A real, small plugin: ReLU followed by Clip (the "ReLU then ReLU6" idiom)
// is one Clip with the lower bound raised to 0, so the activation epilogue
// does one op instead of two.
//
//   fusec --plugin=libfusec_example_plugin.so model.json ...
//       registers the pattern "fold-relu-clip" (fusecRegisterPlugin), which
//       --disable-fusion=fold-relu-clip turns off again;
//   fusec-opt --load-pass-plugin=libfusec_example_plugin.so
//       --pass-pipeline='builtin.module(func.func(fuse-example-fold-relu-clip))'
//       runs the same pattern as a pass (mlirGetPassPluginInfo).
//
// The library links nothing: fusec's and MLIR's symbols come from the tool
// that loads it.
//
//===----------------------------------------------------------------------===//
#include "ir/FuseOps.h"
#include "passes/FusionRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>

using namespace mlir;
using namespace fusec::fuse;

namespace {

struct FoldReluIntoClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ClipOp clip, PatternRewriter &rewriter) const override {
    auto relu = clip.getInput().getDefiningOp<ReluOp>();
    if (!relu || !relu->hasOneUse())
      return rewriter.notifyMatchFailure(clip, "input is not a single-use relu");
    float low = clip.getMin() ? std::max(0.0f, clip.getMin()->convertToFloat()) : 0.0f;
    auto folded = rewriter.create<ClipOp>(rewriter.getFusedLoc({relu.getLoc(), clip.getLoc()}), clip.getType(),
                                          relu.getInput(), rewriter.getF32FloatAttr(low), clip.getMaxAttr());
    rewriter.replaceOp(clip, folded.getResult());
    rewriter.eraseOp(relu);
    return success();
  }
};

struct FoldReluClipPass : PassWrapper<FoldReluClipPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FoldReluClipPass)
  StringRef getArgument() const final { return "fuse-example-fold-relu-clip"; }
  StringRef getDescription() const final { return "Fold relu into a following clip"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldReluIntoClip>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

extern "C" __attribute__((visibility("default"))) void fusecRegisterPlugin(fusec::FusionRegistry &registry) {
  registry.registerPattern("fold-relu-clip",
                           [](RewritePatternSet &patterns) { patterns.add<FoldReluIntoClip>(patterns.getContext()); });
}

extern "C" __attribute__((visibility("default"))) PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FusecExampleFoldReluClip", "0.1", [] { PassRegistration<FoldReluClipPass>(); }};
}
