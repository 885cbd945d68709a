//===- StridedView.cpp - Data movement as addressing ----------------------===//
#include "ir/StridedView.h"

#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec::fuse {

namespace {
ArrayRef<int64_t> shapeOf(Value value) { return llvm::cast<RankedTensorType>(value.getType()).getShape(); }
bool isDynamic(int64_t dim) { return ShapedType::isDynamic(dim); }
} // namespace

std::optional<StridedView> contiguousView(ArrayRef<int64_t> shape) {
  StridedView view;
  view.strides.resize(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0 || (isDynamic(shape[d]) && d != 0))
      return std::nullopt;
    view.strides[d] = stride;
    if (!isDynamic(shape[d]))
      stride *= shape[d];
  }
  return view;
}

std::optional<StridedView> reshapeView(const StridedView &view, ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  // Extent-1 dimensions carry no addressing: dropped from `from`, and given
  // stride 0 in `to` (any stride reads the one element).
  SmallVector<int64_t> dims, strides;
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] == 0)
      return std::nullopt;
    if (from[d] != 1) {
      dims.push_back(from[d]);
      strides.push_back(view.strides[d]);
    }
  }
  StridedView result;
  result.offset = view.offset;
  result.strides.assign(to.size(), 0);
  size_t oldIndex = 0, newIndex = 0;
  while (true) {
    while (newIndex < to.size() && to[newIndex] == 1)
      ++newIndex;
    if (newIndex == to.size() || oldIndex == dims.size())
      break;
    if (isDynamic(to[newIndex]) || isDynamic(dims[oldIndex])) {
      if (!isDynamic(to[newIndex]) || !isDynamic(dims[oldIndex]))
        return std::nullopt;
      result.strides[newIndex++] = strides[oldIndex++];
      continue;
    }
    // The smallest runs of old and new dimensions with equal products.
    int64_t newProduct = to[newIndex], oldProduct = dims[oldIndex];
    size_t newEnd = newIndex + 1, oldEnd = oldIndex + 1;
    while (newProduct != oldProduct) {
      if (newProduct < oldProduct) {
        if (newEnd == to.size() || isDynamic(to[newEnd]) || to[newEnd] == 0)
          return std::nullopt;
        newProduct *= to[newEnd++];
      } else {
        if (oldEnd == dims.size() || isDynamic(dims[oldEnd]))
          return std::nullopt;
        oldProduct *= dims[oldEnd++];
      }
    }
    // The old run must be one contiguous block of the underlying tensor.
    for (size_t d = oldIndex; d + 1 < oldEnd; ++d)
      if (strides[d] != dims[d + 1] * strides[d + 1])
        return std::nullopt;
    result.strides[newEnd - 1] = strides[oldEnd - 1];
    for (size_t d = newEnd - 1; d > newIndex; --d)
      result.strides[d - 1] = result.strides[d] * to[d];
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

bool isViewOp(Operation *op) { return llvm::isa<SliceOp, ReshapeOp, FlattenOp, TransposeOp>(op); }

std::optional<StridedView> forwardView(Operation *op, const StridedView &inputView) {
  return llvm::TypeSwitch<Operation *, std::optional<StridedView>>(op)
      .Case([&](SliceOp slice) -> std::optional<StridedView> {
        ArrayRef<int64_t> starts = slice.getStarts(), steps = slice.getSteps(), input = shapeOf(slice.getInput());
        StridedView view = inputView;
        for (size_t d = 0; d < starts.size(); ++d) {
          if (shapeOf(slice.getOutput())[d] == 0)
            return std::nullopt;
          // The batch dimension is only ever sliced whole.
          if (isDynamic(input[d]) && (starts[d] != 0 || steps[d] != 1))
            return std::nullopt;
          view.offset += starts[d] * inputView.strides[d];
          view.strides[d] = inputView.strides[d] * steps[d];
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
        view.strides.assign(perm.size(), 0);
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
  std::optional<StridedView> view = contiguousView(llvm::cast<RankedTensorType>(tensor.getType()).getShape());
  for (size_t i = chain.size(); i-- > 0 && view;)
    view = reads ? forwardView(chain[i], *view) : backwardView(chain[i], *view);
  return view;
}

} // namespace fusec::fuse
