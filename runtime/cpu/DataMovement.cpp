//===- DataMovement.cpp - Identity, Reshape, Flatten, Transpose, Concat, Pad -===//
//
// Ops that move elements without arithmetic. Reshape and Flatten only
// reinterpret the shape: the plan's values table records the result shape,
// so they copy the data unchanged.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "runtime/support/OpRules.h"

#include <algorithm>
#include <cstring>

namespace fusec::runtime::cpu {

namespace {

void copyData(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const int64_t count = numElements(x.shape);
  if (numElements(context.result().shape) != count)
    context.fail("result shape " + formatShape(context.result().shape) + " does not hold the " + std::to_string(count) +
                 " elements of " + formatShape(x.shape));
  std::copy(x.data, x.data + count, context.result().data);
}

void identity(const OpContext &context) {
  context.expectResultShape(context.operand(0).shape);
  copyData(context);
}

void transpose(const OpContext &context) {
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
  float *y = context.result().data;
  forEachRow(shape, strides, strides, [&](int64_t offset, int64_t source, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j)
      y[offset + j] = x.data[source + j * step];
  });
}

void concat(const OpContext &context) {
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
  float *y = context.result().data;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < context.numOperands(); ++i) {
      const ConstView &operand = context.operand(i);
      const int64_t block = numElements(operand.shape) / std::max<int64_t>(outer, 1);
      y = std::copy(operand.data + o * block, operand.data + (o + 1) * block, y);
    }
  }
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
  registry.add("Identity", OpInfo{identity, 1, 1});
  registry.add("Reshape", OpInfo{copyData, 1, 1});
  registry.add("Flatten", OpInfo{copyData, 1, 1});
  registry.add("Transpose", OpInfo{transpose, 1, 1});
  registry.add("Concat", OpInfo{concat, 1, SIZE_MAX});
  registry.add("Pad", OpInfo{pad, 1, 1});
}

} // namespace fusec::runtime::cpu
