//===- OnnxCompositeOps.cpp - ONNX ops built from other fuse ops ---------===//
#include "compiler/import/OnnxCompositeOps.h"

#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace fusec::fuse;

namespace fusec::import {
namespace {

/// Chains fallible op creations: the first failure sticks, and later
/// creations are skipped.
class Chain {
public:
  explicit Chain(BuildContext &ctx) : ctx(ctx) {}

  template <typename OpTy, typename... Args> Value make(Args &&...args) {
    if (broken)
      return Value();
    auto value = ctx.template create<OpTy>(std::forward<Args>(args)...);
    if (failed(value)) {
      broken = true;
      return Value();
    }
    return *value;
  }
  FailureOr<Results> result(Value value) const {
    if (broken)
      return failure();
    return Results{value};
  }

private:
  BuildContext &ctx;
  bool broken = false;
};

/// A constant of `shape` holding `values` as i64.
Value i64Constant(BuildContext &ctx, ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, ctx.builder.getI64Type());
  return ctx.builder.create<ConstantOp>(ctx.loc(), DenseElementsAttr::get(type, values));
}

/// `shape` for a Reshape attribute: the dynamic dimension (the batch) as -1.
std::vector<int64_t> reshapeTarget(ArrayRef<int64_t> shape) {
  std::vector<int64_t> target(shape.begin(), shape.end());
  for (int64_t &dim : target)
    if (ShapedType::isDynamic(dim))
      dim = -1;
  return target;
}

/// The element type name Cast takes for `value`'s element type.
std::string typeNameOf(Value value) { return elementTypeName(elementTypeOf(value)).value_or("f32").str(); }

/// 1 where `input`'s element is the first maximum along `axis`, else 0, in
/// `input`'s element type.
Value hardmaxAlong(BuildContext &ctx, Chain &chain, Value input, int64_t axis) {
  auto shape = llvm::cast<RankedTensorType>(input.getType()).getShape();
  const int64_t extent = shape[axis];
  std::vector<int64_t> iotaShape(shape.size(), 1), iota(extent);
  iotaShape[axis] = extent;
  std::iota(iota.begin(), iota.end(), int64_t(0));
  Value first = chain.make<ArgMaxOp>(input, ctx.i64(axis), ctx.boolean(true), ctx.boolean(false));
  Value isFirst = chain.make<EqualOp>(first, i64Constant(ctx, iotaShape, iota));
  return chain.make<CastOp>(isFirst, ctx.builder.getStringAttr(typeNameOf(input)));
}

/// The block size of DepthToSpace / SpaceToDepth on a rank-4 NCHW input.
FailureOr<int64_t> blockSize(BuildContext &ctx) {
  if (ctx.rank(0) != 4) {
    ctx.attrs.invalid(ctx.node.opType + " takes a rank-4 NCHW input");
    return failure();
  }
  if (!ctx.attrs.has("blocksize")) {
    ctx.attrs.invalid(ctx.node.opType + " needs the 'blocksize' attribute");
    return failure();
  }
  const int64_t block = ctx.attrs.getInt("blocksize", 1);
  if (block < 1) {
    ctx.attrs.invalid(ctx.node.opType + " attribute 'blocksize' must be >= 1, got " + Twine(block));
    return failure();
  }
  if (llvm::any_of(ctx.shape(0).drop_front(), ShapedType::isDynamic)) {
    ctx.attrs.invalid(ctx.node.opType + " needs static channels, height and width");
    return failure();
  }
  return block;
}

} // namespace

FailureOr<ShiftedLogSumExp> buildShiftedLogSumExp(BuildContext &ctx, Value input, ArrayRef<int64_t> axes,
                                                  bool keepdims) {
  auto maximum = ctx.create<ReduceMaxOp>(input, ctx.ints(axes), ctx.boolean(true));
  if (failed(maximum))
    return failure();
  auto centered = ctx.create<SubOp>(input, *maximum);
  if (failed(centered))
    return failure();
  auto exponential = ctx.create<ExpOp>(*centered);
  if (failed(exponential))
    return failure();
  auto sum = ctx.create<ReduceSumOp>(*exponential, ctx.ints(axes), ctx.boolean(keepdims));
  if (failed(sum))
    return failure();
  auto logarithm = ctx.create<LogOp>(*sum);
  if (failed(logarithm))
    return failure();
  return ShiftedLogSumExp{*maximum, *centered, *logarithm};
}

