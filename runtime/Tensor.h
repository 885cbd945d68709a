//===- Tensor.h - Shapes and dense float32 host tensors ---------------------===//
//
// Every tensor a plan handles is float32, dense and in C order; a shape in a
// plan may contain kBatchDim, which resolveShape() replaces by the batch size
// chosen at run time.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_TENSOR_H
#define FUSEC_RUNTIME_TENSOR_H

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

/// A float32 tensor that owns its data.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor of a static shape.
  explicit Tensor(Shape shape);
  /// Throws Error unless `data` holds exactly numElements(shape) values.
  Tensor(Shape shape, std::vector<float> data);

  const Shape &shape() const { return shape_; }
  int64_t numElements() const { return static_cast<int64_t>(data_.size()); }
  float *data() { return data_.data(); }
  const float *data() const { return data_.data(); }
  const std::vector<float> &values() const { return data_; }

private:
  Shape shape_;
  std::vector<float> data_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_TENSOR_H
