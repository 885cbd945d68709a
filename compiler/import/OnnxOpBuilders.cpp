//===- OnnxOpBuilders.cpp - ONNX nodes to fuse ops -----------------------===//
#include "compiler/import/OnnxOpBuilders.h"
#include "compiler/import/Graph.h"
#include "compiler/import/OnnxBuildContext.h"
#include "compiler/import/OnnxCompositeOps.h"
#include "compiler/import/OnnxQuantizationOps.h"

#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"

#include "llvm/ADT/StringMap.h"

#include <functional>
#include <numeric>
#include <set>

using namespace mlir;
using namespace fusec::fuse;

namespace fusec::import {
namespace {

/// Explicit pads for auto_pad SAME_UPPER / SAME_LOWER / VALID (2-D windows).
FailureOr<std::vector<int64_t>> resolvePads(BuildContext &ctx, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                                            ArrayRef<int64_t> dilations) {
  std::string autoPad = ctx.attrs.getString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = ctx.attrs.getInts("pads", {0, 0, 0, 0});
  if (autoPad == "NOTSET")
    return pads;
  if (ctx.attrs.has("pads")) {
    ctx.attrs.invalid("'pads' and 'auto_pad' " + autoPad + " are mutually exclusive");
    return failure();
  }
  if (autoPad == "VALID")
    return std::vector<int64_t>{0, 0, 0, 0};
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    ctx.attrs.invalid("attribute 'auto_pad' has unknown value '" + autoPad + "'");
    return failure();
  }
  if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2 || ctx.rank(0) != 4) {
    ctx.attrs.invalid("auto_pad needs a rank-4 input and 2-D windows");
    return failure();
  }
  pads.assign(4, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t in = ctx.shape(0)[2 + i];
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

FailureOr<Results> buildConv(BuildContext &ctx) {
  if (ctx.rank(0) != 4 || ctx.rank(1) != 4) {
    ctx.attrs.invalid("only 2-D convolution (rank-4 input and weight) is supported");
    return failure();
  }
  std::vector<int64_t> weightKernel(ctx.shape(1).begin() + 2, ctx.shape(1).end());
  std::vector<int64_t> kernel = ctx.attrs.getInts("kernel_shape", weightKernel);
  if (kernel != weightKernel) {
    ctx.attrs.invalid("attribute 'kernel_shape' does not match the weight's spatial shape");
    return failure();
  }
  auto strides = ctx.attrs.getInts("strides", {1, 1});
  auto dilations = ctx.attrs.getInts("dilations", {1, 1});
  int64_t group = ctx.attrs.getInt("group", 1);
  auto pads = resolvePads(ctx, kernel, strides, dilations);
  if (failed(pads))
    return failure();
  return single(ctx.create<ConvOp>(ctx.operand(0), ctx.operand(1), ctx.operand(2), ctx.ints(strides), ctx.ints(*pads),
                                   ctx.ints(dilations), ctx.i64(group), /*channels_last=*/BoolAttr()));
}

/// ConvTranspose as a Conv, built at import from existing ops (the lowering
/// is exact; a dedicated kernel would skip the zeros):
///  * the input gets stride - 1 zeros after every element of each spatial
///    axis (reshaped to [N, C, H, 1, W, 1], padded to [N, C, H, sh, W, sw],
///    reshaped back), so that a stride-1 convolution visits every product;
///  * the weight [Cin, Cout/g, kh, kw] is flipped in both spatial axes and
///    its channel axes swapped within each group: [Cout, Cin/g, kh, kw];
///  * the convolution pads each side by (k - 1) * d minus the transposed
///    convolution's pad (plus output_padding at the end, minus the trailing
///    zeros the reshape added); a negative amount crops the input instead.
FailureOr<Results> buildConvTranspose(BuildContext &ctx) {
  if (ctx.rank(0) != 4 || ctx.rank(1) != 4) {
    ctx.attrs.invalid("only 2-D transposed convolution (rank-4 input and weight) is supported");
    return failure();
  }
  const ArrayRef<int64_t> x = ctx.shape(0), w = ctx.shape(1);
  const std::vector<int64_t> weightKernel(w.begin() + 2, w.end());
  const std::vector<int64_t> kernel = ctx.attrs.getInts("kernel_shape", weightKernel);
  if (kernel != weightKernel) {
    ctx.attrs.invalid("attribute 'kernel_shape' does not match the weight's spatial shape");
    return failure();
  }
  const int64_t group = ctx.attrs.getInt("group", 1);
  const auto strides = ctx.attrs.getInts("strides", {1, 1});
  const auto dilations = ctx.attrs.getInts("dilations", {1, 1});
  const auto outputPadding = ctx.attrs.getInts("output_padding", {0, 0});
  const std::string autoPad = ctx.attrs.getString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = ctx.attrs.getInts("pads", {0, 0, 0, 0});
  std::vector<int64_t> outputShape = ctx.attrs.getInts("output_shape", {});
  if (strides.size() != 2 || dilations.size() != 2 || outputPadding.size() != 2 || pads.size() != 4) {
    ctx.attrs.invalid("'strides', 'dilations' and 'output_padding' need 2 entries and 'pads' 4");
    return failure();
  }
  for (int i = 0; i < 2; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0 || pads[i] < 0 || pads[i + 2] < 0 ||
        x[2 + i] == kDynamic) {
      ctx.attrs.invalid("strides and dilations must be >= 1, output_padding and pads >= 0, and the spatial input "
                        "dimensions static");
      return failure();
    }
  if (group < 1 || w[0] == kDynamic || w[0] % group != 0 || x[1] != w[0]) {
    ctx.attrs.invalid("the weight's first dimension must be the input's channels (" + Twine(x[1]) +
                      ") and divisible by 'group' (" + Twine(group) + ")");
    return failure();
  }
  // output_shape (or SAME_*) sets the total padding of each axis.
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    outputShape = {x[2] * strides[0], x[3] * strides[1]};
  else if (autoPad == "VALID")
    pads.assign(4, 0);
  else if (autoPad != "NOTSET") {
    ctx.attrs.invalid("attribute 'auto_pad' has unknown value '" + autoPad + "'");
    return failure();
  }
  if (outputShape.size() > 2)
    outputShape.erase(outputShape.begin(), outputShape.end() - 2); // [N, C, H, W] given whole
  if (!outputShape.empty()) {
    if (outputShape.size() != 2) {
      ctx.attrs.invalid("attribute 'output_shape' needs the 2 spatial sizes");
      return failure();
    }
    // ONNX's rule, with Python's floor division: a negative total (an
    // output larger than the input reaches) pads with zeros instead.
    auto floorHalf = [](int64_t total) { return total >= 0 ? total / 2 : -((1 - total) / 2); };
    for (int i = 0; i < 2; ++i) {
      const int64_t total =
          strides[i] * (x[2 + i] - 1) + outputPadding[i] + (kernel[i] - 1) * dilations[i] + 1 - outputShape[i];
      const bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? floorHalf(total) : total - floorHalf(total);
      pads[i + 2] = upper ? total - floorHalf(total) : floorHalf(total);
    }
  }

  // The weight: flipped, channels swapped within each group.
  const int64_t inPerGroup = w[0] / group, outPerGroup = w[1];
  auto flipped = ctx.create<SliceOp>(ctx.operand(1), ctx.ints({0, 0, w[2] - 1, w[3] - 1}),
                                     ctx.ints({w[0], w[1], -1, -1}), ctx.ints({1, 1, -1, -1}), ArrayAttr());
  if (failed(flipped))
    return failure();
  auto grouped = ctx.create<ReshapeOp>(*flipped, ctx.ints({group, inPerGroup, outPerGroup, w[2], w[3]}));
  if (failed(grouped))
    return failure();
  auto swapped = ctx.create<TransposeOp>(*grouped, ctx.ints({0, 2, 1, 3, 4}));
  if (failed(swapped))
    return failure();
  auto weight = ctx.create<ReshapeOp>(*swapped, ctx.ints({group * outPerGroup, inPerGroup, w[2], w[3]}));
  if (failed(weight))
    return failure();

  // The input with stride - 1 zeros after each element.
  Value input = ctx.operand(0);
  if (strides[0] > 1 || strides[1] > 1) {
    auto spread = ctx.create<ReshapeOp>(input, ctx.ints({0, x[1], x[2], 1, x[3], 1}));
    if (failed(spread))
      return failure();
    auto zeros = ctx.create<PadOp>(*spread, ctx.ints({0, 0, 0, 0, 0, 0, 0, 0, 0, strides[0] - 1, 0, strides[1] - 1}),
                                   ctx.builder.getStringAttr("constant"), ctx.f32(0.0f));
    if (failed(zeros))
      return failure();
    auto merged = ctx.create<ReshapeOp>(*zeros, ctx.ints({0, x[1], x[2] * strides[0], x[3] * strides[1]}));
    if (failed(merged))
      return failure();
    input = *merged;
  }
  std::vector<int64_t> convPads(4), starts(4, 0), ends(4), steps(4, 1);
  bool crop = false;
  ends[0] = x[0] == kDynamic ? rules::kSliceToEnd : x[0];
  ends[1] = x[1];
  for (int i = 0; i < 2; ++i) {
    const int64_t extent = x[2 + i] * strides[i];
    const int64_t reach = (kernel[i] - 1) * dilations[i];
    const int64_t begin = reach - pads[i];
    const int64_t end = reach - pads[i + 2] + outputPadding[i] - (strides[i] - 1);
    starts[2 + i] = std::max<int64_t>(0, -begin);
    ends[2 + i] = extent - std::max<int64_t>(0, -end);
    convPads[i] = std::max<int64_t>(0, begin);
    convPads[i + 2] = std::max<int64_t>(0, end);
    crop = crop || begin < 0 || end < 0;
    if (ends[2 + i] <= starts[2 + i]) {
      ctx.attrs.invalid("the pads leave no output");
      return failure();
    }
  }
  if (crop) {
    auto cropped = ctx.create<SliceOp>(input, ctx.ints(starts), ctx.ints(ends), ctx.ints(steps), ArrayAttr());
    if (failed(cropped))
      return failure();
    input = *cropped;
  }
  return single(ctx.create<ConvOp>(input, *weight, ctx.operand(2), ctx.ints({1, 1}), ctx.ints(convPads),
                                   ctx.ints(dilations), ctx.i64(group), /*channels_last=*/BoolAttr()));
}

FailureOr<Results> buildBatchNorm(BuildContext &ctx) {
  float epsilon = ctx.attrs.getFloat("epsilon", 1e-5f);
  ctx.attrs.ignore("momentum"); // only used in training
  ctx.attrs.acceptOnly("training_mode", AttrValue::ofInt(0));
  ctx.attrs.acceptOnly("spatial", AttrValue::ofInt(1));
  return single(ctx.create<BatchNormOp>(ctx.operand(0), ctx.operand(1), ctx.operand(2), ctx.operand(3), ctx.operand(4),
                                        ctx.f32(epsilon)));
}

template <typename OpTy> FailureOr<Results> buildUnary(BuildContext &ctx) {
  return single(ctx.create<OpTy>(ctx.operand(0)));
}

template <typename OpTy> FailureOr<Results> buildBinary(BuildContext &ctx) {
  return single(ctx.create<OpTy>(ctx.operand(0), ctx.operand(1)));
}

/// Trilu: `upper` (default 1) and `k`, the diagonal offset (an input the
/// importer reads as a constant, default 0).
FailureOr<Results> buildTrilu(BuildContext &ctx) {
  bool upper = ctx.attrs.getFlag("upper", true);
  auto k = ctx.attrs.getInts("k", {0});
  if (k.size() != 1) {
    ctx.attrs.invalid("Trilu's k must be one integer");
    return failure();
  }
  if (ctx.rank(0) < 2) {
    ctx.attrs.invalid("Trilu needs a tensor of rank 2 or more");
    return failure();
  }
  return single(ctx.create<TriluOp>(ctx.operand(0), ctx.boolean(upper), ctx.i64(k.front())));
}

/// PRelu: the slope broadcasts to X, never X to the slope.
FailureOr<Results> buildPRelu(BuildContext &ctx) {
  if (!broadcastsTo(ctx.shape(1), ctx.shape(0)))
    return emitError(ctx.loc()) << "PRelu slope " << shapeToString(ctx.shape(1)) << " does not broadcast to X "
                                << shapeToString(ctx.shape(0));
  return single(ctx.create<PReluOp>(ctx.operand(0), ctx.operand(1)));
}

FailureOr<Results> buildIdentity(BuildContext &ctx) { return Results{ctx.operand(0)}; }

FailureOr<Results> buildLeakyRelu(BuildContext &ctx) {
  return single(ctx.create<LeakyReluOp>(ctx.operand(0), ctx.f32(ctx.attrs.getFloat("alpha", 0.01f))));
}

FailureOr<Results> buildHardSigmoid(BuildContext &ctx) {
  float alpha = ctx.attrs.getFloat("alpha", 0.2f), beta = ctx.attrs.getFloat("beta", 0.5f);
  return single(ctx.create<HardSigmoidOp>(ctx.operand(0), ctx.f32(alpha), ctx.f32(beta)));
}

FailureOr<Results> buildMod(BuildContext &ctx) {
  bool fmod = ctx.attrs.getFlag("fmod", false);
  return single(ctx.create<ModOp>(ctx.operand(0), ctx.operand(1), ctx.boolean(fmod)));
}

/// ONNX Min, Max (and Sum) take one or more inputs: a left-to-right chain of
/// binary ops, each broadcasting.
template <typename OpTy> FailureOr<Results> buildVariadic(BuildContext &ctx) {
  Value result = ctx.operand(0);
  for (size_t i = 1; i < ctx.node.operands.size(); ++i) {
    auto next = ctx.create<OpTy>(result, ctx.operand(i));
    if (failed(next))
      return failure();
    result = *next;
  }
  return Results{result};
}

FailureOr<Results> buildWhere(BuildContext &ctx) {
  return single(ctx.create<WhereOp>(ctx.operand(0), ctx.operand(1), ctx.operand(2)));
}

/// `to` names the result's dtype as plans spell it (the ONNX importer
/// translates ONNX's TensorProto type numbers).
FailureOr<Results> buildCast(BuildContext &ctx) {
  if (!ctx.attrs.has("to")) {
    ctx.attrs.invalid("Cast needs attribute 'to'");
    return failure();
  }
  std::string to = ctx.attrs.getString("to", "");
  if (!runtime::parseElementType(to)) {
    if (ctx.node.attrs.at("to").kind != AttrValue::Kind::String)
      return failure(); // getString reported the type
    ctx.attrs.invalid("attribute 'to' of Cast must be one of f32, f16, bf16, i64, i32, i1, i8, u8, got \"" + to + "\"");
    return failure();
  }
  return single(ctx.create<CastOp>(ctx.operand(0), ctx.builder.getStringAttr(to)));
}

/// Mean of one or more inputs (with broadcasting): their Sum divided by
/// their count.
FailureOr<Results> buildMean(BuildContext &ctx) {
  auto sum = buildVariadic<AddOp>(ctx);
  if (failed(sum) || ctx.node.operands.size() == 1)
    return sum;
  return single(ctx.create<DivOp>(sum->front(), scalarConstant(ctx, float(ctx.node.operands.size()))));
}

FailureOr<Results> buildGelu(BuildContext &ctx) {
  std::string approximate = ctx.attrs.getString("approximate", "none");
  return single(ctx.create<GeluOp>(ctx.operand(0), ctx.builder.getStringAttr(approximate)));
}

FailureOr<Results> buildClip(BuildContext &ctx) {
  FloatAttr min, max;
  if (ctx.attrs.has("min"))
    min = ctx.f32(ctx.attrs.getFloat("min", 0));
  if (ctx.attrs.has("max"))
    max = ctx.f32(ctx.attrs.getFloat("max", 0));
  return single(ctx.create<ClipOp>(ctx.operand(0), min, max));
}

FailureOr<Results> buildPad(BuildContext &ctx) {
  if (!ctx.attrs.has("pads")) {
    ctx.attrs.invalid("Pad needs the 'pads' attribute (or a constant pads input)");
    return failure();
  }
  auto pads = ctx.attrs.getInts("pads", {});
  std::string mode = ctx.attrs.getString("mode", "constant");
  float value = ctx.attrs.getFloat("value", 0.0f);
  return single(ctx.create<PadOp>(ctx.operand(0), ctx.ints(pads), ctx.builder.getStringAttr(mode), ctx.f32(value)));
}

FailureOr<Results> buildGemm(BuildContext &ctx) {
  float alpha = ctx.attrs.getFloat("alpha", 1.0f), beta = ctx.attrs.getFloat("beta", 1.0f);
  bool transA = ctx.attrs.getFlag("transA", false), transB = ctx.attrs.getFlag("transB", false);
  return single(ctx.create<GemmOp>(ctx.operand(0), ctx.operand(1), ctx.operand(2), ctx.f32(alpha), ctx.f32(beta),
                                   ctx.boolean(transA), ctx.boolean(transB)));
}

FailureOr<Results> buildPool(BuildContext &ctx, bool isMax) {
  if (ctx.rank(0) != 4) {
    ctx.attrs.invalid("only 2-D pooling (rank-4 input) is supported");
    return failure();
  }
  if (!ctx.attrs.has("kernel_shape")) {
    ctx.attrs.invalid(ctx.node.opType + " needs the 'kernel_shape' attribute");
    return failure();
  }
  auto kernel = ctx.attrs.getInts("kernel_shape", {});
  auto strides = ctx.attrs.getInts("strides", {1, 1});
  bool ceilMode = ctx.attrs.getFlag("ceil_mode", false);
  std::vector<int64_t> dilations = ctx.attrs.getInts("dilations", {1, 1});
  if (isMax) {
    ctx.attrs.acceptOnly("storage_order", AttrValue::ofInt(0));
  } else if (dilations != std::vector<int64_t>{1, 1}) {
    // AveragePool-19's dilations: fuse.average_pool has none.
    ctx.attrs.invalid("AveragePool with dilations other than 1 is not supported");
    return failure();
  }
  auto pads = resolvePads(ctx, kernel, strides, dilations);
  if (failed(pads))
    return failure();
  if (isMax)
    return single(ctx.create<MaxPoolOp>(ctx.operand(0), ctx.ints(kernel), ctx.ints(strides), ctx.ints(*pads),
                                        ctx.ints(dilations), ctx.boolean(ceilMode), /*channels_last=*/BoolAttr()));
  bool countIncludePad = ctx.attrs.getFlag("count_include_pad", false);
  return single(ctx.create<AveragePoolOp>(ctx.operand(0), ctx.ints(kernel), ctx.ints(strides), ctx.ints(*pads),
                                          ctx.boolean(ceilMode), ctx.boolean(countIncludePad),
                                          /*channels_last=*/BoolAttr()));
}

/// Softmax and LogSoftmax. Before opset 13 both flattened the input to 2-D at
/// `axis` (default 1) and normalized each row of that.
template <bool kLogarithm> FailureOr<Results> buildSoftmax(BuildContext &ctx) {
  int64_t rank = ctx.rank(0);
  bool flattening = ctx.node.opset < 13;
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", flattening ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  auto along = [&](Value input, int64_t alongAxis) -> FailureOr<Value> {
    if (kLogarithm)
      return buildLogSoftmaxAlong(ctx, input, alongAxis);
    return ctx.create<SoftmaxOp>(input, ctx.i64(alongAxis));
  };
  if (!flattening || *axis == rank - 1)
    return single(along(ctx.operand(0), *axis));
  auto flat = ctx.create<FlattenOp>(ctx.operand(0), ctx.i64(*axis));
  if (failed(flat))
    return failure();
  auto normalized = along(*flat, 1);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> shape(ctx.shape(0));
  for (int64_t &dim : shape)
    if (dim == kDynamic)
      dim = 0; // copy the batch dimension
  return single(ctx.create<ReshapeOp>(*normalized, ctx.ints(shape)));
}

/// LayerNormalization. Its optional outputs Mean and InvStdDev (training
/// statistics, which ONNX's node tests read) are computed beside Y as the
/// op's function body defines them, over axes [axis, rank) with the reduced
/// dimensions kept: Mean = ReduceMean(x), InvStdDev = 1 / sqrt(ReduceMean((x
/// - Mean)^2) + epsilon).
FailureOr<Results> buildLayerNorm(BuildContext &ctx) {
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", -1), ctx.rank(0));
  float epsilon = ctx.attrs.getFloat("epsilon", 1e-5f);
  ctx.attrs.acceptOnly("stash_type", AttrValue::ofInt(1));
  if (failed(axis))
    return failure();
  Value input = ctx.operand(0);
  auto normalized = ctx.create<LayerNormOp>(input, ctx.operand(1), ctx.operand(2), ctx.i64(*axis), ctx.f32(epsilon));
  if (failed(normalized))
    return failure();
  Results results{*normalized};
  if (ctx.node.numResults == 1)
    return results;
  // The statistics are f32 (stash_type 1) whatever the input's type.
  if (!elementTypeOf(input).isF32()) {
    ctx.attrs.invalid("LayerNormalization's Mean and InvStdDev outputs are supported for f32 inputs only");
    return failure();
  }
  std::vector<int64_t> axes;
  for (int64_t d = *axis; d < ctx.rank(0); ++d)
    axes.push_back(d);
  auto mean = ctx.create<ReduceMeanOp>(input, ctx.ints(axes), ctx.boolean(true));
  if (failed(mean))
    return failure();
  results.push_back(*mean);
  if (ctx.node.numResults == 2)
    return results;
  Value epsilonValue = scalarConstant(ctx, epsilon);
  auto centered = ctx.create<SubOp>(input, *mean);
  if (failed(centered))
    return failure();
  auto squared = ctx.create<MulOp>(*centered, *centered);
  if (failed(squared))
    return failure();
  auto variance = ctx.create<ReduceMeanOp>(*squared, ctx.ints(axes), ctx.boolean(true));
  if (failed(variance))
    return failure();
  auto shifted = ctx.create<AddOp>(*variance, epsilonValue);
  if (failed(shifted))
    return failure();
  auto deviation = ctx.create<SqrtOp>(*shifted);
  if (failed(deviation))
    return failure();
  auto inverse = ctx.create<ReciprocalOp>(*deviation);
  if (failed(inverse))
    return failure();
  results.push_back(*inverse);
  return results;
}

/// ReduceSum, ReduceMean, ReduceMax, ...: `axes` (default: all; an input
/// from opset 13 for ReduceSum, 18 for the others, converted to the
/// attribute at import), `keepdims`, and `noop_with_empty_axes` (opset 13+:
/// no axes then means the identity).
/// The sorted axes a Reduce* node reduces: `axes` (default: all) with
/// negative values normalized; std::nullopt for the identity (no axes with
/// noop_with_empty_axes).
FailureOr<std::optional<std::vector<int64_t>>> reductionAxes(BuildContext &ctx) {
  int64_t rank = ctx.rank(0);
  std::vector<int64_t> all(rank);
  std::iota(all.begin(), all.end(), 0);
  bool noopWithoutAxes = ctx.attrs.getFlag("noop_with_empty_axes", false);
  auto axes = ctx.attrs.getInts("axes", {});
  if (axes.empty()) {
    if (noopWithoutAxes)
      return std::optional<std::vector<int64_t>>();
    axes = all;
  }
  if (rank == 0) {
    // A scalar reduces to itself (with the op's final map: L2 of x is |x|).
    ctx.attrs.invalid(ctx.node.opType + " of a scalar is not supported");
    return failure();
  }
  for (int64_t &axis : axes) {
    auto normalized = ctx.normalizeAxis("axes", axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    ctx.attrs.invalid("attribute 'axes' repeats an axis");
    return failure();
  }
  return std::optional<std::vector<int64_t>>(axes);
}

template <typename ReduceOp> FailureOr<Results> buildReduce(BuildContext &ctx) {
  bool keepdims = ctx.attrs.getFlag("keepdims", true);
  auto axes = reductionAxes(ctx);
  if (failed(axes))
    return failure();
  if (!*axes)
    return Results{ctx.operand(0)};
  return single(ctx.create<ReduceOp>(ctx.operand(0), ctx.ints(**axes), ctx.boolean(keepdims)));
}

/// ReduceLogSumExp in its overflow-free form, m + log(sum(exp(x - m))) with
/// m the maximum over the same axes: exp(x) alone overflows f32 from x = 89.
/// (A slice whose every element is -inf gives NaN here, not -inf.)
FailureOr<Results> buildReduceLogSumExp(BuildContext &ctx) {
  bool keepdims = ctx.attrs.getFlag("keepdims", true);
  auto axes = reductionAxes(ctx);
  if (failed(axes))
    return failure();
  Value input = ctx.operand(0);
  if (!*axes)
    return Results{input};
  auto parts = buildShiftedLogSumExp(ctx, input, **axes, keepdims);
  if (failed(parts))
    return failure();
  Value offset = parts->maximum;
  if (!keepdims) {
    // The maximum without its kept dimensions: -1 stands for the batch.
    std::vector<int64_t> shape;
    for (int64_t dim : llvm::cast<RankedTensorType>(parts->logSum.getType()).getShape())
      shape.push_back(ShapedType::isDynamic(dim) ? -1 : dim);
    auto reshaped = ctx.create<ReshapeOp>(parts->maximum, ctx.ints(shape));
    if (failed(reshaped))
      return failure();
    offset = *reshaped;
  }
  return single(ctx.create<AddOp>(parts->logSum, offset));
}

/// ArgMax, ArgMin: `axis` (default 0), `keepdims` (default 1),
/// `select_last_index` (opset 12+, default 0).
template <typename ArgOp> FailureOr<Results> buildArgReduce(BuildContext &ctx) {
  if (ctx.rank(0) == 0) {
    ctx.attrs.invalid(ctx.node.opType + " of a scalar is not supported");
    return failure();
  }
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 0), ctx.rank(0));
  bool keepdims = ctx.attrs.getFlag("keepdims", true);
  bool last = ctx.attrs.getFlag("select_last_index", false);
  if (failed(axis))
    return failure();
  return single(ctx.create<ArgOp>(ctx.operand(0), ctx.i64(*axis), ctx.boolean(keepdims), ctx.boolean(last)));
}

