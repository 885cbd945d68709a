//===- ShapeVariants.cpp - One plan for several sizes of named dimensions -===//

#include "compiler/ShapeVariants.h"

#include "runtime/ElementType.h"
#include "runtime/Error.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanContainer.h"
#include "support/Hash.h"

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
      for (int64_t size : sizes) {
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

/// The bytes of section `name` in a decoded plan file (empty if none).
runtime::ByteRange sectionOf(const std::vector<uint8_t> &file, const plan::DecodedContainer &container,
                             const char *name) {
  for (const plan::SectionRef &section : container.sections)
    if (section.name == name)
      return {file.data() + section.offset, static_cast<size_t>(section.size)};
  return {};
}

/// Moves the image ranges of `images` (a manifest "images" array) into
/// `shared`.
void relocateImages(json &images, runtime::ByteRange section, SharedSection &shared) {
  for (json &image : images) {
    const uint64_t offset = image.at("offset").get<uint64_t>();
    const uint64_t size = image.at("size").get<uint64_t>();
    image["offset"] = shared.add(section.data + offset, size);
  }
}

} // namespace

std::vector<uint8_t> mergeShapeVariants(const std::vector<std::vector<uint8_t>> &plans) {
  if (plans.empty())
    throw Error("no plans to merge");
  SharedSection weights(plan::kWeightsSection);
  SharedSection images(plan::kKernelImagesSection);
  bool hasImages = false;
  json root;
  json variants = json::array();
  for (size_t index = 0; index < plans.size(); ++index) {
    const std::vector<uint8_t> &file = plans[index];
    const std::string name = "shape variant " + std::to_string(index);
    // Every range read below lies inside its section.
    runtime::Plan::verifyBytes(file.data(), file.size(), name);
    plan::DecodedContainer container = plan::decodePlan(file.data(), file.size(), name);
    json manifest = std::move(container.manifest);
    manifest.erase("sections");

    const runtime::ByteRange weightBytes = sectionOf(file, container, plan::kWeightsSection);
    for (json &buffer : manifest.at("buffers")) {
      if (buffer.at("kind") != "weight")
        continue;
      std::optional<runtime::ElementType> type = runtime::parseElementType(buffer.at("dtype").get<std::string>());
      if (!type)
        throw Error(name + ": weight '" + buffer.at("name").get<std::string>() + "' has an unknown dtype");
      uint64_t size = runtime::elementSize(*type);
      for (const json &dim : buffer.at("shape"))
        size *= dim.get<uint64_t>();
      buffer["offset"] = weights.add(weightBytes.data + buffer.at("offset").get<uint64_t>(), size);
    }
    const runtime::ByteRange imageBytes = sectionOf(file, container, plan::kKernelImagesSection);
    hasImages |= imageBytes.data != nullptr;
    for (json &kernel : manifest.at("kernels")) {
      if (kernel.contains("images"))
        relocateImages(kernel["images"], imageBytes, images);
      if (kernel.contains("variants"))
        for (json &variant : kernel["variants"])
          relocateImages(variant.at("images"), imageBytes, images);
    }

    if (index == 0) {
      root = std::move(manifest);
      continue;
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
  if (!variants.empty())
    root[plan::kShapeVariantsField] = std::move(variants);
  std::vector<plan::Section> sections;
  sections.push_back(weights.take());
  if (hasImages)
    sections.push_back(images.take());
  return plan::encodePlan(root, sections);
}

} // namespace fusec
