//===- OpRules.h - Attribute rules shared by the dialect and the runtime -*- C++ -*-===//
//
// The fuse dialect's verifier (ir/ShapeInference.cpp), the importers, the
// plan verifier and the CPU backend must agree on which attribute values an
// op accepts and on the shapes they produce; otherwise fusec writes plans the
// runtime rejects, or the runtime runs ops the compiler would never emit.
// The rules live here once, in plain C++ that throws nothing: each returns an
// empty string when the values are valid and otherwise the reason, which the
// caller prefixes with the op or node it checked.
//
// All size arithmetic is overflow-checked (CheckedMath.h), so the rules are
// safe on hostile values such as a dilation of 2^62.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_OPRULES_H
#define FUSEC_SUPPORT_OPRULES_H

#include "support/CheckedMath.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

namespace fusec::rules {

/// An attribute that ONNX stores as an integer but means a boolean
/// (ceil_mode, count_include_pad, keepdims, transA, ...) must be 0 or 1.
inline std::string checkFlag(const char *name, int64_t value) {
  if (value == 0 || value == 1)
    return {};
  return std::string("'") + name + "' must be 0 or 1, got " + std::to_string(value);
}

/// Normalisation epsilons are added to a variance: they must be finite and
/// non-negative.
inline std::string checkEpsilon(double epsilon) {
  if (std::isfinite(epsilon) && epsilon >= 0)
    return {};
  std::ostringstream text;
  text << "'epsilon' must be finite and >= 0, got " << epsilon;
  return text.str();
}

/// One spatial axis of a sliding window (Conv, MaxPool, AveragePool).
struct WindowAxis {
  int64_t input = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t padBegin = 0;
  int64_t padEnd = 0;
};

/// Kernel sizes, strides and dilations must be >= 1 and pads >= 0.
inline std::string checkWindowAttributes(const WindowAxis &axis) {
  if (axis.kernel < 1)
    return "kernel size must be >= 1, got " + std::to_string(axis.kernel);
  if (axis.stride < 1)
    return "'strides' entries must be >= 1, got " + std::to_string(axis.stride);
  if (axis.dilation < 1)
    return "'dilations' entries must be >= 1, got " + std::to_string(axis.dilation);
  if (axis.padBegin < 0 || axis.padEnd < 0)
    return "'pads' entries must be >= 0, got " + std::to_string(axis.padBegin) + " and " + std::to_string(axis.padEnd);
  return {};
}

/// The output extent of a window along `axis` as ONNX and PyTorch define it:
/// floor (or, with `ceilMode`, ceil) of (padded input - span) / stride, plus
/// one, where span = dilation * (kernel - 1) + 1; with ceilMode a last window
/// that would start inside the end padding is dropped. Fails if the
/// attributes are invalid, the arithmetic overflows or the window does not
/// fit the padded input.
inline std::string windowOutputSize(const WindowAxis &axis, bool ceilMode, int64_t &outputs) {
  if (std::string error = checkWindowAttributes(axis); !error.empty())
    return error;
  if (axis.input < 0)
    return "input extent " + std::to_string(axis.input) + " is negative";
  const std::optional<int64_t> taps = checkedMul(axis.dilation, axis.kernel - 1);
  const std::optional<int64_t> span = taps ? checkedAdd(*taps, 1) : std::nullopt;
  const std::optional<int64_t> padded = checkedAdd(axis.input, axis.padBegin, axis.padEnd);
  if (!span || !padded)
    return "window of size " + std::to_string(axis.kernel) + " (dilation " + std::to_string(axis.dilation) + ", pads " +
           std::to_string(axis.padBegin) + "+" + std::to_string(axis.padEnd) + ") overflows the size arithmetic";
  if (*span > *padded)
    return "window of size " + std::to_string(axis.kernel) + " (dilation " + std::to_string(axis.dilation) + ", " +
           std::to_string(*span) + " wide) does not fit the input extent " + std::to_string(axis.input) +
           " with pads " + std::to_string(axis.padBegin) + "+" + std::to_string(axis.padEnd);
  const int64_t room = *padded - *span; // >= 0, no overflow
  int64_t count = room / axis.stride + (ceilMode && room % axis.stride != 0);
  if (ceilMode && count > 0) {
    // The last window starts at count * stride; if that is past the input
    // (or too large to represent) it would only see end padding.
    const std::optional<int64_t> lastStart = checkedMul(count, axis.stride);
    if (!lastStart || *lastStart >= axis.input + axis.padBegin)
      --count;
  }
  outputs = count + 1;
  return {};
}

/// Pad's `mode`.
inline std::string checkPadMode(const std::string &mode) {
  if (mode == "constant" || mode == "reflect" || mode == "edge")
    return {};
  return "'mode' must be \"constant\", \"reflect\" or \"edge\", got \"" + mode + "\"";
}

/// The padded extent of one axis of Pad: input + begin + end. Pads must be
/// non-negative (fusec does not crop), reflect pads smaller than the axis,
/// edge and reflect padding need a non-empty axis.
inline std::string padOutputSize(int64_t input, int64_t begin, int64_t end, const std::string &mode, int64_t &outputs) {
  if (std::string error = checkPadMode(mode); !error.empty())
    return error;
  if (begin < 0 || end < 0)
    return "negative pads (cropping) are not supported, got " + std::to_string(begin) + " and " + std::to_string(end);
  if (input < 0)
    return "input extent " + std::to_string(input) + " is negative";
  if ((begin != 0 || end != 0) && mode != "constant" && input == 0)
    return mode + " padding of an empty axis";
  if (mode == "reflect" && (begin >= input || end >= input) && (begin != 0 || end != 0))
    return "reflect pads must be smaller than the dimension (" + std::to_string(input) + "), got " +
           std::to_string(begin) + " and " + std::to_string(end);
  const std::optional<int64_t> padded = checkedAdd(input, begin, end);
  if (!padded || *padded > kMaxTensorBytes)
    return "pads " + std::to_string(begin) + "+" + std::to_string(end) + " make the axis of size " +
           std::to_string(input) + " implausibly large";
  outputs = *padded;
  return {};
}

/// One axis of Slice in the form the importer normalises ONNX's to: the
/// elements start, start + step, ... before `end`, with start and end clamped
/// into the axis as ONNX clamps them (step > 0: both in [0, extent];
/// step < 0: both in [-1, extent - 1], start -1 only on an empty axis). The batch axis is sliced only whole:
/// start 0, end kSliceToEnd, step 1.
constexpr int64_t kSliceToEnd = INT64_MAX;

struct SliceAxis {
  int64_t start = 0;
  int64_t end = kSliceToEnd;
  int64_t step = 1;
};

inline bool isWholeSlice(const SliceAxis &axis) { return axis.start == 0 && axis.end == kSliceToEnd && axis.step == 1; }

/// ONNX's Slice semantics for one axis of `extent` elements: negative start
/// and end count from the end, then both are clamped. The step must be
/// non-zero (checked by sliceOutputSize).
inline SliceAxis normalizeSlice(int64_t extent, int64_t start, int64_t end, int64_t step) {
  auto clamp = [](int64_t value, int64_t low, int64_t high) {
    return value < low ? low : (value > high ? high : value);
  };
  // value + extent cannot overflow for a negative value.
  if (start < 0)
    start += extent;
  if (end < 0)
    end += extent;
  if (step > 0)
    return {clamp(start, 0, extent), clamp(end, 0, extent), step};
  return {clamp(start, 0, extent - 1), clamp(end, -1, extent - 1), step};
}

/// The number of elements a normalised Slice axis selects from `extent`;
/// fails unless start and end are in the clamped ranges above, so that
/// every selected index lies inside the axis.
inline std::string sliceOutputSize(int64_t extent, const SliceAxis &axis, int64_t &outputs) {
  if (axis.step == 0)
    return "'steps' entries must not be 0";
  if (extent < 0)
    return "input extent " + std::to_string(extent) + " is negative";
  const bool forward = axis.step > 0;
  const int64_t low = forward ? 0 : -1;
  const int64_t high = forward ? extent : extent - 1;
  if (axis.start < low || axis.start > high || axis.end < low || axis.end > high)
    return "start " + std::to_string(axis.start) + " and end " + std::to_string(axis.end) + " with step " +
           std::to_string(axis.step) + " are not normalised for an axis of " + std::to_string(extent) +
           " (start and end in [" + std::to_string(low) + ", " + std::to_string(high) + "])";
  // Unsigned arithmetic: the step may be INT64_MIN.
  const uint64_t span =
      forward ? static_cast<uint64_t>(axis.end - axis.start) : static_cast<uint64_t>(axis.start - axis.end);
  const uint64_t stride = forward ? static_cast<uint64_t>(axis.step) : 0 - static_cast<uint64_t>(axis.step);
  const bool empty = forward ? axis.end <= axis.start : axis.end >= axis.start;
  outputs = empty ? 0 : static_cast<int64_t>((span - 1) / stride + 1);
  return {};
}

/// Resize's modes: `mode` nearest or linear; the coordinate transformations
/// of ONNX opsets 11-18 except tf_crop_and_resize; the nearest roundings.
inline std::string checkResizeModes(const std::string &mode, const std::string &coordinates,
                                    const std::string &nearest) {
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return "'mode' must be \"nearest\", \"linear\" or \"cubic\", got \"" + mode + "\"";
  if (coordinates != "half_pixel" && coordinates != "pytorch_half_pixel" && coordinates != "align_corners" &&
      coordinates != "asymmetric" && coordinates != "tf_half_pixel_for_nn")
    return "'coordinate_transformation_mode' must be \"half_pixel\", \"pytorch_half_pixel\", \"align_corners\", "
           "\"asymmetric\" or \"tf_half_pixel_for_nn\", got \"" +
           coordinates + "\"";
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" && nearest != "ceil")
    return "'nearest_mode' must be \"round_prefer_floor\", \"round_prefer_ceil\", \"floor\" or \"ceil\", got \"" +
           nearest + "\"";
  return {};
}

/// Cubic Resize's four taps around source coordinate `x` on one axis, as
/// ONNX's reference places and weighs them: the inputs at first - 1 + i
/// (i = 0..3, read clamped into the axis) with the weights of Keys' cubic
/// convolution kernel with coefficient `a` at their distances from `x`. An
/// integral `x` takes first = x - 1 (the reference's ratio of 1), which
/// weighs its own input 1 and the others 0.
struct CubicTaps {
  int64_t first = 0;
  double weight[4] = {0, 0, 0, 0};
};
inline CubicTaps resizeCubicTaps(double x, double a) {
  CubicTaps taps;
  double base = std::floor(x);
  double s = x - base;
  if (s == 0.0) {
    s = 1.0;
    base -= 1.0;
  }
  taps.first = static_cast<int64_t>(base);
  const double near = 1.0 - s, far = 2.0 - s, back = 1.0 + s;
  taps.weight[0] = ((a * back - 5.0 * a) * back + 8.0 * a) * back - 4.0 * a;
  taps.weight[1] = ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0;
  taps.weight[2] = ((a + 2.0) * near - (a + 3.0)) * near * near + 1.0;
  taps.weight[3] = ((a * far - 5.0 * a) * far + 8.0 * a) * far - 4.0 * a;
  return taps;
}

/// One axis of Resize: `scale` is the factor of the coordinate transform
/// (ONNX's scale, or output / input extent when sizes were given); it must
/// be finite and positive, and the extents positive.
inline std::string checkResizeAxis(int64_t input, int64_t output, double scale) {
  if (!(std::isfinite(scale) && scale > 0)) {
    std::ostringstream text;
    text << "'scales' entries must be finite and > 0, got " << scale;
    return text.str();
  }
  if (input < 1 || output < 1)
    return "extents must be >= 1, got input " + std::to_string(input) + " and output " + std::to_string(output);
  return {};
}

/// The input coordinate output index `x` of an axis maps to (ONNX Resize;
/// the reference's output width is scale * input, not the rounded extent).
inline double resizeSourceCoordinate(const std::string &coordinates, int64_t x, double scale, int64_t input) {
  const double outputWidth = scale * static_cast<double>(input);
  if (coordinates == "align_corners")
    return outputWidth == 1 ? 0.0 : static_cast<double>(x) * static_cast<double>(input - 1) / (outputWidth - 1);
  if (coordinates == "asymmetric")
    return static_cast<double>(x) / scale;
  if (coordinates == "tf_half_pixel_for_nn")
    return (static_cast<double>(x) + 0.5) / scale;
  if (coordinates == "pytorch_half_pixel" && outputWidth == 1)
    return -0.5;
  return (static_cast<double>(x) + 0.5) / scale - 0.5;
}

/// The input index nearest-mode Resize reads for source coordinate `x`,
/// clamped into [0, input).
inline int64_t resizeNearestIndex(const std::string &nearest, double x, int64_t input) {
  double rounded = nearest == "round_prefer_floor"  ? std::ceil(x - 0.5)
                   : nearest == "round_prefer_ceil" ? std::floor(x + 0.5)
                   : nearest == "floor"             ? std::floor(x)
                                                    : std::ceil(x);
  if (rounded < 0)
    return 0;
  if (rounded > static_cast<double>(input - 1))
    return input - 1;
  return static_cast<int64_t>(rounded);
}

/// The element types an op takes and gives. The importers, the plan
/// verifier and the CPU backend all ask here, so they agree on which ops
/// compute on integers and bools.
enum class TypeRule {
  /// f32, f16 or bf16 operands and results only.
  Float,
  /// Operands of any one type, an i1 result (Equal, Less, ...).
  Compare,
  /// i1 operands and result (Not, And, Or, Xor).
  Logical,
  /// Where: an i1 condition, then two operands of the result's type.
  Select,
  /// Moves elements of any one type unchanged (Reshape, Transpose, Slice, ...).
  Move,
  /// Gather, GatherElements: data of the result's type, integer (i64 or
  /// i32) indices.
  Gather,
  /// ArgMax, ArgMin: a float operand, an i64 result.
  Index,
  /// Cast (and CastLike, which the importer makes a Cast): any type to any type.
  Cast,
  /// QuantizeLinear: a float input, an f32 scale, a zero point of the
  /// result's quantized type (i8, u8).
  Quantize,
  /// DequantizeLinear: a quantized input and zero point of one type, an f32
  /// scale, an f32 result.
  Dequantize,
};

inline TypeRule typeRuleOf(const std::string &op) {
  if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual")
    return TypeRule::Compare;
  if (op == "Not" || op == "And" || op == "Or" || op == "Xor")
    return TypeRule::Logical;
  if (op == "Where")
    return TypeRule::Select;
  if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Transpose" || op == "Concat" || op == "Slice" ||
      op == "Split" || op == "Expand" || op == "Squeeze" || op == "Unsqueeze" || op == "Trilu")
    return TypeRule::Move;
  if (op == "Gather" || op == "GatherElements")
    return TypeRule::Gather;
  if (op == "ArgMax" || op == "ArgMin")
    return TypeRule::Index;
  if (op == "Cast" || op == "CastLike")
    return TypeRule::Cast;
  if (op == "QuantizeLinear")
    return TypeRule::Quantize;
  if (op == "DequantizeLinear")
    return TypeRule::Dequantize;
  return TypeRule::Float;
}