FailureOr<Value> buildLogSoftmaxAlong(BuildContext &ctx, Value input, int64_t axis) {
  auto parts = buildShiftedLogSumExp(ctx, input, {axis}, /*keepdims=*/true);
  if (failed(parts))
    return failure();
  return ctx.create<SubOp>(parts->centered, parts->logSum);
}

namespace {

/// The loss of NegativeLogLikelihoodLoss for `logProbabilities` [N, C,
/// d...], `target` [N, d...] (i64 or i32) and the optional `weight` [C],
/// with the node's ignore_index and reduction.
FailureOr<Value> negativeLogLikelihood(BuildContext &ctx, Value logProbabilities, Value target, Value weight) {
  const std::string reduction = ctx.attrs.getString("reduction", "mean");
  if (reduction != "mean" && reduction != "sum" && reduction != "none") {
    ctx.attrs.invalid(ctx.node.opType + " attribute 'reduction' must be mean, sum or none, got '" + reduction + "'");
    return failure();
  }
  auto inputShape = llvm::cast<RankedTensorType>(logProbabilities.getType()).getShape();
  auto targetShape = llvm::cast<RankedTensorType>(target.getType()).getShape();
  if (inputShape.size() < 2 || targetShape.size() + 1 != inputShape.size()) {
    ctx.attrs.invalid(ctx.node.opType + " takes an input [N, C, d...] and a target [N, d...]");
    return failure();
  }
  Chain chain(ctx);
  const Type indexType = elementTypeOf(target);
  // Ignored targets may hold any value (-1, C, ...): they gather class 0 and
  // weigh 0.
  Value ignored, safeTarget = target;
  if (ctx.attrs.has("ignore_index")) {
    const int64_t ignoreIndex = ctx.attrs.getInt("ignore_index", 0);
    auto scalar = [&](int64_t value) {
      auto type = RankedTensorType::get({}, indexType);
      return ctx.builder.create<ConstantOp>(ctx.loc(),
                                            DenseElementsAttr::get(type, ctx.builder.getIntegerAttr(indexType, value)));
    };
    ignored = chain.make<EqualOp>(target, scalar(ignoreIndex));
    safeTarget = chain.make<WhereOp>(ignored, scalar(0), target);
  }
  // input[n, target[n, d...], d...] through a class axis of 1.
  std::vector<int64_t> withClassAxis = reshapeTarget(targetShape);
  withClassAxis.insert(withClassAxis.begin() + 1, 1);
  Value indices = chain.make<ReshapeOp>(safeTarget, ctx.ints(withClassAxis));
  Value picked = chain.make<GatherElementsOp>(logProbabilities, indices, ctx.i64(1));
  Value loss = chain.make<NegOp>(chain.make<ReshapeOp>(picked, ctx.ints(reshapeTarget(targetShape))));
  Value weights;
  if (weight) {
    weights = chain.make<GatherOp>(weight, safeTarget, ctx.i64(0));
    if (ignored)
      weights = chain.make<WhereOp>(ignored, scalarConstant(ctx, 0.0f), weights);
  } else if (ignored) {
    weights = chain.make<CastOp>(chain.make<NotOp>(ignored), ctx.builder.getStringAttr("f32"));
  }
  if (weights)
    loss = chain.make<MulOp>(loss, weights);
  if (reduction != "none") {
    std::vector<int64_t> all(targetShape.size());
    std::iota(all.begin(), all.end(), int64_t(0));
    Value sum = chain.make<ReduceSumOp>(loss, ctx.ints(all), ctx.boolean(false));
    if (reduction == "mean")
      loss = weights ? chain.make<DivOp>(sum, chain.make<ReduceSumOp>(weights, ctx.ints(all), ctx.boolean(false)))
                     : chain.make<ReduceMeanOp>(loss, ctx.ints(all), ctx.boolean(false));
    else
      loss = sum;
  }
  auto result = chain.result(loss);
  if (failed(result))
    return failure();
  return result->front();
}

} // namespace