FailureOr<Results> buildReshape(BuildContext &ctx) {
  if (!ctx.attrs.has("shape")) {
    ctx.attrs.invalid("Reshape needs the 'shape' attribute (or a constant shape input)");
    return failure();
  }
  auto shape = ctx.attrs.getInts("shape", {});
  // allowzero = 1 makes a 0 in the ONNX shape an empty dimension; the
  // importer refused those when it made `shape`, whose 0s are fusec's
  // copies of the input's dimension (OnnxImporter.cpp reshapeTarget).
  const int64_t allowZero = ctx.attrs.getInt("allowzero", 0);
  if (allowZero != 0 && allowZero != 1) {
    ctx.attrs.invalid("attribute 'allowzero' is " + Twine(allowZero) + " (0 or 1)");
    return failure();
  }
  return single(ctx.create<ReshapeOp>(ctx.operand(0), ctx.ints(shape)));
}

FailureOr<Results> buildFlatten(BuildContext &ctx) {
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 1), ctx.rank(0),
                                /*inclusiveEnd=*/true);
  if (failed(axis))
    return failure();
  return single(ctx.create<FlattenOp>(ctx.operand(0), ctx.i64(*axis)));
}

FailureOr<Results> buildTranspose(BuildContext &ctx) {
  std::vector<int64_t> reversed;
  for (int64_t d = ctx.rank(0) - 1; d >= 0; --d)
    reversed.push_back(d);
  auto perm = ctx.attrs.getInts("perm", reversed);
  return single(ctx.create<TransposeOp>(ctx.operand(0), ctx.ints(perm)));
}