/// fuse.attention: query [..., S, D], key [..., Sk, D], value [..., Sk, Dv]
/// with equal leading dimensions; causal attention needs S <= Sk (row i
/// attends to keys j <= i + Sk - S, so an earlier row would see no key); the
/// scale must be finite. `Dims` is any container of int64_t (ArrayRef, vector).
template <typename Dims>
std::string checkAttention(const Dims &query, const Dims &key, const Dims &value, bool causal, double scale) {
  const size_t rank = query.size();
  if (rank < 2 || key.size() != rank || value.size() != rank)
    return "query, key and value must have one rank >= 2, got ranks " + std::to_string(rank) + ", " +
           std::to_string(key.size()) + " and " + std::to_string(value.size());
  for (size_t d = 0; d + 2 < rank; ++d)
    if (key[d] != query[d] || value[d] != query[d])
      return "query, key and value differ in leading dimension " + std::to_string(d) + ": " + std::to_string(query[d]) +
             ", " + std::to_string(key[d]) + " and " + std::to_string(value[d]);
  if (key[rank - 1] != query[rank - 1])
    return "key head dimension " + std::to_string(key[rank - 1]) + " differs from the query's " +
           std::to_string(query[rank - 1]);
  if (value[rank - 2] != key[rank - 2])
    return "value has " + std::to_string(value[rank - 2]) + " rows, the key sequence length is " +
           std::to_string(key[rank - 2]);
  if (causal && query[rank - 2] > key[rank - 2])
    return "causal attention needs a query length (" + std::to_string(query[rank - 2]) + ") <= the key length (" +
           std::to_string(key[rank - 2]) + "): earlier rows would attend to no key";
  if (!std::isfinite(scale)) {
    std::ostringstream text;
    text << "'scale' must be finite, got " << scale;
    return text.str();
  }
  return {};
}

} // namespace fusec::rules

#endif // FUSEC_SUPPORT_OPRULES_H
