//===- DataMovement.cpp - Reshape, Transpose, Slice, Gather, ... ---------===//
//
// Ops that move elements without arithmetic. Reshape and Flatten only
// reinterpret the shape: the plan's values table records the result shape,
// so they copy the data unchanged. All but Pad are typed (OpInfo::typed):
// they move float values (in `data`) and integer and bool values (in
// `integers`) alike, and their operands have the result's type (Gather's
// indices aside).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/OpRules.h"

#include <algorithm>
#include <cstring>

namespace fusec::runtime::cpu {

namespace {

/// The storage a view's elements live in: `data` for floats, `integers` for
/// integers and bools.
template <typename T> const T *elementsOf(const ConstView &view);
template <> const float *elementsOf<float>(const ConstView &view) { return view.data; }
template <> const int64_t *elementsOf<int64_t>(const ConstView &view) { return view.integers; }
template <typename T> T *elementsOf(const MutableView &view);
template <> float *elementsOf<float>(const MutableView &view) { return view.data; }
template <> int64_t *elementsOf<int64_t>(const MutableView &view) { return view.integers; }

/// Runs the float or the integer instance of an op, after checking that the
/// first `moved` operands (all when SIZE_MAX) have the result's type.
template <void (*FloatOp)(const OpContext &), void (*IntegerOp)(const OpContext &), size_t moved = SIZE_MAX>
void typed(const OpContext &context) {
  const ElementType type = context.result().type;
  for (size_t i = 0; i < context.numOperands() && i < moved; ++i)
    if (context.operand(i).type != type)
      context.fail("operand " + std::to_string(i) + " is " + elementTypeName(context.operand(i).type) +
                   ", the result " + elementTypeName(type) + ": the op moves elements without converting them");
  if (isFloatElementType(type))
    FloatOp(context);
  else
    IntegerOp(context);
}

template <typename T> void copyData(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const int64_t count = numElements(x.shape);
  if (numElements(context.result().shape) != count)
    context.fail("result shape " + formatShape(context.result().shape) + " does not hold the " + std::to_string(count) +
                 " elements of " + formatShape(x.shape));
  std::copy(elementsOf<T>(x), elementsOf<T>(x) + count, elementsOf<T>(context.result()));
}

template <typename T> void identity(const OpContext &context) {
  context.expectResultShape(context.operand(0).shape);
  copyData<T>(context);
}

template <typename T> void transpose(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  const std::vector<int64_t> perm = context.intsAttr("perm", rank);
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      context.fail("perm must be a permutation of 0.." + std::to_string(rank) + "-1");
    seen[p] = true;
  }
  const Strides inStrides = contiguousStrides(x.shape);
  Shape shape(rank);
  Strides strides(rank);
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = x.shape[perm[d]];
    strides[d] = inStrides[perm[d]];
  }
  context.expectResultShape(shape);
  const int64_t rowLength = rank == 0 ? 1 : shape.back();
  const int64_t step = rank == 0 ? 0 : strides.back();
  T *y = elementsOf<T>(context.result());
  const T *data = elementsOf<T>(x);
  forEachRow(shape, strides, strides, [&](int64_t offset, int64_t source, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j)
      y[offset + j] = data[source + j * step];
  });
}

template <typename T> void concat(const OpContext &context) {
  const Shape &first = context.operand(0).shape;
  const int64_t axis = context.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(first.size()))
    context.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(first.size()));
  Shape shape = first;
  shape[axis] = 0;
  for (size_t i = 0; i < context.numOperands(); ++i) {
    const Shape &operand = context.operand(i).shape;
    Shape expected = first;
    expected[axis] = operand.size() == first.size() ? operand[axis] : 0;
    if (operand != expected)
      context.fail("operand " + std::to_string(i) + " shape " + formatShape(operand) + " does not match " +
                   formatShape(first) + " outside axis " + std::to_string(axis));
    shape[axis] += operand[axis];
  }
  context.expectResultShape(shape);

  // Each operand contributes one contiguous block per outer index.
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  T *y = elementsOf<T>(context.result());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < context.numOperands(); ++i) {
      const ConstView &operand = context.operand(i);
      const int64_t block = numElements(operand.shape) / std::max<int64_t>(outer, 1);
      y = std::copy(elementsOf<T>(operand) + o * block, elementsOf<T>(operand) + (o + 1) * block, y);
    }
  }
}

template <typename T> void slice(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  const std::vector<int64_t> starts = context.intsAttr("starts", rank);
  const std::vector<int64_t> ends = context.intsAttr("ends", rank);
  const std::vector<int64_t> steps = context.intsAttr("steps", rank);
  // The shapes here have the batch substituted, so the rule checks every
  // axis against its real extent; a whole-batch slice is the full axis.
  Shape shape(rank);
  Strides strides(rank);
  int64_t base = 0;
  const Strides inStrides = contiguousStrides(x.shape);
  for (size_t d = 0; d < rank; ++d) {
    rules::SliceAxis axis{starts[d], ends[d], steps[d]};
    if (rules::isWholeSlice(axis))
      axis.end = x.shape[d];
    context.check(rules::sliceOutputSize(x.shape[d], axis, shape[d]));
    strides[d] = inStrides[d] * axis.step;
    if (shape[d] > 0)
      base += inStrides[d] * axis.start;
  }
  context.expectResultShape(shape);
  T *y = elementsOf<T>(context.result());
  const T *data = elementsOf<T>(x) + base;
  const int64_t rowLength = rank == 0 ? 1 : shape.back();
  const int64_t step = rank == 0 ? 0 : strides.back();
  forEachRow(shape, strides, strides, [&](int64_t offset, int64_t source, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j)
      y[offset + j] = data[source + j * step];
  });
}

