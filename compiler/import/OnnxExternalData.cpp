//===- OnnxExternalData.cpp - Tensor data stored beside an ONNX model -----===//

#include "compiler/import/OnnxExternalData.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"

using namespace mlir;

namespace fusec::import {

OnnxExternalData::OnnxExternalData(std::string modelDirectory) : directory_(std::move(modelDirectory)) {
  if (directory_.empty())
    directory_ = ".";
}

FailureOr<StringRef> OnnxExternalData::mapFile(StringRef location, const std::string &tensor, Location loc) {
  auto fail = [&](const Twine &why) -> InFlightDiagnostic {
    return emitError(loc) << "tensor '" << tensor << "': external data '" << location << "' " << why;
  };
  if (location.empty())
    return fail("has an empty location");
  if (llvm::sys::path::is_absolute(location) || location.starts_with("~"))
    return fail("is an absolute path (a location is relative to the model's directory)");
  for (auto part = llvm::sys::path::begin(location), end = llvm::sys::path::end(location); part != end; ++part)
    if (*part == "..")
      return fail("leaves the model's directory ('..')");
  auto found = files_.find(location);
  if (found != files_.end())
    return found->second->getBuffer();

  llvm::SmallString<256> path(directory_);
  llvm::sys::path::append(path, location);
  // Symbolic links are followed only where they stay inside the directory.
  llvm::SmallString<256> realDirectory, realPath;
  if (std::error_code error = llvm::sys::fs::real_path(directory_, realDirectory))
    return fail("cannot be resolved: the model's directory '" + directory_ + "': " + error.message());
  if (std::error_code error = llvm::sys::fs::real_path(path, realPath))
    return fail("cannot be opened ('" + path + "'): " + error.message());
  if (!StringRef(realPath).starts_with((realDirectory + llvm::sys::path::get_separator()).str()))
    return fail("leaves the model's directory (it resolves to '" + realPath + "')");
  if (llvm::sys::fs::is_directory(realPath))
    return fail("is a directory");
  // Mapped, not read: weight files may be larger than the memory spare.
  auto buffer = llvm::MemoryBuffer::getFile(realPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot be read ('" + path + "'): " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  files_[location] = std::move(*buffer);
  return bytes;
}

FailureOr<StringRef> OnnxExternalData::bytesOf(const onnx::TensorProto &tensor, Location loc) {
  auto fail = [&](const Twine &why) -> InFlightDiagnostic {
    return emitError(loc) << "tensor '" << tensor.name() << "': external data " << why;
  };
  std::optional<std::string> location, checksum;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      uint64_t value = 0;
      if (StringRef(entry.value()).getAsInteger(10, value))
        return fail("'" + key + "' is '" + entry.value() + "', not a byte count");
      if (key == "offset")
        offset = value;
      else
        length = value;
    } else if (key == "checksum") {
      checksum = entry.value();
    } else {
      // ONNX defines no other key; one fusec does not understand could
      // change what the bytes mean.
      return fail("has the unknown entry '" + key + "'");
    }
  }
  if (!location)
    return fail("names no 'location'");
  FailureOr<StringRef> file = mapFile(*location, tensor.name(), loc);
  if (failed(file))
    return failure();
  const uint64_t size = file->size();
  if (offset > size || (length && *length > size - offset))
    return fail("'" + *location + "' holds " + Twine(size) + " bytes, fewer than the tensor's range [" + Twine(offset) +
                ", " + Twine(offset + length.value_or(0)) + ")");
  StringRef bytes = file->substr(offset, length.value_or(size - offset));
  if (checksum) {
    const std::array<uint8_t, 20> digest =
        llvm::SHA1::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
    if (!StringRef(*checksum).equals_insensitive(llvm::toHex(digest, /*LowerCase=*/true)))
      return fail("'" + *location + "' does not match its SHA-1 checksum");
  }
  return bytes;
}

} // namespace fusec::import
