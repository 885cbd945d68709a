//===- Tensor.cpp - Shapes and dense float32 host tensors -------------------===//

#include "runtime/Tensor.h"

#include "runtime/Error.h"
#include "runtime/plan/PlanFormat.h"
#include "runtime/support/CheckedMath.h"

#include <algorithm>

namespace fusec::runtime {

int64_t numElements(const Shape &shape) {
  for (int64_t dim : shape)
    if (dim < 0)
      throw Error("shape " + formatShape(shape) + " has no element count (a dimension is unresolved)");
  std::optional<int64_t> count = checkedElementCount(shape);
  if (!count)
    throw Error("shape " + formatShape(shape) + " has more elements than fit in 64 bits");
  return *count;
}

bool hasBatchDim(const Shape &shape) { return std::find(shape.begin(), shape.end(), plan::kBatchDim) != shape.end(); }

Shape resolveShape(const Shape &shape, int64_t batch) {
  Shape resolved = shape;
  for (int64_t &dim : resolved)
    if (dim == plan::kBatchDim)
      dim = batch;
  return resolved;
}

std::string formatShape(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      text += ", ";
    text += shape[i] == plan::kBatchDim ? "batch" : std::to_string(shape[i]);
  }
  return text + "]";
}

Tensor::Tensor(Shape shape)
    : shape_(std::move(shape)), data_(static_cast<size_t>(runtime::numElements(shape_)), 0.0f) {}

Tensor::Tensor(Shape shape, std::vector<float> data) : shape_(std::move(shape)), data_(std::move(data)) {
  if (static_cast<int64_t>(data_.size()) != runtime::numElements(shape_))
    throw Error("tensor of shape " + formatShape(shape_) + " needs " + std::to_string(runtime::numElements(shape_)) +
                " values, got " + std::to_string(data_.size()));
}

} // namespace fusec::runtime
