//===- Safetensors.cpp - Read and write .safetensors weights ---------------===//
#include "compiler/import/Safetensors.h"

#include "support/FileIO.h"
#include "support/HalfFloat.h"

#include "mlir/IR/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <memory>

using namespace mlir;

namespace fusec::import {
namespace {

/// A safetensors dtype and the DType fusec gives it.
struct SafetensorsType {
  const char *name;
  DType dtype;
  size_t bytes;
};

constexpr SafetensorsType kSafetensorsTypes[] = {
    {"F32", DType::F32, 4}, {"F16", DType::F16, 2}, {"BF16", DType::BF16, 2}, {"I64", DType::I64, 8},
    {"I32", DType::I32, 4}, {"BOOL", DType::I1, 1}, {"I8", DType::I8, 1},     {"U8", DType::U8, 1},
};

const SafetensorsType *findType(const nlohmann::json &name) {
  for (const SafetensorsType &type : kSafetensorsTypes)
    if (name == type.name)
      return &type;
  return nullptr;
}

const SafetensorsType &typeOf(DType dtype) {
  for (const SafetensorsType &type : kSafetensorsTypes)
    if (type.dtype == dtype)
      return type;
  return kSafetensorsTypes[0];
}

template <typename T> T load(const char *bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

/// Decodes `count` little-endian elements of `type` into `tensor`: floats
/// widen exactly, integers and booleans become int64. One loop per type (f32
/// is one copy): weights run to hundreds of megabytes.
void decode(const SafetensorsType &type, const char *bytes, uint64_t count, GraphConstant &tensor) {
  tensor.dtype = type.dtype;
  auto each = [&](auto &values, auto convert) {
    values.resize(count);
    for (uint64_t i = 0; i < count; ++i)
      values[i] = convert(bytes + i * type.bytes);
  };
  switch (type.dtype) {
  case DType::F32:
    tensor.data.resize(count);
    if (count > 0)
      std::memcpy(tensor.data.data(), bytes, count * sizeof(float));
    break;
  case DType::F16:
    each(tensor.data, [](const char *at) { return halfBitsToFloat(load<uint16_t>(at)); });
    break;
  case DType::BF16:
    each(tensor.data, [](const char *at) { return bfloat16BitsToFloat(load<uint16_t>(at)); });
    break;
  case DType::I64:
    each(tensor.ints, [](const char *at) { return load<int64_t>(at); });
    break;
  case DType::I32:
    each(tensor.ints, [](const char *at) { return int64_t(load<int32_t>(at)); });
    break;
  case DType::I1:
    each(tensor.ints, [](const char *at) { return int64_t(load<uint8_t>(at) != 0); });
    break;
  case DType::I8:
    each(tensor.ints, [](const char *at) { return int64_t(load<int8_t>(at)); });
    break;
  case DType::U8:
    each(tensor.ints, [](const char *at) { return int64_t(load<uint8_t>(at)); });
    break;
  }
}

template <typename T> void store(std::vector<uint8_t> &bytes, T value) {
  const auto *begin = reinterpret_cast<const uint8_t *>(&value);
  bytes.insert(bytes.end(), begin, begin + sizeof(T));
}

void encode(const GraphConstant &tensor, std::vector<uint8_t> &bytes) {
  if (tensor.dtype == DType::F32) { // the common case, in one copy
    const auto *begin = reinterpret_cast<const uint8_t *>(tensor.floats().data());
    bytes.insert(bytes.end(), begin, begin + tensor.floats().size() * sizeof(float));
    return;
  }
  for (size_t i = 0; i < tensor.size(); ++i) {
    switch (tensor.dtype) {
    case DType::F32:
      store(bytes, tensor.data[i]);
      break;
    case DType::F16:
      store(bytes, floatToHalfBits(tensor.data[i]));
      break;
    case DType::BF16:
      store(bytes, floatToBfloat16Bits(tensor.data[i]));
      break;
    case DType::I64:
      store(bytes, tensor.ints[i]);
      break;
    case DType::I32:
      store(bytes, static_cast<int32_t>(tensor.ints[i]));
      break;
    case DType::I1:
      store(bytes, static_cast<uint8_t>(tensor.ints[i] != 0));
      break;
    case DType::I8:
      store(bytes, static_cast<int8_t>(tensor.ints[i]));
      break;
    case DType::U8:
      store(bytes, static_cast<uint8_t>(tensor.ints[i]));
      break;
    }
  }
}

} // namespace

LogicalResult readSafetensors(StringRef path, Location loc, std::vector<GraphConstant> &tensors) {
  // f32 tensors stay in the file's mapping (shared by their constants).
  std::shared_ptr<const runtime::MappedFile> mapping;
  try {
    mapping = runtime::MappedFile::open(path.str());
  } catch (const std::exception &error) {
    return emitError(loc) << "cannot read the weights: " << error.what();
  }
  StringRef bytes(reinterpret_cast<const char *>(mapping->data()), mapping->size());
  if (bytes.size() < 8)
    return emitError(loc) << "weights file '" << path << "' is too short for a safetensors header";
  uint64_t headerSize = 0;
  std::memcpy(&headerSize, bytes.data(), 8);
  if (headerSize > bytes.size() - 8)
    return emitError(loc) << "weights file '" << path << "': header length " << headerSize << " exceeds the file size "
                          << bytes.size();
  StringRef headerText = bytes.substr(8, headerSize);
  nlohmann::json header =
      nlohmann::json::parse(headerText.begin(), headerText.end(), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object())
    return emitError(loc) << "weights file '" << path << "': the header is not a JSON object";
  uint64_t dataSize = bytes.size() - 8 - headerSize;
  const char *data = bytes.data() + 8 + headerSize;
  for (auto &[name, entry] : header.items()) {
    if (name == "__metadata__")
      continue;
    auto fail = [&](const Twine &why) {
      return emitError(loc) << "weights file '" << path << "', tensor '" << name << "': " << why;
    };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
      return fail("needs 'dtype', 'shape' and 'data_offsets'");
    const SafetensorsType *type = findType(entry["dtype"]);
    if (!type)
      return fail("dtype " + entry["dtype"].dump() + " is not supported (F32, F16, BF16, I64, I32 and BOOL are)");
    GraphConstant tensor;
    tensor.name = name;
    uint64_t elements = 1;
    for (const auto &dim : entry["shape"]) {
      if (!dim.is_number_unsigned())
        return fail("'shape' must hold non-negative integers");
      tensor.shape.push_back(dim.get<int64_t>());
      elements *= dim.get<uint64_t>();
    }
    const auto &offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
      return fail("'data_offsets' must be two non-negative integers");
    uint64_t begin = offsets[0], end = offsets[1];
    if (begin > end || end > dataSize)
      return fail("data_offsets [" + Twine(begin) + ", " + Twine(end) + ") lie outside the data section of " +
                  Twine(dataSize) + " bytes");
    if (end - begin != elements * type->bytes)
      return fail("holds " + Twine(end - begin) + " bytes but its shape needs " + Twine(elements * type->bytes));
    if (type->dtype == DType::F32 && reinterpret_cast<uintptr_t>(data + begin) % alignof(float) == 0) {
      tensor.dtype = DType::F32;
      tensor.mapped = ArrayRef<float>(reinterpret_cast<const float *>(data + begin), elements);
      tensor.mapping = mapping;
    } else {
      decode(*type, data + begin, elements, tensor);
    }
    tensors.push_back(std::move(tensor));
  }
  return success();
}

LogicalResult writeSafetensors(StringRef path, Location loc, const std::vector<GraphConstant> &tensors) {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const GraphConstant &tensor : tensors) {
    const SafetensorsType &type = typeOf(tensor.dtype);
    uint64_t size = tensor.size() * type.bytes;
    header[tensor.name] = {{"dtype", type.name}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string headerText = header.dump();
  // Pad the header with spaces so the data starts 8-byte aligned.
  headerText.append((8 - headerText.size() % 8) % 8, ' ');
  std::vector<uint8_t> bytes(8);
  uint64_t headerSize = headerText.size();
  std::memcpy(bytes.data(), &headerSize, 8);
  bytes.insert(bytes.end(), headerText.begin(), headerText.end());
  for (const GraphConstant &tensor : tensors)
    encode(tensor, bytes);
  try {
    runtime::writeFileAtomically(path.str(), bytes);
  } catch (const std::exception &error) {
    return emitError(loc) << error.what();
  }
  return success();
}

} // namespace fusec::import
