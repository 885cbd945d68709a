//===- Reduction.cpp - ReduceSum, ReduceMean, ..., ArgMax, ArgMin ----------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"
#include "support/Reductions.h"

namespace fusec::runtime::cpu {

namespace {

template <reductions::Kind kind> void reduce(const OpContext &context) {
  const ConstView &x = context.operand(0);
  const size_t rank = x.shape.size();
  std::vector<int64_t> axes = context.intsAttr("axes");
  const bool keepDims = context.flagAttr("keepdims");
  // As in ONNX, no axes means all of them.
  if (axes.empty())
    for (size_t d = 0; d < rank; ++d)
      axes.push_back(static_cast<int64_t>(d));
  std::vector<bool> reduced(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(rank) || (i > 0 && axes[i] <= axes[i - 1]))
      context.fail("axes must be sorted, unique and in [0, " + std::to_string(rank) + ")");
    reduced[axes[i]] = true;
  }

  // Combine every input element into its output slot: the input is walked
  // in C order and the output is read through strides that are 0 along the
  // reduced dimensions. Partial values are doubles.
  Shape kept, resultShape;
  for (size_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x.shape[d]);
    if (!reduced[d] || keepDims)
      resultShape.push_back(kept.back());
  }
  context.expectResultShape(resultShape);
  const Strides outStrides = broadcastStrides(kept, x.shape);
  std::vector<double> values(static_cast<size_t>(numElements(kept)), reductions::initial(kind));
  const int64_t rowLength = rank == 0 ? 1 : x.shape.back();
  const int64_t step = rank == 0 ? 0 : outStrides.back();
  forEachRow(x.shape, outStrides, outStrides, [&](int64_t offset, int64_t outOffset, int64_t) {
    for (int64_t j = 0; j < rowLength; ++j) {
      double &value = values[outOffset + j * step];
      value = reductions::combine(kind, value, reductions::contribution(kind, x.data[offset + j]));
    }
  });
  double count = 1.0;
  for (size_t d = 0; d < rank; ++d)
    if (reduced[d])
      count *= static_cast<double>(x.shape[d]);
  for (size_t i = 0; i < values.size(); ++i)
    context.result().data[i] = static_cast<float>(reductions::finish(kind, values[i], count));
}

/// ArgMax (largest) and ArgMin: the i64 index along `axis` that
/// reductions::argPrefers chooses.
template <bool largest> void argReduce(const OpContext &context) {
  const ConstView &x = context.operand(0);
  if (!isFloatElementType(x.type))
    context.fail(std::string("the input is ") + elementTypeName(x.type) + ", not a float");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = context.intAttr("axis");
  if (axis < 0 || axis >= rank)
    context.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  const bool keepDims = context.flagAttr("keepdims"), last = context.flagAttr("select_last_index");
  Shape resultShape;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis || keepDims)
      resultShape.push_back(d == axis ? 1 : x.shape[d]);
    if (d < axis)
      outer *= x.shape[d];
    if (d > axis)
      inner *= x.shape[d];
  }
  context.expectResultShape(resultShape);
  if (context.result().type != ElementType::I64)
    context.fail(std::string("the result is ") + elementTypeName(context.result().type) + ", not i64");
  const int64_t extent = x.shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double best = 0;
      int64_t bestIndex = -1;
      for (int64_t k = 0; k < extent; ++k) {
        const double value = x.data[(o * extent + k) * inner + i];
        if (reductions::argPrefers(largest, last, value, k, best, bestIndex)) {
          best = value;
          bestIndex = k;
        }
      }
      context.result().integers[o * inner + i] = bestIndex;
    }
}

} // namespace

void registerReductionOps(OpRegistry &registry) {
  using reductions::Kind;
  registry.add("ReduceSum", OpInfo{reduce<Kind::Sum>, 1, 1});
  registry.add("ReduceMean", OpInfo{reduce<Kind::Mean>, 1, 1});
  registry.add("ReduceMax", OpInfo{reduce<Kind::Max>, 1, 1});
  registry.add("ReduceMin", OpInfo{reduce<Kind::Min>, 1, 1});
  registry.add("ReduceProd", OpInfo{reduce<Kind::Prod>, 1, 1});
  registry.add("ReduceSumSquare", OpInfo{reduce<Kind::SumSquare>, 1, 1});
  registry.add("ReduceL1", OpInfo{reduce<Kind::L1>, 1, 1});
  registry.add("ReduceL2", OpInfo{reduce<Kind::L2>, 1, 1});
  registry.add("ReduceLogSum", OpInfo{reduce<Kind::LogSum>, 1, 1});
  // Typed: a float input and an i64 result.
  registry.add("ArgMax", OpInfo{argReduce<true>, 1, 1, /*typed=*/true});
  registry.add("ArgMin", OpInfo{argReduce<false>, 1, 1, /*typed=*/true});
}

} // namespace fusec::runtime::cpu