FailureOr<Results> buildConcat(BuildContext &ctx) {
  if (!ctx.attrs.has("axis")) {
    ctx.attrs.invalid("Concat needs the 'axis' attribute");
    return failure();
  }
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 0), ctx.rank(0));
  if (failed(axis))
    return failure();
  return single(ctx.create<ConcatOp>(ValueRange(ctx.node.operands), ctx.i64(*axis)));
}

/// Normalised axes of `name` (Slice's, Split's): in [0, rank), no repeats.
FailureOr<std::vector<int64_t>> normalizeAxes(BuildContext &ctx, StringRef name, std::vector<int64_t> axes,
                                              int64_t rank) {
  for (int64_t &axis : axes) {
    auto normalized = ctx.normalizeAxis(name, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    ctx.attrs.invalid("attribute '" + name + "' repeats an axis");
    return failure();
  }
  return axes;
}

/// A fuse.slice of `input` keeping [begin, begin + size) of `axis` and the
/// other axes whole.
FailureOr<Value> sliceAxis(BuildContext &ctx, Value input, int64_t axis, int64_t begin, int64_t size) {
  auto shape = llvm::cast<RankedTensorType>(input.getType()).getShape();
  std::vector<int64_t> starts(shape.size(), 0), ends(shape.size()), steps(shape.size(), 1);
  for (size_t d = 0; d < shape.size(); ++d)
    ends[d] = shape[d] == kDynamic ? rules::kSliceToEnd : shape[d];
  starts[axis] = begin;
  ends[axis] = begin + size;
  return ctx.create<SliceOp>(input, ctx.ints(starts), ctx.ints(ends), ctx.ints(steps), ArrayAttr());
}

FailureOr<Results> buildSlice(BuildContext &ctx) {
  auto shape = ctx.shape(0);
  int64_t rank = shape.size();
  if (!ctx.attrs.has("starts") || !ctx.attrs.has("ends")) {
    ctx.attrs.invalid("Slice needs 'starts' and 'ends' (constant inputs known at import)");
    return failure();
  }
  auto starts = ctx.attrs.getInts("starts", {});
  auto ends = ctx.attrs.getInts("ends", {});
  std::vector<int64_t> all(std::min<size_t>(starts.size(), rank));
  std::iota(all.begin(), all.end(), 0);
  auto axes = normalizeAxes(ctx, "axes", ctx.attrs.getInts("axes", all), rank);
  auto steps = ctx.attrs.getInts("steps", std::vector<int64_t>(starts.size(), 1));
  if (failed(axes))
    return failure();
  if (ends.size() != starts.size() || axes->size() != starts.size() || steps.size() != starts.size()) {
    ctx.attrs.invalid("Slice needs as many 'ends', 'axes' and 'steps' as 'starts' (" + Twine(starts.size()) +
                      "), got " + Twine(ends.size()) + ", " + Twine(axes->size()) + " and " + Twine(steps.size()));
    return failure();
  }
  std::vector<int64_t> fullStarts(rank, 0), fullEnds(rank), fullSteps(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    fullEnds[d] = shape[d] == kDynamic ? rules::kSliceToEnd : shape[d];
  // Ends that are a range's dimension (the importer names them, one entry
  // per end): to the end of an axis that is that dimension, else a prefix
  // as long as it, -2 - k naming symbols[k] (fuse.slice).
  SmallVector<StringRef> endSymbols;
  StringRef(ctx.attrs.getString("ends_symbols", "")).split(endSymbols, ',');
  SmallVector<StringRef> symbols;
  const SmallVector<int64_t> symbolic = fuse::symbolicShape(ctx.operand(0).getType());
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t d = (*axes)[i];
    if (steps[i] == 0) {
      ctx.attrs.invalid("Slice 'steps' entry " + Twine(i) + " is 0");
      return failure();
    }
    if (i < endSymbols.size() && !endSymbols[i].empty()) {
      std::optional<int64_t> symbol = fuse::symbolDim(endSymbols[i]);
      if (symbol && symbolic[d] == *symbol)
        continue; // the whole axis
      if (shape[d] == kDynamic || starts[i] != 0 || steps[i] != 1) {
        ctx.attrs.invalid("Slice of axis " + Twine(d) + " ending at the run-time dimension '" + endSymbols[i] +
                          "' is supported only from 0 in steps of 1 on an axis of static size");
        return failure();
      }
      auto known = llvm::find(symbols, endSymbols[i]);
      if (known == symbols.end())
        known = symbols.insert(symbols.end(), endSymbols[i]);
      fullEnds[d] = -2 - static_cast<int64_t>(known - symbols.begin());
      continue;
    }
    if (shape[d] == kDynamic) {
      // Exporters write "to the end" as INT64_MAX (or the batch size, which
      // the ONNX importer turns into kSliceToEnd).
      if (starts[i] != 0 || steps[i] != 1 || ends[i] < INT32_MAX) {
        ctx.attrs.invalid("Slice of the batch dimension (axis " + Twine(d) +
                          ") is not supported: fusec slices the batch only whole");
        return failure();
      }
      continue;
    }
    rules::SliceAxis axis = rules::normalizeSlice(shape[d], starts[i], ends[i], steps[i]);
    fullStarts[d] = axis.start;
    fullEnds[d] = axis.end;
    fullSteps[d] = axis.step;
  }
  return single(ctx.create<SliceOp>(ctx.operand(0), ctx.ints(fullStarts), ctx.ints(fullEnds), ctx.ints(fullSteps),
                                    symbols.empty() ? ArrayAttr() : ctx.builder.getStrArrayAttr(symbols)));
}

FailureOr<Results> buildSplit(BuildContext &ctx) {
  auto shape = ctx.shape(0);
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  int64_t extent = shape[*axis];
  if (extent == kDynamic) {
    ctx.attrs.invalid("Split along the batch dimension is not supported");
    return failure();
  }
  size_t parts = ctx.node.declaredResults;
  std::vector<int64_t> sizes = ctx.attrs.getInts("split", {});
  if (ctx.attrs.has("num_outputs") && ctx.attrs.getInt("num_outputs", 0) != static_cast<int64_t>(parts)) {
    ctx.attrs.invalid("Split 'num_outputs' is " + Twine(ctx.attrs.getInt("num_outputs", 0)) + ", but the node has " +
                      Twine(parts) + " outputs");
    return failure();
  }
  if (sizes.empty()) {
    // Equal parts, the last one smaller when the axis does not divide
    // (opset 18's rule; earlier opsets required equal parts).
    int64_t chunk = parts ? (extent + static_cast<int64_t>(parts) - 1) / static_cast<int64_t>(parts) : 0;
    for (size_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, extent - chunk * static_cast<int64_t>(i))));
  }
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0 || !checkedAdd(total, size)) {
      ctx.attrs.invalid("Split 'split' entry " + Twine(size) + " is invalid");
      return failure();
    }
    total += size;
  }
  if (sizes.size() != parts || total != extent) {
    ctx.attrs.invalid("Split sizes sum to " + Twine(total) + " in " + Twine(sizes.size()) + " parts, but axis " +
                      Twine(*axis) + " has " + Twine(extent) + " elements and the node " + Twine(parts) + " outputs");
    return failure();
  }
  Results results;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    auto part = sliceAxis(ctx, ctx.operand(0), *axis, begin, size);
    if (failed(part))
      return failure();
    results.push_back(*part);
    begin += size;
  }
  return results;
}

