//===- OnnxTensor.cpp - Tensors the ONNX importer knows at import ---------===//
#include "compiler/import/OnnxTensor.h"
#include "compiler/import/OnnxProtoUtils.h"
#include "ir/ShapeUtils.h"
#include "support/CheckedMath.h"
#include "support/HalfFloat.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>
#include <type_traits>

using namespace mlir;

namespace fusec::import {

KnownTensor KnownTensor::ofFloats(std::vector<int64_t> shape, std::vector<float> data, int32_t elemType) {
  KnownTensor tensor;
  tensor.kind = Kind::Float;
  tensor.elemType = elemType;
  tensor.shape = std::move(shape);
  tensor.floats = std::move(data);
  return tensor;
}

KnownTensor KnownTensor::ofInts(std::vector<int64_t> shape, std::vector<DimExpr> data, int32_t elemType) {
  KnownTensor tensor;
  tensor.kind = Kind::Int;
  tensor.elemType = elemType;
  tensor.shape = std::move(shape);
  tensor.ints = std::move(data);
  return tensor;
}

KnownTensor KnownTensor::ofInts(std::vector<int64_t> shape, const std::vector<int64_t> &data, int32_t elemType) {
  std::vector<DimExpr> ints(data.begin(), data.end());
  return ofInts(std::move(shape), std::move(ints), elemType);
}

bool KnownTensor::hasSymbols() const {
  return llvm::any_of(ints, [](const DimExpr &v) { return !v.isConstant(); });
}

std::optional<std::vector<int64_t>> KnownTensor::staticInts() const {
  if (!isInt() || hasSymbols())
    return std::nullopt;
  std::vector<int64_t> values;
  values.reserve(ints.size());
  for (const DimExpr &v : ints)
    values.push_back(v.constantTerm());
  return values;
}

std::string intsToString(const KnownTensor &tensor) { return shapeString(tensor.ints, 8); }

std::optional<DType> dtypeForOnnxType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return DType::F32;
  case onnx::TensorProto::FLOAT16:
    return DType::F16;
  case onnx::TensorProto::BFLOAT16:
    return DType::BF16;
  case onnx::TensorProto::INT64:
    return DType::I64;
  case onnx::TensorProto::INT32:
    return DType::I32;
  case onnx::TensorProto::BOOL:
    return DType::I1;
  case onnx::TensorProto::INT8:
    return DType::I8;
  case onnx::TensorProto::UINT8:
    return DType::U8;
  default:
    return std::nullopt;
  }
}

int32_t onnxTypeForDType(DType type) {
  switch (type) {
  case DType::F32:
    return onnx::TensorProto::FLOAT;
  case DType::F16:
    return onnx::TensorProto::FLOAT16;
  case DType::BF16:
    return onnx::TensorProto::BFLOAT16;
  case DType::I64:
    return onnx::TensorProto::INT64;
  case DType::I32:
    return onnx::TensorProto::INT32;
  case DType::I1:
    return onnx::TensorProto::BOOL;
  case DType::I8:
    return onnx::TensorProto::INT8;
  case DType::U8:
    return onnx::TensorProto::UINT8;
  }
  return onnx::TensorProto::UNDEFINED;
}

float roundToOnnxType(float value, int32_t onnxType) {
  if (onnxType == onnx::TensorProto::FLOAT16)
    return roundToHalf(value);
  if (onnxType == onnx::TensorProto::BFLOAT16)
    return roundToBfloat16(value);
  return value;
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
template <typename Stored, typename Result> std::optional<std::vector<Result>> decodeRaw(StringRef raw) {
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

/// 16-bit floats: raw_data holds the bit patterns, int32_data one pattern
/// per entry (ONNX's layout for FLOAT16 and BFLOAT16); both widen exactly.
std::optional<std::vector<float>> decodeHalf(const onnx::TensorProto &proto, std::optional<StringRef> raw,
                                             float (*widen)(uint16_t)) {
  std::vector<float> values;
  if (raw) {
    if (raw->size() % sizeof(uint16_t) != 0)
      return std::nullopt;
    values.resize(raw->size() / sizeof(uint16_t));
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, raw->data() + i * sizeof(uint16_t), sizeof(uint16_t));
      values[i] = widen(bits);
    }
    return values;
  }
  values.reserve(proto.int32_data_size());
  for (int32_t bits : proto.int32_data())
    values.push_back(widen(static_cast<uint16_t>(bits)));
  return values;
}

