//===- Tensor.cpp - Shapes and dense host tensors of any element type ------===//

#include "runtime/Tensor.h"

#include "runtime/ElementConversion.h"
#include "runtime/Error.h"
#include "runtime/plan/PlanFormat.h"
#include "support/CheckedMath.h"

#include <algorithm>
#include <cstring>

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

Tensor::Tensor(Shape shape) : Tensor(std::move(shape), ElementType::F32) {}

Tensor::Tensor(Shape shape, ElementType type)
    : shape_(std::move(shape)), type_(type), numElements_(runtime::numElements(shape_)) {
  std::optional<int64_t> bytes = checkedMul(numElements_, static_cast<int64_t>(elementSize(type)));
  if (!bytes)
    throw Error("a tensor of shape " + formatShape(shape_) + " has more bytes than fit in 64 bits");
  byteSize_ = static_cast<size_t>(*bytes);
  words_.assign((byteSize_ + sizeof(float) - 1) / sizeof(float), 0.0f);
}

Tensor::Tensor(Shape shape, std::vector<float> data)
    : shape_(std::move(shape)), numElements_(runtime::numElements(shape_)), words_(std::move(data)) {
  if (static_cast<int64_t>(words_.size()) != numElements_)
    throw Error("tensor of shape " + formatShape(shape_) + " needs " + std::to_string(numElements_) + " values, got " +
                std::to_string(words_.size()));
  byteSize_ = words_.size() * sizeof(float);
}

Tensor Tensor::fromBytes(Shape shape, ElementType type, const void *bytes, size_t byteCount) {
  Tensor tensor(std::move(shape), type);
  if (byteCount != tensor.byteSize_)
    throw Error("a " + std::string(elementTypeName(type)) + " tensor of shape " + formatShape(tensor.shape_) +
                " needs " + std::to_string(tensor.byteSize_) + " bytes, got " + std::to_string(byteCount));
  if (byteCount > 0)
    std::memcpy(tensor.rawData(), bytes, byteCount);
  return tensor;
}

void Tensor::requireF32(const char *accessor) const {
  if (type_ != ElementType::F32)
    throw Error(std::string("Tensor::") + accessor + "() gives float32 elements, but this tensor is " +
                elementTypeName(type_) + " (use rawData() or toDoubles())");
}

float *Tensor::data() {
  requireF32("data");
  return words_.data();
}

const float *Tensor::data() const {
  requireF32("data");
  return words_.data();
}

const std::vector<float> &Tensor::values() const {
  requireF32("values");
  return words_;
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> result(static_cast<size_t>(numElements_));
  for (size_t i = 0; i < result.size(); ++i)
    result[i] = elementAsDouble(rawData(), type_, i);
  return result;
}

} // namespace fusec::runtime