/// Gather's and GatherElements' `axis`, after checking it and the indices'
/// element type.
int64_t gatheredAxis(const OpContext &context) {
  const ConstView &indices = context.operand(1);
  if (indices.type != ElementType::I64 && indices.type != ElementType::I32)
    context.fail(std::string("indices are ") + elementTypeName(indices.type) + ", not i64 or i32");
  const int64_t axis = context.intAttr("axis");
  const int64_t rank = static_cast<int64_t>(context.operand(0).shape.size());
  if (axis < 0 || axis >= rank)
    context.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis;
}

template <typename T> void gather(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const ConstView &indices = context.operand(1);
  const int64_t axis = gatheredAxis(context);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape shape(x.shape.begin(), x.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  context.expectResultShape(shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= x.shape[d];
  const int64_t extent = x.shape[axis];
  const int64_t count = numElements(indices.shape);
  const T *data = elementsOf<T>(x);
  T *y = elementsOf<T>(context.result());
  for (int64_t i = 0; i < count; ++i) {
    const int64_t index = indices.integers[i];
    if (index < -extent || index >= extent)
      context.fail("index " + std::to_string(index) + " (element " + std::to_string(i) +
                   " of the indices) is out of range for an axis of " + std::to_string(extent));
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < count; ++i) {
      const int64_t index = indices.integers[i] < 0 ? indices.integers[i] + extent : indices.integers[i];
      const T *row = data + (o * extent + index) * inner;
      std::copy(row, row + inner, y + (o * count + i) * inner);
    }
}

/// The result at c is the input at c with c[axis] replaced by indices[c].
template <typename T> void gatherElements(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const ConstView &indices = context.operand(1);
  const int64_t axis = gatheredAxis(context);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (static_cast<int64_t>(indices.shape.size()) != rank)
    context.fail("indices " + formatShape(indices.shape) + " must have the rank of the input " + formatShape(x.shape));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices.shape[d] > x.shape[d])
      context.fail("indices " + formatShape(indices.shape) + " are longer than the input " + formatShape(x.shape) +
                   " along axis " + std::to_string(d));
  context.expectResultShape(indices.shape);
  // Row-major strides of the input.
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * x.shape[d];
  const int64_t extent = x.shape[axis];
  const int64_t count = numElements(indices.shape);
  const T *data = elementsOf<T>(x);
  T *y = elementsOf<T>(context.result());
  std::vector<int64_t> coords(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = indices.integers[i];
    if (index < -extent || index >= extent)
      context.fail("index " + std::to_string(index) + " (element " + std::to_string(i) +
                   " of the indices) is out of range for an axis of " + std::to_string(extent));
    if (index < 0)
      index += extent;
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (d == axis ? index : coords[d]) * strides[d];
    y[i] = data[offset];
    // The next coordinates of the indices, row-major.
    for (int64_t d = rank - 1; d >= 0 && ++coords[d] == indices.shape[d]; --d)
      coords[d] = 0;
  }
}

/// Trilu: each matrix of the last two dimensions keeps element (i, j)
/// where j - i >= k (upper) or j - i <= k (lower), and is zero elsewhere.
template <typename T> void trilu(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  if (rank < 2)
    context.fail("needs a tensor of rank 2 or more");
  context.expectResultShape(x.shape);
  const bool upper = context.flagAttr("upper");
  const int64_t k = context.intAttr("k"), rows = x.shape[rank - 2], columns = x.shape[rank - 1];
  const int64_t count = numElements(x.shape);
  const T *data = elementsOf<T>(x);
  T *y = elementsOf<T>(context.result());
  for (int64_t e = 0; e < count; ++e) {
    const int64_t i = (e / columns) % rows, j = e % columns;
    y[e] = (upper ? j - i >= k : j - i <= k) ? data[e] : T(0);
  }
}

template <typename T> void expand(const OpContext &context) {
  const ConstView &x = context.operand(0);
  // 1 keeps the input's extent; -1 is the batch size, which the plan's
  // result shape (batch substituted) holds at that position.
  const std::vector<int64_t> attribute = context.intsAttr("shape");
  const Shape &result = context.result().shape;
  Shape target(attribute.begin(), attribute.end());
  for (size_t i = 0; i < target.size(); ++i)
    if (target[i] == -1)
      target[i] = i + result.size() >= target.size() ? result[i + result.size() - target.size()] : -1;
  const std::optional<Shape> broadcast = broadcastShapes(x.shape, target);
  if (!broadcast || std::find(target.begin(), target.end(), int64_t(-1)) != target.end())
    context.fail("cannot expand " + formatShape(x.shape) + " to " + formatShape(target));
  context.expectResultShape(*broadcast);
  const Shape &shape = *broadcast;
  const Strides strides = broadcastStrides(x.shape, shape);
  T *y = elementsOf<T>(context.result());
  const T *data = elementsOf<T>(x);
  const int64_t rowLength = shape.empty() ? 1 : shape.back();
  const int64_t step = shape.empty() ? 0 : strides.back();
  forEachRow(shape, strides, strides, [&](int64_t offset, int64_t source, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j)
      y[offset + j] = data[source + j * step];
  });
}

