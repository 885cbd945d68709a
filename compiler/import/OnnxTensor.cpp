//===- OnnxTensor.cpp - Tensors the ONNX importer knows at import ---------===//
#include "compiler/import/OnnxTensor.h"
#include "compiler/import/OnnxProtoUtils.h"
#include "ir/ShapeUtils.h"
#include "runtime/support/CheckedMath.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>
#include <type_traits>

using namespace mlir;

namespace fusec::import {

KnownTensor KnownTensor::ofFloats(std::vector<int64_t> shape, std::vector<float> data) {
  KnownTensor tensor;
  tensor.kind = Kind::Float;
  tensor.shape = std::move(shape);
  tensor.floats = std::move(data);
  return tensor;
}

KnownTensor KnownTensor::ofInts(std::vector<int64_t> shape, std::vector<SymbolicInt> data) {
  KnownTensor tensor;
  tensor.kind = Kind::Int;
  tensor.shape = std::move(shape);
  tensor.ints = std::move(data);
  return tensor;
}

KnownTensor KnownTensor::ofInts(std::vector<int64_t> shape, const std::vector<int64_t> &data) {
  std::vector<SymbolicInt> ints;
  ints.reserve(data.size());
  for (int64_t value : data)
    ints.push_back(SymbolicInt::of(value));
  return ofInts(std::move(shape), std::move(ints));
}

bool KnownTensor::dependsOnBatch() const {
  return llvm::any_of(ints, [](const SymbolicInt &v) { return v.isBatch; });
}

std::optional<std::vector<int64_t>> KnownTensor::staticInts() const {
  if (!isInt() || dependsOnBatch())
    return std::nullopt;
  std::vector<int64_t> values;
  values.reserve(ints.size());
  for (const SymbolicInt &v : ints)
    values.push_back(v.value);
  return values;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  // Shapes reaching here passed isPlausibleShape; -1 never equals a real
  // element count, should one not have.
  return checkedElementCount(shape).value_or(-1);
}

namespace {

/// One stored element as `Result`; doubles beyond float's range become
/// +-infinity instead of an undefined conversion.
template <typename Result, typename Stored> Result convertElement(Stored value) {
  if constexpr (std::is_same_v<Result, float> && std::is_same_v<Stored, double>)
    return narrowToFloat(value);
  else
    return static_cast<Result>(value);
}

/// Decodes little-endian `raw_data` (the host order on every supported
/// machine) into `Stored` values and converts them to `Result`.
template <typename Stored, typename Result> std::optional<std::vector<Result>> decodeRaw(const std::string &raw) {
  if (raw.size() % sizeof(Stored) != 0)
    return std::nullopt;
  std::vector<Result> values(raw.size() / sizeof(Stored));
  for (size_t i = 0; i < values.size(); ++i) {
    Stored value;
    std::memcpy(&value, raw.data() + i * sizeof(Stored), sizeof(Stored));
    values[i] = convertElement<Result>(value);
  }
  return values;
}

/// The elements of `proto` as `Result`, from raw_data or the typed field.
template <typename Stored, typename Result, typename Field>
std::optional<std::vector<Result>> decode(const onnx::TensorProto &proto, const Field &field) {
  if (proto.has_raw_data())
    return decodeRaw<Stored, Result>(proto.raw_data());
  std::vector<Result> values;
  values.reserve(field.size());
  for (const auto &value : field)
    values.push_back(convertElement<Result>(value));
  return values;
}

} // namespace

bool isReadableTensorType(int32_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::BOOL:
    return true;
  default:
    return false;
  }
}

FailureOr<KnownTensor> readTensorProto(const onnx::TensorProto &proto, Location loc) {
  auto fail = [&](const Twine &why) { return emitError(loc) << "tensor '" << proto.name() << "': " << why; };
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail("externally stored data is not supported");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return fail("negative dimension");
  if (!isPlausibleShape(shape, /*allowBatch=*/false))
    return fail("shape " + fuse::shapeToString(shape) + " is implausibly large");

  std::optional<std::vector<float>> floats;
  std::optional<std::vector<int64_t>> ints;
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    floats = decode<float, float>(proto, proto.float_data());
    break;
  case onnx::TensorProto::DOUBLE:
    floats = decode<double, float>(proto, proto.double_data());
    break;
  case onnx::TensorProto::INT64:
    ints = decode<int64_t, int64_t>(proto, proto.int64_data());
    break;
  case onnx::TensorProto::INT32:
    ints = decode<int32_t, int64_t>(proto, proto.int32_data());
    break;
  case onnx::TensorProto::BOOL:
    ints = decode<uint8_t, int64_t>(proto, proto.int32_data());
    break;
  default:
    assert(!isReadableTensorType(proto.data_type()) && "a readable type is not read");
    return fail("element type " + onnxTypeName(proto.data_type()) +
                " is not supported (float, double, int64, int32, bool are)");
  }
  if (!floats && !ints)
    return fail("raw_data is not a whole number of elements");
  size_t count = floats ? floats->size() : ints->size();
  if (static_cast<int64_t>(count) != numElements(shape))
    return fail("holds " + Twine(count) + " elements but its shape needs " + Twine(numElements(shape)));
  if (floats)
    return KnownTensor::ofFloats(std::move(shape), std::move(*floats));
  return KnownTensor::ofInts(std::move(shape), *ints);
}

void writeTensorProto(const KnownTensor &tensor, StringRef name, onnx::TensorProto &proto) {
  assert(!tensor.dependsOnBatch() && "the batch size has no value to write");
  proto.set_name(name.str());
  for (int64_t dim : tensor.shape)
    proto.add_dims(dim);
  if (tensor.isFloat()) {
    proto.set_data_type(onnx::TensorProto::FLOAT);
    for (float value : tensor.floats)
      proto.add_float_data(value);
    return;
  }
  proto.set_data_type(onnx::TensorProto::INT64);
  for (const SymbolicInt &value : tensor.ints)
    proto.add_int64_data(value.value);
}

} // namespace fusec::import