FailureOr<Results> buildGatherElements(BuildContext &ctx) {
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 0), ctx.rank(0));
  if (failed(axis))
    return failure();
  Type indexType = elementTypeOf(ctx.operand(1));
  if (!indexType.isInteger(64) && !indexType.isInteger(32))
    return emitError(ctx.loc()) << "GatherElements indices are " << indexType << "; they must be int64 or int32";
  return single(ctx.create<GatherElementsOp>(ctx.operand(0), ctx.operand(1), ctx.i64(*axis)));
}

FailureOr<Results> buildGather(BuildContext &ctx) {
  auto axis = ctx.normalizeAxis("axis", ctx.attrs.getInt("axis", 0), ctx.rank(0));
  if (failed(axis))
    return failure();
  Type indexType = elementTypeOf(ctx.operand(1));
  if (!indexType.isInteger(64) && !indexType.isInteger(32))
    return emitError(ctx.loc()) << "Gather indices are " << indexType << "; they must be int64 or int32";
  return single(ctx.create<GatherOp>(ctx.operand(0), ctx.operand(1), ctx.i64(*axis)));
}

FailureOr<Results> buildExpand(BuildContext &ctx) {
  if (!ctx.attrs.has("shape")) {
    ctx.attrs.invalid("Expand needs the 'shape' attribute (or a constant shape input)");
    return failure();
  }
  // The importer names the run-time dimensions of a shape holding them
  // (entries -2 - k) in "symbols", comma-separated (expandTarget).
  ArrayAttr symbols;
  if (ctx.attrs.has("symbols")) {
    SmallVector<StringRef> names;
    StringRef(ctx.attrs.getString("symbols", "")).split(names, ',');
    symbols = ctx.builder.getStrArrayAttr(names);
  }
  return single(ctx.create<ExpandOp>(ctx.operand(0), ctx.ints(ctx.attrs.getInts("shape", {})), symbols));
}

