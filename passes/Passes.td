//===- Passes.td - fusec passes -----------------------------*- tablegen -*-===//
#ifndef FUSEC_PASSES_TD
#define FUSEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldBatchNorm : Pass<"fuse-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding Conv";
  let description = [{
    `batch_norm(conv(x, W, b))` becomes `conv(x, W', b')` with
    `s = scale / sqrt(var + eps)`, `W'[o] = W[o] * s[o]` and
    `b' = (b - mean) * s + bias`, computed in double precision. A conv without
    bias gets one. Only when the conv result has no other user (a graph output
    is a user) and all weights and statistics are constants.
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of BatchNormalization ops folded">,
  ];
}

def FoldPadIntoConv : Pass<"fuse-fold-pad-into-conv", "mlir::func::FuncOp"> {
  let summary = "Fold a zero constant Pad on spatial axes into Conv padding";
  let description = [{
    A `pad` in constant mode with value 0, non-negative amounts on the spatial
    axes only, whose sole user is a conv's input, becomes part of the conv's
    `pads`. Reflect and edge pads, non-zero values, pads of the batch or
    channel axes and pads with other users are left alone.
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of Pad ops folded into Conv">,
  ];
}

#endif // FUSEC_PASSES_TD
