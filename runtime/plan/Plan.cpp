//===- Plan.cpp - A loaded, validated model.plan ----------------------------===//

#include "runtime/plan/Plan.h"

#include "runtime/Error.h"
#include "runtime/plan/PlanReader.h"
#include "runtime/plan/PlanVerifier.h"
#include "support/FileIO.h"

#include <algorithm>
#include <limits>

namespace fusec::runtime {

using nlohmann::json;

std::string formatDims(const std::map<std::string, int64_t> &dims) {
  std::string text;
  for (const auto &[name, size] : dims)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  return text;
}

const char *bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Weight:
    return "weight";
  case BufferKind::Arena:
    return "arena";
  }
  return "unknown";
}

BatchLinear BufferDesc::byteSize() const {
  int64_t bytes = static_cast<int64_t>(elementSize(dtype));
  for (int64_t dim : shape)
    if (dim != plan::kBatchDim)
      bytes *= dim;
  if (hasBatchDim(shape))
    return BatchLinear{bytes, 0};
  return BatchLinear{0, bytes};
}

BatchLinear BufferDesc::spanBytes() const {
  const BatchLinear bytes = byteSize();
  if (!view || view->chunk == view->pitch || view->chunk == 0)
    return bytes;
  // rows * pitch elements, less the gap after the last row's chunk.
  const int64_t element = static_cast<int64_t>(elementSize(dtype)), rowBytes = view->chunk * element,
                pitchBytes = view->pitch * element;
  return BatchLinear{bytes.perBatch / rowBytes * pitchBytes,
                     bytes.fixed / rowBytes * pitchBytes - (pitchBytes - rowBytes)};
}

Plan::Plan(std::string sourceName, std::shared_ptr<const void> storage, ByteRange bytes,
           std::vector<plan::SectionRef> sections, PlanManifest manifest, std::vector<PlanManifest> shapeVariants)
    : sourceName_(std::move(sourceName)), storage_(std::move(storage)), bytes_(bytes), sections_(std::move(sections)),
      manifest_(std::move(manifest)) {
  for (PlanManifest &variant : shapeVariants)
    shapeVariants_.push_back(Plan(sourceName_, storage_, bytes_, sections_, std::move(variant), {}));
}

namespace {

struct CheckedPlan {
  plan::DecodedContainer container;
  PlanManifest manifest;
  std::vector<PlanManifest> shapeVariants;
};

/// Shape variant `entry`'s whole manifest: its own fields and the ones it
/// shares with `root`.
json variantManifest(const json &root, const json &entry, const std::string &where) {
  if (!entry.is_object())
    throw Error(where + ": must be an object");
  json manifest = entry;
  for (const char *field : plan::kSharedManifestFields) {
    if (entry.contains(field))
      throw Error(where + ": '" + field + "' is shared by every shape variant and may only be given once, at the top");
    if (root.contains(field))
      manifest[field] = root[field];
  }
  if (entry.contains(plan::kShapeVariantsField))
    throw Error(where + ": a shape variant cannot hold shape variants");
  return manifest;
}

/// A session describes every variant with the first one's inputs and
/// outputs and picks one by its inputs' sizes, so the variants differ only
/// in the sizes of the dimensions `dims` names.
void checkSameInterface(const std::vector<TensorDesc> &first, const std::vector<TensorDesc> &variant, const char *what,
                        const std::string &where) {
  if (variant.size() != first.size())
    throw Error(where + ": it has " + std::to_string(variant.size()) + " " + what + "s, the first variant " +
                std::to_string(first.size()));
  for (size_t i = 0; i < first.size(); ++i) {
    const TensorDesc &a = first[i];
    const TensorDesc &b = variant[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape.size() != b.shape.size())
      throw Error(where + ": " + what + " " + std::to_string(i) + " is '" + b.name + "' (" + elementTypeName(b.dtype) +
                  ", rank " + std::to_string(b.shape.size()) + "), the first variant's '" + a.name + "' (" +
                  elementTypeName(a.dtype) + ", rank " + std::to_string(a.shape.size()) + ")");
    for (size_t d = 0; d < a.shape.size(); ++d)
      if ((a.shape[d] == plan::kBatchDim) != (b.shape[d] == plan::kBatchDim))
        throw Error(where + ": " + what + " '" + a.name +
                    "' has its batch dimension elsewhere than in the first variant");
  }
}

void checkShapeVariants(const PlanManifest &first, const std::vector<PlanManifest> &variants,
                        const std::string &sourceName) {
  if (variants.empty())
    return;
  if (first.dims.empty())
    throw Error(sourceName + ": the plan has shape variants but no 'dims' naming the sizes it was compiled for");
  for (size_t i = 0; i < variants.size(); ++i) {
    const PlanManifest &variant = variants[i];
    const std::string where =
        sourceName + ": shape variant " + std::to_string(i + 1) + " (" + formatDims(variant.dims) + ")";
    auto sameNames = [](const auto &a, const auto &b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const auto &x, const auto &y) { return x.first == y.first; });
    };
    if (!sameNames(variant.dims, first.dims))
      throw Error(where + ": its dims name other dimensions than the first variant's (" + formatDims(first.dims) + ")");
    if (variant.dims == first.dims)
      throw Error(where + ": the first variant has the same sizes");
    for (size_t j = 0; j < i; ++j)
      if (variants[j].dims == variant.dims)
        throw Error(where + ": shape variant " + std::to_string(j + 1) + " has the same sizes");
    checkSameInterface(first.inputs, variant.inputs, "input", where);
    checkSameInterface(first.outputs, variant.outputs, "output", where);
    // A session picks a variant by its inputs' shapes.
    for (size_t j = 0; j <= i; ++j) {
      const PlanManifest &other = j == 0 ? first : variants[j - 1];
      const bool sameShapes =
          std::equal(variant.inputs.begin(), variant.inputs.end(), other.inputs.begin(), other.inputs.end(),
                     [](const TensorDesc &a, const TensorDesc &b) { return a.shape == b.shape; });
      if (sameShapes)
        throw Error(where + ": its inputs have the shapes of " +
                    (j == 0 ? std::string("the first variant") : "shape variant " + std::to_string(j)) +
                    "'s, so a run could not tell them apart");
    }
  }
}