/// Resize (opset 10-18) and Upsample (7-9). Scales or sizes per axis (or
/// per listed axis with opset 18's `axes`); a size of -1 (the batch size the
/// importer found in a sizes tensor) keeps the axis.
FailureOr<Results> buildResize(BuildContext &ctx) {
  const bool upsample = ctx.node.opType == "Upsample";
  auto shape = ctx.shape(0);
  const size_t rank = shape.size();
  std::string mode = ctx.attrs.getString("mode", "nearest");
  // Upsample and Resize-10 map coordinates asymmetrically and round nearest
  // down.
  const bool legacy = upsample || ctx.node.opset < 11;
  std::string coordinates = legacy ? "asymmetric" : ctx.attrs.getString("coordinate_transformation_mode", "half_pixel");
  std::string nearest = legacy ? "floor" : ctx.attrs.getString("nearest_mode", "round_prefer_floor");
  if (mode == "bilinear") // Upsample's name in opset 7
    mode = "linear";
  const float cubicCoefficient = ctx.attrs.getFloat("cubic_coeff_a", -0.75f);
  const bool excludeOutside = ctx.attrs.getFlag("exclude_outside", false);
  ctx.attrs.ignore("extrapolation_value"); // tf_crop_and_resize only
  ctx.attrs.ignore("roi");                 // tf_crop_and_resize only
  ctx.attrs.acceptOnly("antialias", AttrValue::ofInt(0));
  ctx.attrs.acceptOnly("keep_aspect_ratio_policy", AttrValue::ofString("stretch"));
  if (coordinates == "tf_crop_and_resize") {
    ctx.attrs.unsupported("coordinate_transformation_mode", "fusec resizes without a region of interest");
    return failure();
  }
  std::vector<int64_t> all(rank);
  std::iota(all.begin(), all.end(), 0);
  auto axes = normalizeAxes(ctx, "axes", ctx.attrs.getInts("axes", all), rank);
  if (failed(axes))
    return failure();
  std::vector<float> givenScales;
  for (double value : ctx.attrs.getFloats("scales", {}))
    givenScales.push_back(narrowToFloat(value));
  std::vector<int64_t> givenSizes = ctx.attrs.getInts("sizes", {});
  if (givenScales.empty() == givenSizes.empty()) {
    ctx.attrs.invalid(ctx.node.opType + " needs either 'scales' or 'sizes' (constant inputs known at import)");
    return failure();
  }
  const size_t given = givenScales.empty() ? givenSizes.size() : givenScales.size();
  if (given != axes->size()) {
    ctx.attrs.invalid(ctx.node.opType + " has " + Twine(given) + " scales or sizes for " + Twine(axes->size()) +
                      " axes");
    return failure();
  }
  std::vector<int64_t> sizes(rank, -1);
  std::vector<float> scales(rank, 1.0f);
  for (size_t d = 0; d < rank; ++d)
    sizes[d] = shape[d] == kDynamic ? -1 : shape[d];
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t d = (*axes)[i];
    if (shape[d] == kDynamic) {
      bool kept = givenScales.empty() ? givenSizes[i] == -1 : givenScales[i] == 1.0f;
      if (!kept) {
        ctx.attrs.invalid(ctx.node.opType + " of the batch dimension (axis " + Twine(d) + ") is not supported");
        return failure();
      }
      continue;
    }
    if (givenScales.empty()) {
      sizes[d] = givenSizes[i];
      scales[d] = shape[d] > 0 ? float(double(givenSizes[i]) / double(shape[d])) : 1.0f;
    } else {
      scales[d] = givenScales[i];
      // ONNX: floor(input * scale), computed in double as the reference does.
      double extent = std::floor(double(shape[d]) * double(givenScales[i]));
      if (!(extent >= 0 && extent < 1e15)) {
        ctx.attrs.invalid(ctx.node.opType + " scale " + std::to_string(givenScales[i]) + " of axis " + Twine(d) +
                          " gives no valid extent");
        return failure();
      }
      sizes[d] = static_cast<int64_t>(extent);
    }
  }
  return single(ctx.create<ResizeOp>(ctx.operand(0), ctx.ints(sizes), ctx.builder.getDenseF32ArrayAttr(scales),
                                     ctx.builder.getStringAttr(mode), ctx.builder.getStringAttr(coordinates),
                                     ctx.builder.getStringAttr(nearest), ctx.f32(cubicCoefficient),
                                     ctx.builder.getBoolAttr(excludeOutside)));
}

