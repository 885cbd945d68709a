//===- OnnxCompositeOps.h - ONNX ops built from other fuse ops --*- C++ -*-===//
//
// ONNX operators that fusec has no op of its own for, lowered at import to
// ops it has (elementwise, comparisons, Where, ArgMax, data movement), so
// that they fuse and run on every backend like any other op. Each builder
// reads the node through a BuildContext (OnnxBuildContext.h) and is listed
// in OnnxOpBuilders.cpp's op table.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXCOMPOSITEOPS_H
#define FUSEC_COMPILER_IMPORT_ONNXCOMPOSITEOPS_H

#include "compiler/import/OnnxBuildContext.h"

namespace fusec::import {

/// log(sum(exp(x))) over `axes` without overflow: the maximum m over the
/// axes (dimensions kept), x - m, and log(sum(exp(x - m))) with the reduced
/// dimensions kept or dropped. LogSoftmax is (x - m) - logSum (kept),
/// ReduceLogSumExp logSum + m.
struct ShiftedLogSumExp {
  Value maximum, centered, logSum;
};
FailureOr<ShiftedLogSumExp> buildShiftedLogSumExp(BuildContext &ctx, Value input, ArrayRef<int64_t> axes,
                                                  bool keepdims);

/// log(softmax(x)) along `axis`.
FailureOr<Value> buildLogSoftmaxAlong(BuildContext &ctx, Value input, int64_t axis);

/// NegativeLogLikelihoodLoss: -input[n, target, d...] times the target's
/// weight, 0 at ignore_index, reduced as `reduction` says (mean: over the
/// weights).
FailureOr<Results> buildNegativeLogLikelihoodLoss(BuildContext &ctx);
/// SoftmaxCrossEntropyLoss: the NLL loss of LogSoftmax(scores) along axis
/// 1, and that log-probability as its optional second output.
FailureOr<Results> buildSoftmaxCrossEntropyLoss(BuildContext &ctx);

/// y = x > alpha ? x : 0.
FailureOr<Results> buildThresholdedRelu(BuildContext &ctx);
/// y = x < -lambd ? x + bias : x > lambd ? x - bias : 0.
FailureOr<Results> buildShrink(BuildContext &ctx);
/// x != x.
FailureOr<Results> buildIsNaN(BuildContext &ctx);
/// x == +inf and/or x == -inf, as detect_positive / detect_negative say.
FailureOr<Results> buildIsInf(BuildContext &ctx);
/// 1 at the first maximum along the axis, 0 elsewhere: ArgMax compared with
/// the axis's indices (before opset 13: of the input flattened to 2-D at
/// the axis).
FailureOr<Results> buildHardmax(BuildContext &ctx);
/// Reshape, Transpose, Reshape (modes DCR and CRD).
FailureOr<Results> buildDepthToSpace(BuildContext &ctx);
FailureOr<Results> buildSpaceToDepth(BuildContext &ctx);
/// Each axis's repeats as a broadcast axis beside it: Reshape, Expand,
/// Reshape.
FailureOr<Results> buildTile(BuildContext &ctx);
/// `values[1]` where the index (negative ones count from `depth`) equals
/// the position along the new axis, else `values[0]`: the indices compared
/// with two constant ranges, and a Where. `depth` and `values` are known at
/// compile time; the output has the values' element type (f32, i64, i32).
FailureOr<Results> buildOneHot(BuildContext &ctx);

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXCOMPOSITEOPS_H