FailureOr<Results> buildNegativeLogLikelihoodLoss(BuildContext &ctx) {
  auto loss = negativeLogLikelihood(ctx, ctx.operand(0), ctx.operand(1), ctx.operand(2));
  if (failed(loss))
    return failure();
  return Results{*loss};
}

FailureOr<Results> buildSoftmaxCrossEntropyLoss(BuildContext &ctx) {
  if (ctx.rank(0) < 2) {
    ctx.attrs.invalid("SoftmaxCrossEntropyLoss takes scores [N, C, d...]");
    return failure();
  }
  auto logProbabilities = buildLogSoftmaxAlong(ctx, ctx.operand(0), 1);
  if (failed(logProbabilities))
    return failure();
  auto loss = negativeLogLikelihood(ctx, *logProbabilities, ctx.operand(1), ctx.operand(2));
  if (failed(loss))
    return failure();
  Results results{*loss};
  if (ctx.node.numResults > 1)
    results.push_back(*logProbabilities);
  return results;
}

FailureOr<Results> buildThresholdedRelu(BuildContext &ctx) {
  const float alpha = ctx.attrs.getFloat("alpha", 1.0f);
  Chain chain(ctx);
  Value above = chain.make<GreaterOp>(ctx.operand(0), scalarConstant(ctx, alpha));
  return chain.result(chain.make<WhereOp>(above, ctx.operand(0), scalarConstant(ctx, 0.0f)));
}

FailureOr<Results> buildShrink(BuildContext &ctx) {
  const float bias = ctx.attrs.getFloat("bias", 0.0f), lambd = ctx.attrs.getFloat("lambd", 0.5f);
  Value x = ctx.operand(0);
  Chain chain(ctx);
  Value below = chain.make<LessOp>(x, scalarConstant(ctx, -lambd));
  Value above = chain.make<GreaterOp>(x, scalarConstant(ctx, lambd));
  Value raised = chain.make<AddOp>(x, scalarConstant(ctx, bias));
  Value lowered = chain.make<SubOp>(x, scalarConstant(ctx, bias));
  Value upper = chain.make<WhereOp>(above, lowered, scalarConstant(ctx, 0.0f));
  return chain.result(chain.make<WhereOp>(below, raised, upper));
}

FailureOr<Results> buildIsNaN(BuildContext &ctx) {
  Chain chain(ctx);
  Value equal = chain.make<EqualOp>(ctx.operand(0), ctx.operand(0));
  return chain.result(chain.make<NotOp>(equal));
}

FailureOr<Results> buildIsInf(BuildContext &ctx) {
  const bool positive = ctx.attrs.getFlag("detect_positive", true);
  const bool negative = ctx.attrs.getFlag("detect_negative", true);
  const float infinity = std::numeric_limits<float>::infinity();
  Value x = ctx.operand(0);
  Chain chain(ctx);
  if (!positive && !negative) // nothing is below -inf: all false
    return chain.result(chain.make<LessOp>(x, scalarConstant(ctx, -infinity)));
  Value isPositive = positive ? chain.make<EqualOp>(x, scalarConstant(ctx, infinity)) : Value();
  Value isNegative = negative ? chain.make<EqualOp>(x, scalarConstant(ctx, -infinity)) : Value();
  if (!positive)
    return chain.result(isNegative);
  if (!negative)
    return chain.result(isPositive);
  return chain.result(chain.make<OrOp>(isPositive, isNegative));
}

FailureOr<Results> buildHardmax(BuildContext &ctx) {
  const int64_t rank = ctx.rank(0);
  if (rank == 0) {
    ctx.attrs.invalid("Hardmax of a scalar is not supported");
    return failure();
  }
  const bool flattened = ctx.node.opset < 13;
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", flattened ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Chain chain(ctx);
  if (!flattened)
    return chain.result(hardmaxAlong(ctx, chain, ctx.operand(0), *axis));
  // Before opset 13 the input is a 2-D matrix [before axis, from axis on].
  Value matrix = chain.make<FlattenOp>(ctx.operand(0), ctx.i64(*axis));
  if (!matrix)
    return failure();
  Value hard = hardmaxAlong(ctx, chain, matrix, 1);
  return chain.result(chain.make<ReshapeOp>(hard, ctx.ints(reshapeTarget(ctx.shape(0)))));
}