struct OpSpec {
  size_t minOperands, maxOperands;
  std::function<FailureOr<Results>(BuildContext &)> build;
  /// Split: one result per ONNX output.
  bool multipleResults = false;
  /// Some operands are class indices (the losses' targets), kept integers;
  /// ops of other type rules say so through rules::typeRuleOf.
  bool indexOperands = false;
};

constexpr size_t kVariadic = ~size_t(0);

const llvm::StringMap<OpSpec> &opTable() {
  static const llvm::StringMap<OpSpec> table = {
      {"Conv", {2, 3, buildConv}},
      {"ConvTranspose", {2, 3, buildConvTranspose}},
      {"BatchNormalization", {5, 5, buildBatchNorm}},
      {"Relu", {1, 1, buildUnary<ReluOp>}},
      {"Sigmoid", {1, 1, buildUnary<SigmoidOp>}},
      {"Tanh", {1, 1, buildUnary<TanhOp>}},
      {"Erf", {1, 1, buildUnary<ErfOp>}},
      {"Sqrt", {1, 1, buildUnary<SqrtOp>}},
      {"Identity", {1, 1, buildIdentity}},
      {"Cast", {1, 1, buildCast}},
      {"QuantizeLinear", {2, 3, buildQuantizeLinear}},
      {"DequantizeLinear", {2, 3, buildDequantizeLinear}},
      {"QLinearConv", {8, 9, buildQLinearConv, false, /*indexOperands=*/true}},
      {"QLinearMatMul", {8, 8, buildQLinearMatMul, false, /*indexOperands=*/true}},
      {"Gelu", {1, 1, buildGelu}},
      {"Clip", {1, 1, buildClip}},
      {"Add", {2, 2, buildBinary<AddOp>}},
      {"Sub", {2, 2, buildBinary<SubOp>}},
      {"Mul", {2, 2, buildBinary<MulOp>}},
      {"Div", {2, 2, buildBinary<DivOp>}},
      {"Pow", {2, 2, buildBinary<PowOp>}},
      {"PRelu", {2, 2, buildPRelu}},
      {"Trilu", {1, 1, buildTrilu}},
      {"Pad", {1, 1, buildPad}},
      {"Gemm", {2, 3, buildGemm}},
      {"MatMul", {2, 2, buildBinary<MatMulOp>}},
      {"MaxPool", {1, 1, [](BuildContext &ctx) { return buildPool(ctx, true); }}},
      {"AveragePool", {1, 1, [](BuildContext &ctx) { return buildPool(ctx, false); }}},
      {"GlobalAveragePool", {1, 1, buildUnary<GlobalAveragePoolOp>}},
      {"Softmax", {1, 1, buildSoftmax</*kLogarithm=*/false>}},
      {"LogSoftmax", {1, 1, buildSoftmax</*kLogarithm=*/true>}},
      {"LayerNormalization", {2, 3, buildLayerNorm, /*multipleResults=*/true}},
      {"ReduceMean", {1, 1, buildReduce<ReduceMeanOp>}},
      {"ReduceSum", {1, 1, buildReduce<ReduceSumOp>}},
      {"ReduceMax", {1, 1, buildReduce<ReduceMaxOp>}},
      {"ReduceMin", {1, 1, buildReduce<ReduceMinOp>}},
      {"ReduceProd", {1, 1, buildReduce<ReduceProdOp>}},
      {"ReduceSumSquare", {1, 1, buildReduce<ReduceSumSquareOp>}},
      {"ReduceL1", {1, 1, buildReduce<ReduceL1Op>}},
      {"ReduceL2", {1, 1, buildReduce<ReduceL2Op>}},
      {"ReduceLogSum", {1, 1, buildReduce<ReduceLogSumOp>}},
      {"ReduceLogSumExp", {1, 1, buildReduceLogSumExp}},
      {"ArgMax", {1, 1, buildArgReduce<ArgMaxOp>}},
      {"ArgMin", {1, 1, buildArgReduce<ArgMinOp>}},
      {"Reshape", {1, 1, buildReshape}},
      {"Flatten", {1, 1, buildFlatten}},
      {"Transpose", {1, 1, buildTranspose}},
      {"Concat", {1, kVariadic, buildConcat}},
      {"Neg", {1, 1, buildUnary<NegOp>}},
      {"Exp", {1, 1, buildUnary<ExpOp>}},
      {"Floor", {1, 1, buildUnary<FloorOp>}},
      {"Ceil", {1, 1, buildUnary<CeilOp>}},
      {"Round", {1, 1, buildUnary<RoundOp>}},
      {"Sign", {1, 1, buildUnary<SignOp>}},
      {"Sin", {1, 1, buildUnary<SinOp>}},
      {"Cos", {1, 1, buildUnary<CosOp>}},
      {"Tan", {1, 1, buildUnary<TanOp>}},
      {"Asin", {1, 1, buildUnary<AsinOp>}},
      {"Acos", {1, 1, buildUnary<AcosOp>}},
      {"Atan", {1, 1, buildUnary<AtanOp>}},
      {"Sinh", {1, 1, buildUnary<SinhOp>}},
      {"Cosh", {1, 1, buildUnary<CoshOp>}},
      {"Asinh", {1, 1, buildUnary<AsinhOp>}},
      {"Acosh", {1, 1, buildUnary<AcoshOp>}},
      {"Atanh", {1, 1, buildUnary<AtanhOp>}},
      {"Log", {1, 1, buildUnary<LogOp>}},
      {"Abs", {1, 1, buildUnary<AbsOp>}},
      {"Reciprocal", {1, 1, buildUnary<ReciprocalOp>}},
      {"HardSwish", {1, 1, buildUnary<HardSwishOp>}},
      {"LeakyRelu", {1, 1, buildLeakyRelu}},
      {"HardSigmoid", {1, 1, buildHardSigmoid}},
      {"Min", {1, kVariadic, buildVariadic<MinOp>}},
      {"Max", {1, kVariadic, buildVariadic<MaxOp>}},
      {"Sum", {1, kVariadic, buildVariadic<AddOp>}},
      {"Mean", {1, kVariadic, buildMean}},
      {"Mod", {2, 2, buildMod}},
      {"Equal", {2, 2, buildBinary<EqualOp>}},
      {"Less", {2, 2, buildBinary<LessOp>}},
      {"LessOrEqual", {2, 2, buildBinary<LessOrEqualOp>}},
      {"Greater", {2, 2, buildBinary<GreaterOp>}},
      {"GreaterOrEqual", {2, 2, buildBinary<GreaterOrEqualOp>}},
      {"Not", {1, 1, buildUnary<NotOp>}},
      {"And", {2, 2, buildBinary<AndOp>}},
      {"Or", {2, 2, buildBinary<OrOp>}},
      {"Xor", {2, 2, buildBinary<XorOp>}},
      {"Where", {3, 3, buildWhere}},
      {"Slice", {1, 1, buildSlice}},
      {"ThresholdedRelu", {1, 1, buildThresholdedRelu}},
      {"NegativeLogLikelihoodLoss", {2, 3, buildNegativeLogLikelihoodLoss, false, /*indexOperands=*/true}},
      {"SoftmaxCrossEntropyLoss",
       {2, 3, buildSoftmaxCrossEntropyLoss, /*multipleResults=*/true, /*indexOperands=*/true}},
      {"Shrink", {1, 1, buildShrink}},
      {"IsNaN", {1, 1, buildIsNaN}},
      {"IsInf", {1, 1, buildIsInf}},
      {"Hardmax", {1, 1, buildHardmax}},
      {"DepthToSpace", {1, 1, buildDepthToSpace}},
      {"SpaceToDepth", {1, 1, buildSpaceToDepth}},
      {"Tile", {1, 1, buildTile}},
      {"OneHot", {1, 1, buildOneHot, false, /*indexOperands=*/true}},
      {"Split", {1, 1, buildSplit, /*multipleResults=*/true}},
      {"Gather", {2, 2, buildGather}},
      {"GatherElements", {2, 2, buildGatherElements}},
      {"Expand", {1, 1, buildExpand}},
      {"Resize", {1, 1, buildResize}},
      {"Upsample", {1, 1, buildResize}},
  };
  return table;
}

} // namespace

