//===- ShapeVariants.cpp - One plan for several sizes of named dimensions -===//

#include "compiler/ShapeVariants.h"

#include "runtime/ElementType.h"
#include "runtime/Error.h"
#include "runtime/plan/PlanContainer.h"
#include "runtime/plan/PlanFormat.h"
#include "support/Hash.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace fusec {

using nlohmann::json;
using runtime::Error;

std::vector<import::DimensionSizes> dimensionCombinations(const DimensionChoices &choices) {
  std::vector<import::DimensionSizes> combinations(1);
  for (const auto &[name, sizes] : choices) {
    std::vector<import::DimensionSizes> extended;
    for (const import::DimensionSizes &prefix : combinations)
      for (const import::DimensionSize &size : sizes) {
        import::DimensionSizes combination = prefix;
        combination[name] = size;
        extended.push_back(std::move(combination));
      }
    combinations = std::move(extended);
  }
  return combinations;
}

size_t countDimensionCombinations(const DimensionChoices &choices) {
  size_t count = 1;
  for (const auto &entry : choices)
    count = std::min(count * std::max<size_t>(entry.second.size(), 1), kMaxShapeVariants + 1);
  return count;
}

namespace {

/// A section built from the variants' sections, each distinct content once.
class SharedSection {
public:
  explicit SharedSection(std::string name) : name_(std::move(name)) {}

  /// Where `size` bytes at `data` are in the shared section.
  uint64_t add(const uint8_t *data, uint64_t size) {
    if (size == 0)
      return 0; // nothing to store; any offset inside the section holds none
    const uint64_t hash = fnv1a64(data, size);
    for (uint64_t offset : byHash_[hash])
      if (sizes_[offset] == size && std::memcmp(bytes_.data() + offset, data, size) == 0)
        return offset;
    // Every weight and image starts 64-byte aligned, as in a plan of one.
    bytes_.resize(plan::alignTo(bytes_.size(), plan::kSectionAlignment));
    const uint64_t offset = bytes_.size();
    bytes_.insert(bytes_.end(), data, data + size);
    byHash_[hash].push_back(offset);
    sizes_[offset] = size;
    return offset;
  }

  plan::Section take() { return {name_, std::move(bytes_)}; }

private:
  std::string name_;
  std::vector<uint8_t> bytes_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> byHash_;
  std::unordered_map<uint64_t, uint64_t> sizes_;
};

/// The section named `name` of `contents`, or null.
const plan::SectionPieces *sectionOf(const PlanContents &contents, const char *name) {
  for (const plan::SectionPieces &section : contents.sections)
    if (section.name == name)
      return &section;
  return nullptr;
}

/// The `size` bytes at `offset` of `section`: where one piece holds them
/// (every weight and kernel image is a piece of its own), a view of it;
/// else assembled in `scratch`, the gaps between pieces zero.
const uint8_t *bytesAt(const plan::SectionPieces &section, uint64_t offset, uint64_t size,
                       std::vector<uint8_t> &scratch) {
  if (offset > section.size || size > section.size - offset)
    throw Error("section '" + section.name + "': bytes [" + std::to_string(offset) + ", +" + std::to_string(size) +
                ") lie beyond its " + std::to_string(section.size) + " bytes");
  for (const plan::SectionPieces::Piece &piece : section.pieces)
    if (piece.offset <= offset && offset + size <= piece.offset + piece.bytes.size)
      return piece.bytes.data + (offset - piece.offset);
  scratch.assign(size, 0);
  for (const plan::SectionPieces::Piece &piece : section.pieces) {
    const uint64_t begin = std::max(offset, piece.offset);
    const uint64_t end = std::min(offset + size, piece.offset + piece.bytes.size);
    if (begin < end)
      std::memcpy(scratch.data() + (begin - offset), piece.bytes.data + (begin - piece.offset), end - begin);
  }
  return scratch.data();
}

/// Moves the image ranges of `images` (a manifest "images" array) into
/// `shared`.
void relocateImages(json &images, const plan::SectionPieces &section, SharedSection &shared) {
  std::vector<uint8_t> scratch;
  for (json &image : images) {
    const uint64_t offset = image.at("offset").get<uint64_t>();
    const uint64_t size = image.at("size").get<uint64_t>();
    image["offset"] = shared.add(bytesAt(section, offset, size, scratch), size);
  }
}

} // namespace

struct ShapeVariantMerger::Shared {
  SharedSection weights{plan::kWeightsSection};
  SharedSection images{plan::kKernelImagesSection};
};

ShapeVariantMerger::ShapeVariantMerger() : shared(std::make_unique<Shared>()) {}
ShapeVariantMerger::~ShapeVariantMerger() = default;

void ShapeVariantMerger::add(const PlanContents &variant) {
  const std::string name = "shape variant " + std::to_string(count);
  json manifest = variant.manifest;
  manifest.erase("sections");
  std::vector<uint8_t> scratch;
  const plan::SectionPieces *weights = sectionOf(variant, plan::kWeightsSection);
  for (json &buffer : manifest.at("buffers")) {
    if (buffer.at("kind") != "weight")
      continue;
    std::optional<runtime::ElementType> type = runtime::parseElementType(buffer.at("dtype").get<std::string>());
    if (!type)
      throw Error(name + ": weight '" + buffer.at("name").get<std::string>() + "' has an unknown dtype");
    if (!weights)
      throw Error(name + ": weight '" + buffer.at("name").get<std::string>() + "' but no weights section");
    uint64_t size = runtime::elementSize(*type);
    for (const json &dim : buffer.at("shape"))
      size *= dim.get<uint64_t>();
    const uint64_t offset = buffer.at("offset").get<uint64_t>();
    buffer["offset"] = shared->weights.add(bytesAt(*weights, offset, size, scratch), size);
  }
  if (const plan::SectionPieces *images = sectionOf(variant, plan::kKernelImagesSection)) {
    hasImages = true;
    for (json &kernel : manifest.at("kernels")) {
      if (kernel.contains("images"))
        relocateImages(kernel["images"], *images, shared->images);
      if (kernel.contains("variants"))
        for (json &compiled : kernel["variants"])
          relocateImages(compiled.at("images"), *images, shared->images);
    }
  }
  ++count;
  if (count == 1) {
    root = std::move(manifest);
    return;
  }
  for (const char *field : plan::kSharedManifestFields) {
    if (field == std::string("sections"))
      continue;
    if (manifest.value(field, json()) != root.value(field, json()))
      throw Error(name + ": its '" + field + "' differs from the first variant's");
    manifest.erase(field);
  }
  variants.push_back(std::move(manifest));
}

PlanContents ShapeVariantMerger::finish() {
  if (count == 0)
    throw Error("no shape variants to merge");
  PlanContents merged;
  merged.manifest = std::move(root);
  if (!variants.empty())
    merged.manifest[plan::kShapeVariantsField] = std::move(variants);
  auto asPieces = [](plan::Section section) {
    plan::SectionPieces pieces{section.name, section.bytes.size()};
    pieces.pieces.push_back({0, {section.bytes.data(), section.bytes.size()}});
    pieces.storage.push_back(std::move(section.bytes));
    return pieces;
  };
  merged.sections.push_back(asPieces(shared->weights.take()));
  if (hasImages)
    merged.sections.push_back(asPieces(shared->images.take()));
  return merged;
}

} // namespace fusec