/// The sizes of the sections the verifier checks offsets against.
SectionSizes sectionSizesOf(const std::vector<plan::SectionRef> &sections) {
  SectionSizes sizes;
  for (const plan::SectionRef &section : sections) {
    if (section.name == plan::kWeightsSection)
      sizes.weights = section.size;
    if (section.name == plan::kKernelImagesSection)
      sizes.kernelImages = section.size;
  }
  return sizes;
}

/// Verifies a manifest, and one with ranges at both ends of every range: a
/// buffer's bytes grow with each dimension, so the layout that fits and does
/// not overlap at the maximum does so at every size (DimensionRanges.h), and
/// the checks that sizes may fail the other way (a slice or a window larger
/// than its input) fail at the minimum.
void verifyManifestOverRanges(const PlanManifest &manifest, const SectionSizes &sizes, const std::string &where) {
  if (manifest.ranges.empty()) {
    verifyManifest(manifest, sizes, where);
    return;
  }
  verifyRanges(manifest.ranges, manifest.dims, where);
  for (const auto &bound : {rangeMinimums(manifest.ranges), rangeMaximums(manifest.ranges)})
    verifyManifest(specializeManifest(manifest, bound), sizes, where + " at " + formatDims(bound));
}

/// Checks the manifest of a decoded container, and the manifest against it.
CheckedPlan verifyDecoded(plan::DecodedContainer container, const std::string &sourceName) {
  CheckedPlan result;
  result.container = std::move(container);
  result.manifest = readManifest(result.container.manifest, sourceName);
  const std::string headerVersion =
      std::to_string(result.container.majorVersion) + "." + std::to_string(result.container.minorVersion);
  if (result.manifest.formatVersion != headerVersion)
    throw Error(sourceName + ": manifest format_version '" + result.manifest.formatVersion +
                "' does not match the header's version " + headerVersion + " (the file is corrupt)");
  const SectionSizes sizes = sectionSizesOf(result.container.sections);
  verifyManifestOverRanges(result.manifest, sizes, sourceName);

  const json &root = result.container.manifest;
  if (root.contains(plan::kShapeVariantsField)) {
    const json &entries = root[plan::kShapeVariantsField];
    if (!entries.is_array())
      throw Error(sourceName + ": '" + plan::kShapeVariantsField + "' must be an array");
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string where = sourceName + ": " + plan::kShapeVariantsField + "[" + std::to_string(i) + "]";
      PlanManifest variant = readManifest(variantManifest(root, entries[i], where), where);
      verifyManifestOverRanges(variant, sizes, where);
      result.shapeVariants.push_back(std::move(variant));
    }
  }
  checkShapeVariants(result.manifest, result.shapeVariants, sourceName);
  return result;
}