bool isSupportedOnnxOp(llvm::StringRef opType) { return opTable().count(opType); }

bool computesEveryOutput(llvm::StringRef opType) {
  auto it = opTable().find(opType);
  return it != opTable().end() && it->second.multipleResults;
}

bool takesIntegerOperands(llvm::StringRef opType) {
  auto it = opTable().find(opType);
  return (it != opTable().end() && it->second.indexOperands) ||
         rules::typeRuleOf(opType.str()) != rules::TypeRule::Float;
}

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> names;
  for (const auto &entry : opTable())
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

FailureOr<SmallVector<Value>> buildOnnxNode(OpBuilder &builder, const ImportedNode &node) {
  auto it = opTable().find(node.opType);
  if (it == opTable().end())
    return emitError(node.loc) << "unsupported op type '" << node.opType << "'";
  const OpSpec &spec = it->second;
  // Trailing omitted optional inputs do not count.
  size_t count = node.operands.size();
  while (count > 0 && !node.operands[count - 1])
    --count;
  if (count < spec.minOperands || count > spec.maxOperands) {
    auto diag = emitError(node.loc) << node.opType << " takes ";
    if (spec.maxOperands == kVariadic)
      diag << "at least " << spec.minOperands;
    else if (spec.minOperands == spec.maxOperands)
      diag << spec.minOperands;
    else
      diag << spec.minOperands << " to " << spec.maxOperands;
    return diag << " inputs, got " << count;
  }
  // Every supported op's optional inputs are trailing, so an omitted input
  // before the last given one is either required or (Concat) variadic.
  for (size_t i = 0; i < count; ++i)
    if (!node.operands[i])
      return emitError(node.loc) << node.opType << " input " << i << " is required";
  if (!takesIntegerOperands(node.opType))
    for (size_t i = 0; i < count; ++i)
      if (Type type = elementTypeOf(node.operands[i]); !isComputeElementType(type))
        return emitError(node.loc) << node.opType << " input " << i << " is " << type << ": fusec computes "
                                   << node.opType << " in floating point only (f32, f16, bf16)";
  if (node.numResults > 1 && !spec.multipleResults)
    return emitError(node.loc) << node.opType << " with " << node.numResults
                               << " outputs is not supported (inference form has one)";
  // Builders see the given inputs only: no trailing null placeholders.
  ImportedNode given = node;
  given.operands = node.operands.take_front(count);
  AttrReader attrs(given);
  BuildContext ctx{builder, given, attrs};
  auto results = spec.build(ctx);
  // A builder that failed early has not read every attribute; only a
  // successful build can tell which attributes are unknown.
  if (failed(results) || failed(attrs.finish()))
    return failure();
  return results;
}

} // namespace fusec::import