FailureOr<Results> buildDepthToSpace(BuildContext &ctx) {
  auto block = blockSize(ctx);
  if (failed(block))
    return failure();
  const std::string mode = ctx.attrs.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    ctx.attrs.invalid("DepthToSpace attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    return failure();
  }
  auto shape = ctx.shape(0);
  const int64_t b = *block, c = shape[1], h = shape[2], w = shape[3];
  if (c % (b * b) != 0) {
    ctx.attrs.invalid("DepthToSpace: " + Twine(c) + " channels are not a multiple of blocksize^2 = " + Twine(b * b));
    return failure();
  }
  const int64_t n = ShapedType::isDynamic(shape[0]) ? -1 : shape[0], depth = c / (b * b);
  // DCR: channels are (row offset, column offset, depth); CRD: (depth, row
  // offset, column offset).
  const bool dcr = mode == "DCR";
  const std::vector<int64_t> split =
      dcr ? std::vector<int64_t>{n, b, b, depth, h, w} : std::vector<int64_t>{n, depth, b, b, h, w};
  const std::vector<int64_t> perm =
      dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
  Chain chain(ctx);
  Value blocks = chain.make<ReshapeOp>(ctx.operand(0), ctx.ints(split));
  Value moved = chain.make<TransposeOp>(blocks, ctx.ints(perm));
  return chain.result(chain.make<ReshapeOp>(moved, ctx.ints({n, depth, h * b, w * b})));
}

FailureOr<Results> buildSpaceToDepth(BuildContext &ctx) {
  auto block = blockSize(ctx);
  if (failed(block))
    return failure();
  // `mode` from opset 28: DCR (the only layout before) puts the block
  // offsets before the channel, CRD after it.
  const std::string mode = ctx.attrs.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    ctx.attrs.invalid("SpaceToDepth attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    return failure();
  }
  auto shape = ctx.shape(0);
  const int64_t b = *block, c = shape[1], h = shape[2], w = shape[3];
  if (h % b != 0 || w % b != 0) {
    ctx.attrs.invalid("SpaceToDepth: height " + Twine(h) + " and width " + Twine(w) +
                      " must be multiples of blocksize " + Twine(b));
    return failure();
  }
  const int64_t n = ShapedType::isDynamic(shape[0]) ? -1 : shape[0];
  Chain chain(ctx);
  Value blocks = chain.make<ReshapeOp>(ctx.operand(0), ctx.ints({n, c, h / b, b, w / b, b}));
  // [n, c, h/b, row offset, w/b, column offset] to DCR's (row offset,
  // column offset, c) or CRD's (c, row offset, column offset) channels.
  const std::vector<int64_t> perm =
      mode == "DCR" ? std::vector<int64_t>{0, 3, 5, 1, 2, 4} : std::vector<int64_t>{0, 1, 3, 5, 2, 4};
  Value moved = chain.make<TransposeOp>(blocks, ctx.ints(perm));
  return chain.result(chain.make<ReshapeOp>(moved, ctx.ints({n, c * b * b, h / b, w / b})));
}

FailureOr<Results> buildTile(BuildContext &ctx) {
  if (!ctx.attrs.has("repeats")) {
    ctx.attrs.invalid("Tile needs its repeats input to be known at compile time");
    return failure();
  }
  const std::vector<int64_t> repeats = ctx.attrs.getInts("repeats", {});
  auto shape = ctx.shape(0);
  if (repeats.size() != shape.size()) {
    ctx.attrs.invalid("Tile has " + Twine(repeats.size()) + " repeats for a rank-" + Twine(shape.size()) + " input");
    return failure();
  }
  // Each axis d becomes [repeats[d], shape[d]]: a broadcast copy axis before
  // the axis itself, merged with it at the end.
  std::vector<int64_t> spread, expanded, tiled;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 0) {
      ctx.attrs.invalid("Tile repeats must be >= 0, got " + Twine(repeats[d]) + " for axis " + Twine(d));
      return failure();
    }
    if (ShapedType::isDynamic(shape[d]) && repeats[d] != 1) {
      ctx.attrs.invalid("Tile can repeat the batch dimension only once (axis " + Twine(d) + " repeats " +
                        Twine(repeats[d]) + ")");
      return failure();
    }
    const int64_t extent = ShapedType::isDynamic(shape[d]) ? -1 : shape[d];
    spread.insert(spread.end(), {1, extent});
    expanded.insert(expanded.end(), {repeats[d], ShapedType::isDynamic(shape[d]) ? 1 : extent});
    tiled.push_back(extent < 0 ? -1 : repeats[d] * extent);
  }
  Chain chain(ctx);
  Value spreadOut = chain.make<ReshapeOp>(ctx.operand(0), ctx.ints(spread));
  Value copies = chain.make<ExpandOp>(spreadOut, ctx.ints(expanded), ArrayAttr());
  return chain.result(chain.make<ReshapeOp>(copies, ctx.ints(tiled)));
}