/// The elements of `proto` as `Result`, from its raw bytes (raw_data or
/// external data) or the typed field.
template <typename Stored, typename Result, typename Field>
std::optional<std::vector<Result>> decode(std::optional<StringRef> raw, const Field &field) {
  if (raw)
    return decodeRaw<Stored, Result>(*raw);
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
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return true;
  default:
    return false;
  }
}

FailureOr<KnownTensor> readTensorProto(const onnx::TensorProto &proto, Location loc, OnnxExternalData *external) {
  auto fail = [&](const Twine &why) { return emitError(loc) << "tensor '" << proto.name() << "': " << why; };
  std::optional<StringRef> raw;
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!external)
      return fail("externally stored data is read for the graph's initializers only");
    FailureOr<StringRef> bytes = external->bytesOf(proto, loc);
    if (failed(bytes))
      return failure();
    raw = *bytes;
  } else if (proto.has_raw_data()) {
    raw = StringRef(proto.raw_data());
  }
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  if (llvm::any_of(shape, [](int64_t dim) { return dim < 0; }))
    return fail("negative dimension");
  if (!isPlausibleShape(shape, /*allowBatch=*/false))
    return fail("shape " + fuse::shapeToString(shape) + " is implausibly large");

  std::optional<std::vector<float>> floats;
  std::optional<std::vector<int64_t>> ints;
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    floats = decode<float, float>(raw, proto.float_data());
    break;
  case onnx::TensorProto::DOUBLE:
    floats = decode<double, float>(raw, proto.double_data());
    break;
  case onnx::TensorProto::FLOAT16:
    floats = decodeHalf(proto, raw, halfBitsToFloat);
    break;
  case onnx::TensorProto::BFLOAT16:
    floats = decodeHalf(proto, raw, bfloat16BitsToFloat);
    break;
  case onnx::TensorProto::INT64:
    ints = decode<int64_t, int64_t>(raw, proto.int64_data());
    break;
  case onnx::TensorProto::INT32:
    ints = decode<int32_t, int64_t>(raw, proto.int32_data());
    break;
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::UINT8:
    ints = decode<uint8_t, int64_t>(raw, proto.int32_data());
    break;
  case onnx::TensorProto::INT8:
    ints = decode<int8_t, int64_t>(raw, proto.int32_data());
    break;
  default:
    assert(!isReadableTensorType(proto.data_type()) && "a readable type is not read");
    return fail("element type " + onnxTypeName(proto.data_type()) +
                " is not supported (FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64, INT32, INT8, UINT8, BOOL are)");
  }
  if (!floats && !ints)
    return fail("raw_data is not a whole number of elements");
  size_t count = floats ? floats->size() : ints->size();
  if (static_cast<int64_t>(count) != numElements(shape))
    return fail("holds " + Twine(count) + " elements but its shape needs " + Twine(numElements(shape)));
  if (floats)
    return KnownTensor::ofFloats(std::move(shape), std::move(*floats), proto.data_type());
  return KnownTensor::ofInts(std::move(shape), *ints, proto.data_type());
}

void writeTensorProto(const KnownTensor &tensor, StringRef name, onnx::TensorProto &proto) {
  assert(!tensor.hasSymbols() && "a symbolic size has no value to write");
  proto.set_name(name.str());
  for (int64_t dim : tensor.shape)
    proto.add_dims(dim);
  proto.set_data_type(tensor.elemType);
  switch (tensor.elemType) {
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    for (float value : tensor.floats)
      proto.add_int32_data(tensor.elemType == onnx::TensorProto::FLOAT16 ? floatToHalfBits(value)
                                                                         : floatToBfloat16Bits(value));
    return;
  case onnx::TensorProto::DOUBLE:
    for (float value : tensor.floats)
      proto.add_double_data(value);
    return;
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::BOOL:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    for (const DimExpr &value : tensor.ints)
      proto.add_int32_data(static_cast<int32_t>(value.constantTerm()));
    return;
  case onnx::TensorProto::INT64:
    for (const DimExpr &value : tensor.ints)
      proto.add_int64_data(value.constantTerm());
    return;
  default:
    proto.set_data_type(onnx::TensorProto::FLOAT);
    for (float value : tensor.floats)
      proto.add_float_data(value);
    return;
  }
}

} // namespace fusec::import
