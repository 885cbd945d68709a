//===- Tensor.h - Shapes and dense host tensors of any element type --------===//
//
// Every tensor a plan handles is dense, in C order and little-endian, with an
// ElementType; a shape in a plan may contain kBatchDim, which resolveShape()
// replaces by the batch size chosen at run time.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_TENSOR_H
#define FUSEC_RUNTIME_TENSOR_H

#include "runtime/ElementType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusec::runtime {

using Shape = std::vector<int64_t>;

/// The element count of a static shape. Throws Error if a dimension is
/// negative (e.g. an unresolved batch dimension).
int64_t numElements(const Shape &shape);

bool hasBatchDim(const Shape &shape);

/// `shape` with every kBatchDim replaced by `batch`.
Shape resolveShape(const Shape &shape, int64_t batch);

/// "[batch, 3, 32, 32]" (kBatchDim is printed as "batch").
std::string formatShape(const Shape &shape);

/// A tensor that owns its data: numElements(shape) elements of its
/// ElementType, stored as bytes.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled f32 tensor of a static shape.
  explicit Tensor(Shape shape);
  /// An f32 tensor. Throws Error unless `data` holds exactly
  /// numElements(shape) values.
  Tensor(Shape shape, std::vector<float> data);
  /// A zero-filled tensor of a static shape and any element type.
  Tensor(Shape shape, ElementType type);
  /// A tensor holding a copy of `byteCount` bytes at `bytes` (the elements in
  /// storage format: f16/bf16 as their 16-bit patterns, i1 as bytes 0/1).
  /// Throws Error unless byteCount is numElements(shape) * elementSize(type).
  static Tensor fromBytes(Shape shape, ElementType type, const void *bytes, size_t byteCount);

  const Shape &shape() const { return shape_; }
  ElementType elementType() const { return type_; }
  int64_t numElements() const { return numElements_; }
  size_t byteSize() const { return byteSize_; }
  void *rawData() { return words_.data(); }
  const void *rawData() const { return words_.data(); }

  /// The elements of an f32 tensor; throws Error naming the type otherwise.
  float *data();
  const float *data() const;
  const std::vector<float> &values() const;

  /// Every element as a double, for comparisons: exact for every type but
  /// i64 values beyond 2^53.
  std::vector<double> toDoubles() const;

private:
  void requireF32(const char *accessor) const;

  Shape shape_;
  ElementType type_ = ElementType::F32;
  int64_t numElements_ = 0;
  size_t byteSize_ = 0;
  /// The bytes, in 4-byte words so that an f32 tensor can hand out its
  /// elements as a std::vector<float> (values()); other types use the first
  /// byteSize_ bytes.
  std::vector<float> words_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_TENSOR_H
