//===- Safetensors.cpp - Read f32 tensors from .safetensors -------------===//
#include "compiler/import/Safetensors.h"

#include "runtime/support/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include <cstring>

using namespace mlir;

namespace fusec::import {

LogicalResult readSafetensors(StringRef path, Location loc, std::vector<GraphConstant> &tensors) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read weights file '" << path << "': " << buffer.getError().message();
  StringRef bytes = (*buffer)->getBuffer();
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
    if (entry["dtype"] != "F32")
      return fail("dtype " + entry["dtype"].dump() + " is not supported (only F32)");
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
    if (end - begin != elements * sizeof(float))
      return fail("holds " + Twine(end - begin) + " bytes but its shape needs " + Twine(elements * sizeof(float)));
    tensor.data.resize(elements);
    std::memcpy(tensor.data.data(), data + begin, end - begin);
    tensors.push_back(std::move(tensor));
  }
  return success();
}

LogicalResult writeSafetensors(StringRef path, Location loc, const std::vector<GraphConstant> &tensors) {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const GraphConstant &tensor : tensors) {
    uint64_t size = tensor.data.size() * sizeof(float);
    header[tensor.name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string headerText = header.dump();
  // Pad the header with spaces so the data starts 8-byte aligned.
  headerText.append((8 - headerText.size() % 8) % 8, ' ');
  std::vector<uint8_t> bytes(8);
  uint64_t headerSize = headerText.size();
  std::memcpy(bytes.data(), &headerSize, 8);
  bytes.insert(bytes.end(), headerText.begin(), headerText.end());
  for (const GraphConstant &tensor : tensors) {
    auto *begin = reinterpret_cast<const uint8_t *>(tensor.data.data());
    bytes.insert(bytes.end(), begin, begin + tensor.data.size() * sizeof(float));
  }
  try {
    runtime::writeFileAtomically(path.str(), bytes);
  } catch (const std::exception &error) {
    return emitError(loc) << error.what();
  }
  return success();
}

} // namespace fusec::import
