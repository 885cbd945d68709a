//===- PlanContainer.cpp - Encode and decode the model.plan container -------===//

#include "runtime/plan/PlanContainer.h"

#include "runtime/Error.h"
#include "runtime/plan/JsonFieldReader.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace fusec::plan {

using nlohmann::json;
using runtime::Error;

namespace {

// Header fields are stored little-endian regardless of the host.
void storeLE(uint8_t *out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t loadLE(const uint8_t *in, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

// Byte offsets of the header fields (see PlanFormat.h).
constexpr size_t kMajorAt = offsetof(FileHeader, major);
constexpr size_t kMinorAt = offsetof(FileHeader, minor);
constexpr size_t kManifestOffsetAt = offsetof(FileHeader, manifestOffset);
constexpr size_t kManifestSizeAt = offsetof(FileHeader, manifestSize);
constexpr size_t kManifestChecksumAt = offsetof(FileHeader, manifestChecksum);
constexpr size_t kFileSizeAt = offsetof(FileHeader, fileSize);
constexpr size_t kReservedAt = offsetof(FileHeader, reserved);

/// Offsets of the sections when the manifest ends at `manifestEnd`.
std::vector<uint64_t> layoutSections(uint64_t manifestEnd, const std::vector<SectionPieces> &sections) {
  std::vector<uint64_t> offsets;
  uint64_t next = manifestEnd;
  for (const SectionPieces &section : sections) {
    next = alignTo(next, kSectionAlignment);
    offsets.push_back(next);
    next += section.size;
  }
  return offsets;
}

json sectionsArray(const std::vector<SectionPieces> &sections, const std::vector<uint64_t> &offsets,
                   const std::vector<uint64_t> &checksums) {
  json array = json::array();
  for (size_t i = 0; i < sections.size(); ++i)
    array.push_back({{"name", sections[i].name},
                     {"offset", offsets[i]},
                     {"size", sections[i].size},
                     {"checksum", toHex64(checksums[i])}});
  return array;
}

/// Zero bytes for padding and gaps, written from here in runs.
constexpr size_t kZeroRun = 4096;
const uint8_t kZeros[kZeroRun] = {};

/// `count` zero bytes as runs of kZeros.
template <typename Fn> void forEachZeroRun(uint64_t count, Fn &&each) {
  for (; count > 0; count -= std::min<uint64_t>(count, kZeroRun))
    each(runtime::ByteRange{kZeros, static_cast<size_t>(std::min<uint64_t>(count, kZeroRun))});
}

/// Appends `count` zero bytes to `ranges`.
void appendZeros(std::vector<runtime::ByteRange> &ranges, uint64_t count) {
  forEachZeroRun(count, [&](runtime::ByteRange run) { ranges.push_back(run); });
}

/// The checksum of `section`'s bytes, gaps included; throws if its pieces
/// are out of order, overlap or overrun it.
uint64_t checksumPieces(const SectionPieces &section) {
  uint64_t hash = fnv1a64(nullptr, 0), at = 0;
  auto hashZeros = [&](uint64_t count) {
    forEachZeroRun(count, [&](runtime::ByteRange run) { hash = fnv1a64(run.data, run.size, hash); });
  };
  for (const SectionPieces::Piece &piece : section.pieces) {
    if (piece.offset < at || piece.bytes.size > section.size || piece.offset > section.size - piece.bytes.size)
      throw Error("cannot encode plan: a piece of section '" + section.name + "' at offset " +
                  std::to_string(piece.offset) + " overlaps another or runs past the section's " +
                  std::to_string(section.size) + " bytes");
    hashZeros(piece.offset - at);
    hash = fnv1a64(piece.bytes.data, piece.bytes.size, hash);
    at = piece.offset + piece.bytes.size;
  }
  hashZeros(section.size - at);
  return hash;
}

[[noreturn]] void failDecoding(const std::string &sourceName, const std::string &reason) {
  throw Error(sourceName + ": " + reason);
}

std::string serialize(const json &manifest) {
  try {
    return manifest.dump();
  } catch (const json::exception &e) {
    throw Error(std::string("cannot serialize the plan manifest: ") + e.what());
  }
}

} // namespace

std::vector<runtime::ByteRange> EncodedPlan::ranges() const {
  std::vector<runtime::ByteRange> ranges = {{head_.data(), head_.size()}};
  uint64_t at = head_.size();
  for (const Placed &piece : pieces_) {
    appendZeros(ranges, piece.fileOffset - at);
    if (piece.bytes.size > 0)
      ranges.push_back(piece.bytes);
    at = piece.fileOffset + piece.bytes.size;
  }
  appendZeros(ranges, fileSize_ - at);
  return ranges;
}

std::vector<uint8_t> EncodedPlan::bytes() const {
  std::vector<uint8_t> file;
  file.reserve(fileSize_);
  for (const runtime::ByteRange &range : ranges())
    file.insert(file.end(), range.data, range.data + range.size);
  return file;
}

std::vector<uint8_t> encodePlan(const json &manifestWithoutSections, const std::vector<Section> &sections) {
  std::vector<SectionPieces> pieces;
  pieces.reserve(sections.size());
  for (const Section &section : sections)
    pieces.push_back({section.name, section.bytes.size(), {{0, {section.bytes.data(), section.bytes.size()}}}, {}});
  return encodePlanPieces(manifestWithoutSections, std::move(pieces)).bytes();
}

EncodedPlan encodePlanPieces(const json &manifestWithoutSections, std::vector<SectionPieces> sections) {
  if (!manifestWithoutSections.is_object())
    throw Error("cannot encode plan: the manifest must be a JSON object");
  std::set<std::string> names;
  std::vector<uint64_t> checksums;
  for (const SectionPieces &section : sections) {
    if (!names.insert(section.name).second)
      throw Error("cannot encode plan: duplicate section '" + section.name + "'");
    checksums.push_back(checksumPieces(section));
  }

  // The section offsets written into the manifest depend on the manifest's
  // length. Starting from all-zero offsets, each round can only lengthen the
  // manifest (offsets never shrink, so neither do their digits), so the
  // offsets grow monotonically to a fixed point within a few rounds.
  json manifest = manifestWithoutSections;
  std::vector<uint64_t> offsets(sections.size(), 0);
  std::string text;
  while (true) {
    manifest["sections"] = sectionsArray(sections, offsets, checksums);
    text = serialize(manifest);
    std::vector<uint64_t> settled = layoutSections(kHeaderSize + text.size(), sections);
    if (settled == offsets)
      break;
    offsets = std::move(settled);
  }

  EncodedPlan plan;
  plan.fileSize_ = kHeaderSize + text.size();
  if (!sections.empty())
    plan.fileSize_ = offsets.back() + sections.back().size;
  std::vector<uint8_t> &head = plan.head_;
  head.assign(kHeaderSize, 0);
  std::memcpy(head.data(), kMagic, sizeof(kMagic));
  storeLE(&head[kMajorAt], kMajorVersion, 4);
  storeLE(&head[kMinorAt], kMinorVersion, 4);
  storeLE(&head[kManifestOffsetAt], kHeaderSize, 8);
  storeLE(&head[kManifestSizeAt], text.size(), 8);
  storeLE(&head[kManifestChecksumAt], fnv1a64(text.data(), text.size()), 8);
  storeLE(&head[kFileSizeAt], plan.fileSize_, 8);
  head.insert(head.end(), text.begin(), text.end());
  for (size_t i = 0; i < sections.size(); ++i) {
    for (const SectionPieces::Piece &piece : sections[i].pieces)
      plan.pieces_.push_back({offsets[i] + piece.offset, piece.bytes});
    // Moving a vector keeps its buffer where the pieces point.
    for (std::vector<uint8_t> &bytes : sections[i].storage)
      plan.storage_.push_back(std::move(bytes));
  }
  return plan;
}

DecodedContainer decodePlan(const uint8_t *data, size_t size, const std::string &sourceName) {
  DecodedContainer result = decodePlanHead(data, size, size, sourceName);
  for (const SectionRef &section : result.sections) {
    const std::string computed = toHex64(fnv1a64(data + section.offset, section.size));
    if (computed != section.checksum)
      failDecoding(sourceName, "section '" + section.name + "' checksum mismatch (recorded " + section.checksum +
                                   ", computed " + computed + "; the file is corrupt)");
  }
  return result;
}

DecodedContainer decodePlanHead(const uint8_t *data, size_t headSize, uint64_t fileSize,
                                const std::string &sourceName) {
  const uint64_t size = fileSize;
  auto fail = [&](const std::string &reason) { failDecoding(sourceName, reason); };

  if (headSize < kHeaderSize)
    fail("file is too short to be a fusec plan (" + std::to_string(headSize) + " bytes; the header alone is " +
         std::to_string(kHeaderSize) + ")");
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    fail("not a fusec plan (bad magic; expected \"FUSEPLAN\")");

  DecodedContainer result;
  result.majorVersion = static_cast<uint32_t>(loadLE(data + kMajorAt, 4));
  result.minorVersion = static_cast<uint32_t>(loadLE(data + kMinorAt, 4));
  const std::string version = std::to_string(result.majorVersion) + "." + std::to_string(result.minorVersion);
  const std::string supported =
      std::to_string(kOldestReadableMajorVersion) + ".x to " + std::to_string(kMajorVersion) + ".x";
  if (result.majorVersion > kMajorVersion)
    fail("plan format version " + version + " is newer than this runtime supports (" + supported +
         "); upgrade the runtime or recompile the model with a matching fusec");
  if (result.majorVersion == 1)
    fail("plan format " + version + " predates element types (2.0); recompile the model with this fusec");
  if (result.majorVersion < kOldestReadableMajorVersion)
    fail("plan format version " + version + " is no longer supported (" + supported + "); recompile the model");

  // Reserved for future minor versions, which may give them a meaning only
  // if every plan written before has them zero.
  for (size_t i = kReservedAt; i < kHeaderSize; ++i)
    if (data[i] != 0)
      fail("reserved header byte " + std::to_string(i) + " is " + std::to_string(data[i]) +
           ", not 0 (the file is corrupt)");

  const uint64_t recordedSize = loadLE(data + kFileSizeAt, 8);
  if (size < recordedSize)
    fail("file is truncated (" + std::to_string(size) + " bytes; the header records " + std::to_string(recordedSize) +
         ")");
  if (size > recordedSize)
    fail("file has trailing data (" + std::to_string(size) + " bytes; the header records " +
         std::to_string(recordedSize) + ")");

  const uint64_t manifestOffset = loadLE(data + kManifestOffsetAt, 8);
  const uint64_t manifestSize = loadLE(data + kManifestSizeAt, 8);
  if (manifestOffset != kHeaderSize)
    fail("manifest offset " + std::to_string(manifestOffset) + " is invalid (must be " + std::to_string(kHeaderSize) +
         ")");
  if (manifestSize > size - manifestOffset)
    fail("manifest size " + std::to_string(manifestSize) + " runs past the end of the file (" + std::to_string(size) +
         " bytes)");
  if (manifestSize > headSize - manifestOffset)
    fail("manifest size " + std::to_string(manifestSize) + " runs past the " + std::to_string(headSize) +
         " bytes given");
  const uint8_t *manifestBytes = data + manifestOffset;
  if (fnv1a64(manifestBytes, manifestSize) != loadLE(data + kManifestChecksumAt, 8))
    fail("manifest checksum mismatch (the file is corrupt)");

  try {
    result.manifest = json::parse(manifestBytes, manifestBytes + manifestSize);
  } catch (const json::exception &e) {
    fail(std::string("manifest is not valid JSON: ") + e.what());
  }

  const uint64_t manifestEnd = manifestOffset + manifestSize;
  runtime::JsonFieldReader root(result.manifest, sourceName, "");
  std::set<std::string> names;
  for (size_t i = 0; i < root.getArray("sections").size(); ++i) {
    runtime::JsonFieldReader entry = root.element("sections", i);
    SectionRef section;
    section.name = entry.getString("name");
    section.offset = entry.getUnsigned("offset");
    section.size = entry.getUnsigned("size");
    section.checksum = entry.getString("checksum");
    const std::string where = "section '" + section.name + "'";
    if (!names.insert(section.name).second)
      fail("duplicate " + where);
    if (section.offset < manifestEnd || section.offset > size || section.size > size - section.offset)
      fail(where + " (offset " + std::to_string(section.offset) + ", size " + std::to_string(section.size) +
           ") lies outside the data area [" + std::to_string(manifestEnd) + ", " + std::to_string(size) + ")");
    if (section.offset % kSectionAlignment != 0)
      fail(where + " offset " + std::to_string(section.offset) + " is not a multiple of " +
           std::to_string(kSectionAlignment));
    result.sections.push_back(std::move(section));
  }
  return result;
}

} // namespace fusec::plan