FailureOr<Results> buildOneHot(BuildContext &ctx) {
  if (!ctx.attrs.has("depth") || !ctx.attrs.has("values")) {
    ctx.attrs.invalid("OneHot needs its depth and values inputs to be known at compile time");
    return failure();
  }
  const std::vector<double> depths = ctx.attrs.getFloats("depth", {}), values = ctx.attrs.getFloats("values", {});
  if (depths.size() != 1 || !(depths[0] >= 1) || depths[0] > double(int64_t(1) << 31)) {
    ctx.attrs.invalid("OneHot depth must be one number >= 1");
    return failure();
  }
  if (values.size() != 2) {
    ctx.attrs.invalid("OneHot values must hold two numbers [off, on], got " + Twine(values.size()));
    return failure();
  }
  const auto depth = static_cast<int64_t>(depths[0]);
  const int64_t rank = ctx.rank(0);
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", -1), rank + 1);
  if (failed(axis))
    return failure();
  Chain chain(ctx);
  // Non-integer indices are truncated to int64, as ONNX says.
  Value indices = ctx.operand(0);
  if (!llvm::isa<IntegerType>(elementTypeOf(indices)) || elementTypeOf(indices).isInteger(1))
    indices = chain.make<CastOp>(indices, ctx.builder.getStringAttr("i64"));
  std::vector<int64_t> spread = reshapeTarget(ctx.shape(0));
  spread.insert(spread.begin() + *axis, 1);
  Value column = chain.make<ReshapeOp>(indices, ctx.ints(spread));
  std::vector<int64_t> rangeShape(rank + 1, 1), positions(depth), negatives(depth);
  rangeShape[*axis] = depth;
  for (int64_t i = 0; i < depth; ++i)
    positions[i] = i, negatives[i] = i - depth;
  const Type indexType = column ? elementTypeOf(column) : ctx.builder.getI64Type();
  auto range = [&](ArrayRef<int64_t> data) -> Value {
    if (indexType.isInteger(64))
      return i64Constant(ctx, rangeShape, data);
    std::vector<int32_t> narrow(data.begin(), data.end());
    auto type = RankedTensorType::get(rangeShape, indexType);
    return ctx.builder.create<ConstantOp>(ctx.loc(), DenseElementsAttr::get(type, ArrayRef<int32_t>(narrow)));
  };
  Value hit =
      chain.make<OrOp>(chain.make<EqualOp>(column, range(positions)), chain.make<EqualOp>(column, range(negatives)));
  // The output has the values' element type (f32 when not given).
  const std::string dtype = ctx.attrs.getString("values_dtype", "f32");
  const Type valueType = parseElementType(ctx.builder.getContext(), dtype);
  if (!valueType || !(valueType.isF32() || valueType.isInteger(64) || valueType.isInteger(32))) {
    ctx.attrs.invalid("OneHot values of type " + dtype + " are not supported (f32, i64 or i32)");
    return failure();
  }
  auto scalar = [&](double value) -> Value {
    auto type = RankedTensorType::get({}, valueType);
    Attribute element = valueType.isF32() ? Attribute(ctx.builder.getF32FloatAttr(float(value)))
                                          : Attribute(ctx.builder.getIntegerAttr(valueType, int64_t(value)));
    return ctx.builder.create<ConstantOp>(ctx.loc(), DenseElementsAttr::get(type, element));
  };
  return chain.result(chain.make<WhereOp>(hit, scalar(values[1]), scalar(values[0])));
}

} // namespace fusec::import
