//===- StridedView.cpp - Data movement as addressing ----------------------===//
#include "ir/StridedView.h"

#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec::fuse {

namespace {
/// The shape with its symbols: kDynamic is the batch (ShapeUtils.h).
SmallVector<int64_t> shapeOf(Value value) { return symbolicShape(value.getType()); }
bool isBatch(int64_t dim) { return dim == ShapedType::kDynamic; }
/// A run-time dimension other than the batch: a range, which no view spans.
bool isRange(int64_t dim) { return isSymbolic(dim) && !isBatch(dim); }

/// `value` times the extent `dim` (the batch or a size), if that is still
/// linear in the batch and fits 64 bits.
std::optional<BatchLinear> times(BatchLinear value, int64_t dim) {
  if (isBatch(dim)) {
    if (!value.isFixed())
      return std::nullopt;
    return BatchLinear{value.fixed, 0};
  }
  BatchLinear result;
  if (__builtin_mul_overflow(value.perBatch, dim, &result.perBatch) ||
      __builtin_mul_overflow(value.fixed, dim, &result.fixed))
    return std::nullopt;
  return result;
}

std::optional<BatchLinear> plus(BatchLinear a, BatchLinear b) {
  BatchLinear result;
  if (__builtin_add_overflow(a.perBatch, b.perBatch, &result.perBatch) ||
      __builtin_add_overflow(a.fixed, b.fixed, &result.fixed))
    return std::nullopt;
  return result;
}
} // namespace

std::optional<StridedView> contiguousView(ArrayRef<int64_t> shape) {
  StridedView view;
  view.strides.resize(shape.size());
  BatchLinear stride{0, 1};
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0 || isRange(shape[d]))
      return std::nullopt;
    view.strides[d] = stride;
    std::optional<BatchLinear> next = times(stride, shape[d]);
    if (!next)
      return std::nullopt;
    stride = *next;
  }
  return view;
}

std::optional<StridedView> reshapeView(const StridedView &view, ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  // Extent-1 dimensions carry no addressing: dropped from `from`, and given
  // stride 0 in `to` (any stride reads the one element).
  SmallVector<int64_t> dims;
  SmallVector<BatchLinear> strides;
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] == 0 || isRange(from[d]))
      return std::nullopt;
    if (from[d] != 1) {
      dims.push_back(from[d]);
      strides.push_back(view.strides[d]);
    }
  }
  StridedView result;
  result.offset = view.offset;
  result.strides.assign(to.size(), BatchLinear{});
  size_t oldIndex = 0, newIndex = 0;
  while (true) {
    while (newIndex < to.size() && to[newIndex] == 1)
      ++newIndex;
    if (newIndex == to.size() || oldIndex == dims.size())
      break;
    if (isSymbolic(to[newIndex]) || isSymbolic(dims[oldIndex])) {
      if (!isBatch(to[newIndex]) || !isBatch(dims[oldIndex]))
        return std::nullopt;
      result.strides[newIndex++] = strides[oldIndex++];
      continue;
    }
    // The smallest runs of old and new dimensions with equal products.
    int64_t newProduct = to[newIndex], oldProduct = dims[oldIndex];
    size_t newEnd = newIndex + 1, oldEnd = oldIndex + 1;
    while (newProduct != oldProduct) {
      if (newProduct < oldProduct) {
        if (newEnd == to.size() || isSymbolic(to[newEnd]) || to[newEnd] == 0)
          return std::nullopt;
        newProduct *= to[newEnd++];
      } else {
        if (oldEnd == dims.size() || isSymbolic(dims[oldEnd]))
          return std::nullopt;
        oldProduct *= dims[oldEnd++];
      }
    }
    // The old run must be one contiguous block of the underlying tensor.
    for (size_t d = oldIndex; d + 1 < oldEnd; ++d)
      if (times(strides[d + 1], dims[d + 1]) != strides[d])
        return std::nullopt;
    result.strides[newEnd - 1] = strides[oldEnd - 1];
    for (size_t d = newEnd - 1; d > newIndex; --d) {
      std::optional<BatchLinear> stride = times(result.strides[d], to[d]);
      if (!stride)
        return std::nullopt;
      result.strides[d - 1] = *stride;
    }
    newIndex = newEnd;
    oldIndex = oldEnd;
  }
  if (oldIndex != dims.size())
    return std::nullopt;
  for (; newIndex < to.size(); ++newIndex)
    if (to[newIndex] != 1)
      return std::nullopt;
  return result;
}

bool isViewOp(Operation *op) { return llvm::isa<SliceOp, ReshapeOp, FlattenOp, TransposeOp, ExpandOp>(op); }