/// Every check of Plan::fromBytes, on bytes it does not own.
CheckedPlan decodeAndVerify(const uint8_t *data, size_t size, const std::string &sourceName) {
  return verifyDecoded(plan::decodePlan(data, size, sourceName), sourceName);
}

} // namespace

Plan Plan::load(const std::string &path) {
  std::shared_ptr<const MappedFile> file = MappedFile::open(path);
  CheckedPlan checked = decodeAndVerify(file->data(), file->size(), path);
  ByteRange bytes{file->data(), file->size()};
  return Plan(path, std::move(file), bytes, std::move(checked.container.sections), std::move(checked.manifest),
              std::move(checked.shapeVariants));
}

Plan Plan::fromBytes(std::vector<uint8_t> bytes, std::string sourceName) {
  CheckedPlan checked = decodeAndVerify(bytes.data(), bytes.size(), sourceName);
  auto storage = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  ByteRange range{storage->data(), storage->size()};
  return Plan(std::move(sourceName), std::move(storage), range, std::move(checked.container.sections),
              std::move(checked.manifest), std::move(checked.shapeVariants));
}

void Plan::verifyBytes(const uint8_t *data, size_t size, const std::string &sourceName) {
  decodeAndVerify(data, size, sourceName);
}

void Plan::verifyEncoded(const plan::EncodedPlan &plan, const std::string &sourceName) {
  verifyDecoded(plan::decodePlanHead(plan.head().data(), plan.head().size(), plan.fileSize(), sourceName), sourceName);
}

Plan Plan::specialize(const std::map<std::string, int64_t> &sizes) const {
  PlanManifest specialized = specializeManifest(manifest_, sizes);
  const std::string where = sourceName_ + " at " + formatDims(sizes);
  verifyManifest(specialized, sectionSizesOf(sections_), where);
  return Plan(where, storage_, bytes_, sections_, std::move(specialized), {});
}

Plan Plan::specializeAt(const std::map<std::string, int64_t> &dims) const {
  std::map<std::string, int64_t> sizes;
  for (const DimensionRange &range : ranges())
    sizes[range.name] = range.opt;
  for (const auto &[name, size] : dims) {
    auto fixed = this->dims().find(name);
    if (fixed == this->dims().end() || fixed->second != size)
      sizes[name] = size; // specialize() names an unknown dimension
  }
  return specialize(sizes);
}

const Plan *Plan::findShapeVariant(const std::map<std::string, int64_t> &dims) const {
  if (this->dims() == dims)
    return this;
  for (const Plan &variant : shapeVariants_)
    if (variant.dims() == dims)
      return &variant;
  return nullptr;
}

std::vector<std::map<std::string, int64_t>> Plan::shapeVariantDims() const {
  std::vector<std::map<std::string, int64_t>> dims = {this->dims()};
  for (const Plan &variant : shapeVariants_)
    dims.push_back(variant.dims());
  return dims;
}

std::string Plan::describeShapeVariants() const {
  auto describe = [](const Plan &plan) {
    std::string text = formatDims(plan.dims());
    if (!plan.ranges().empty())
      text += (text.empty() ? "" : ", ") + formatRanges(plan.ranges()) + " (min:opt:max)";
    return text;
  };
  if (dims().empty() && ranges().empty())
    return "no named dimensions";
  std::string text = describe(*this);
  for (const Plan &variant : shapeVariants_)
    text += "; " + describe(variant);
  return text;
}

ByteRange Plan::sectionBytes(const std::string &name) const {
  for (const plan::SectionRef &section : sections_)
    if (section.name == name)
      return ByteRange{bytes_.data + section.offset, static_cast<size_t>(section.size)};
  return ByteRange{};
}

const void *Plan::weightData(const BufferDesc &buffer) const {
  // The verifier checked that the weight lies inside the section and that
  // its offset is a multiple of its element size; sections start 64-byte
  // aligned in the file, and the file bytes are mapped at a page boundary
  // (load) or allocated with at least 8-byte alignment (fromBytes).
  ByteRange weights = sectionBytes(plan::kWeightsSection);
  return weights.data + buffer.weightOffset;
}

ByteRange Plan::imageBytes(const ImageRange &range) const {
  // The verifier checked that the range lies inside the section.
  ByteRange images = sectionBytes(plan::kKernelImagesSection);
  return ByteRange{images.data + range.offset, static_cast<size_t>(range.size)};
}

} // namespace fusec::runtime