/// The input index that output index `out` of a dimension reads, or -1 for
/// the constant. `begin` is that dimension's leading pad.
int64_t padSource(const OpContext &context, const std::string &mode, int64_t out, int64_t begin, int64_t extent) {
  const int64_t index = out - begin;
  if (index >= 0 && index < extent)
    return index;
  if (mode == "constant")
    return -1;
  if (extent == 0)
    context.fail("cannot pad an empty dimension in mode '" + mode + "'");
  if (mode == "edge")
    return std::clamp<int64_t>(index, 0, extent - 1);
  // reflect: mirror around the edges without repeating them, i.e. the
  // sequence is periodic with period 2 * (extent - 1).
  if (extent == 1)
    return 0;
  const int64_t period = 2 * (extent - 1);
  const int64_t phase = ((index % period) + period) % period;
  return phase < extent ? phase : period - phase;
}

void pad(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  const std::vector<int64_t> pads = context.intsAttr("pads", 2 * rank);
  const std::string mode = context.stringAttr("mode");
  context.check(rules::checkPadMode(mode));
  const float value = mode == "constant" ? context.floatAttr("value") : 0.0f;

  // The result shape is checked against the plan's before anything is sized
  // by it: hostile pads must not allocate or loop over 2^31 entries.
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    const std::string error = rules::padOutputSize(x.shape[d], pads[d], pads[d + rank], mode, shape[d]);
    if (!error.empty())
      context.fail("axis " + std::to_string(d) + ": " + error);
  }
  context.expectResultShape(shape);
  std::vector<std::vector<int64_t>> sources(rank);
  for (size_t d = 0; d < rank; ++d)
    for (int64_t out = 0; out < shape[d]; ++out)
      sources[d].push_back(padSource(context, mode, out, pads[d], x.shape[d]));
  float *y = context.result().data;
  if (rank == 0) {
    y[0] = x.data[0];
    return;
  }
  if (numElements(shape) == 0)
    return;

  // Walk the output row by row; a row whose outer index falls in constant
  // padding is all `value`.
  const Strides inStrides = contiguousStrides(x.shape);
  const std::vector<int64_t> &lastSources = sources.back();
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t offset = 0;; offset += shape.back()) {
    int64_t base = 0;
    bool constantRow = false;
    for (size_t d = 0; d + 1 < rank; ++d) {
      const int64_t source = sources[d][index[d]];
      constantRow |= source < 0;
      base += source * inStrides[d];
    }
    for (int64_t j = 0; j < shape.back(); ++j)
      y[offset + j] = constantRow || lastSources[j] < 0 ? value : x.data[base + lastSources[j]];
    size_t d = rank - 1;
    while (d > 0 && ++index[d - 1] == shape[d - 1])
      index[--d] = 0;
    if (d == 0)
      return;
  }
}

} // namespace

void registerDataMovementOps(OpRegistry &registry) {
  constexpr bool kTyped = true;
  registry.add("Identity", OpInfo{typed<identity<float>, identity<int64_t>>, 1, 1, kTyped});
  registry.add("Reshape", OpInfo{typed<copyData<float>, copyData<int64_t>>, 1, 1, kTyped});
  registry.add("Flatten", OpInfo{typed<copyData<float>, copyData<int64_t>>, 1, 1, kTyped});
  registry.add("Transpose", OpInfo{typed<transpose<float>, transpose<int64_t>>, 1, 1, kTyped});
  registry.add("Concat", OpInfo{typed<concat<float>, concat<int64_t>>, 1, SIZE_MAX, kTyped});
  registry.add("Slice", OpInfo{typed<slice<float>, slice<int64_t>>, 1, 1, kTyped});
  registry.add("Gather", OpInfo{typed<gather<float>, gather<int64_t>, 1>, 2, 2, kTyped});
  registry.add("GatherElements", OpInfo{typed<gatherElements<float>, gatherElements<int64_t>, 1>, 2, 2, kTyped});
  registry.add("Expand", OpInfo{typed<expand<float>, expand<int64_t>>, 1, 1, kTyped});
  registry.add("Trilu", OpInfo{typed<trilu<float>, trilu<int64_t>>, 1, 1, kTyped});
  registry.add("Pad", OpInfo{pad, 1, 1});
}

} // namespace fusec::runtime::cpu