std::optional<StridedView> forwardView(Operation *op, const StridedView &inputView) {
  return llvm::TypeSwitch<Operation *, std::optional<StridedView>>(op)
      .Case([&](SliceOp slice) -> std::optional<StridedView> {
        ArrayRef<int64_t> starts = slice.getStarts(), steps = slice.getSteps();
        const SmallVector<int64_t> input = shapeOf(slice.getInput()), output = shapeOf(slice.getOutput());
        StridedView view = inputView;
        for (size_t d = 0; d < starts.size(); ++d) {
          if (output[d] == 0 || isRange(output[d]))
            return std::nullopt;
          // The batch dimension is only ever sliced whole.
          if (isBatch(input[d]) && (starts[d] != 0 || steps[d] != 1))
            return std::nullopt;
          std::optional<BatchLinear> start = times(inputView.strides[d], starts[d]);
          std::optional<BatchLinear> stride = times(inputView.strides[d], steps[d]);
          std::optional<BatchLinear> offset = start ? plus(view.offset, *start) : std::nullopt;
          if (!stride || !offset)
            return std::nullopt;
          view.offset = *offset;
          view.strides[d] = *stride;
        }
        return view;
      })
      .Case<ReshapeOp, FlattenOp>([&](auto reshape) {
        return reshapeView(inputView, shapeOf(reshape.getInput()), shapeOf(reshape.getOutput()));
      })
      .Case([&](TransposeOp transpose) {
        StridedView view;
        view.offset = inputView.offset;
        for (int64_t axis : transpose.getPerm())
          view.strides.push_back(inputView.strides[axis]);
        return std::optional<StridedView>(view);
      })
      .Case([&](ExpandOp expand) -> std::optional<StridedView> {
        // Numpy broadcasting: new leading dimensions, and extent-1 ones
        // stretched, read the same element again (stride 0).
        const SmallVector<int64_t> input = shapeOf(expand.getInput()), output = shapeOf(expand.getOutput());
        if (output.size() < input.size())
          return std::nullopt;
        StridedView view;
        view.offset = inputView.offset;
        view.strides.assign(output.size() - input.size(), BatchLinear{});
        for (size_t d = 0; d < input.size(); ++d) {
          const int64_t to = output[output.size() - input.size() + d];
          if (isRange(to) || to == 0)
            return std::nullopt;
          view.strides.push_back(input[d] == to ? inputView.strides[d] : BatchLinear{});
        }
        return view;
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<StridedView> backwardView(Operation *op, const StridedView &resultView) {
  return llvm::TypeSwitch<Operation *, std::optional<StridedView>>(op)
      .Case<ReshapeOp, FlattenOp>([&](auto reshape) {
        return reshapeView(resultView, shapeOf(reshape.getOutput()), shapeOf(reshape.getInput()));
      })
      .Case([&](TransposeOp transpose) {
        StridedView view;
        view.offset = resultView.offset;
        ArrayRef<int64_t> perm = transpose.getPerm();
        view.strides.assign(perm.size(), BatchLinear{});
        for (size_t d = 0; d < perm.size(); ++d)
          view.strides[perm[d]] = resultView.strides[d];
        return std::optional<StridedView>(view);
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<StridedView> composeViewChain(ArrayRef<Operation *> chain, bool reads) {
  if (chain.empty())
    return std::nullopt;
  Operation *far = chain.back();
  Value tensor = reads ? far->getOperand(0) : far->getResult(0);
  std::optional<StridedView> view = contiguousView(shapeOf(tensor));
  for (size_t i = chain.size(); i-- > 0 && view;)
    view = reads ? forwardView(chain[i], *view) : backwardView(chain[i], *view);
  return view;
}

std::optional<MatrixRows> matrixRowsThrough(ArrayRef<Operation *> chain) {
  if (chain.empty() || !llvm::all_of(chain, [](Operation *op) { return llvm::isa<SliceOp, ReshapeOp, FlattenOp>(op); }))
    return std::nullopt;
  auto matrix = llvm::cast<RankedTensorType>(chain.front()->getResult(0).getType());
  std::optional<StridedView> view = composeViewChain(chain, /*reads=*/true);
  if (matrix.getRank() != 2 || !view || !view->hasContiguousRows() || !view->offset.isFixed() ||
      !view->strides[0].isFixed())
    return std::nullopt;
  // A's own dense layout (a flatten) is no view: A is its input's bytes.
  if (view->offset.fixed == 0 && view->strides[0].fixed == matrix.getDimSize(1))
    return std::nullopt;
  return MatrixRows{chain.back()->getOperand(0), view->offset.fixed, view->strides[0].fixed};
}

std::optional<MatrixRows> matrixRowsOf(Value matrix) {
  SmallVector<Operation *> chain; // nearest first
  for (Operation *op = matrix.getDefiningOp(); op && llvm::isa<SliceOp, ReshapeOp, FlattenOp>(op);
       op = op->getOperand(0).getDefiningOp())
    chain.push_back(op);
  return matrixRowsThrough(chain);
}

} // namespace fusec::fuse
