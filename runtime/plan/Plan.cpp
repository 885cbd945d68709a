//===- Plan.cpp - A loaded, validated model.plan ----------------------------===//

#include "runtime/plan/Plan.h"

#include "runtime/Error.h"
#include "runtime/plan/PlanReader.h"
#include "runtime/plan/PlanVerifier.h"
#include "runtime/support/FileIO.h"

#include <algorithm>
#include <limits>

namespace fusec::runtime {

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

Plan::Plan(std::string sourceName, std::shared_ptr<const void> storage, ByteRange bytes,
           std::vector<plan::SectionRef> sections, PlanManifest manifest)
    : sourceName_(std::move(sourceName)), storage_(std::move(storage)), bytes_(bytes), sections_(std::move(sections)),
      manifest_(std::move(manifest)) {}

namespace {

struct CheckedPlan {
  plan::DecodedContainer container;
  PlanManifest manifest;
};

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
  SectionSizes sizes;
  for (const plan::SectionRef &section : result.container.sections) {
    if (section.name == plan::kWeightsSection)
      sizes.weights = section.size;
    if (section.name == plan::kKernelImagesSection)
      sizes.kernelImages = section.size;
  }
  verifyManifest(result.manifest, sizes, sourceName);
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
  return Plan(path, std::move(file), bytes, std::move(checked.container.sections), std::move(checked.manifest));
}

Plan Plan::fromBytes(std::vector<uint8_t> bytes, std::string sourceName) {
  CheckedPlan checked = decodeAndVerify(bytes.data(), bytes.size(), sourceName);
  auto storage = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  ByteRange range{storage->data(), storage->size()};
  return Plan(std::move(sourceName), std::move(storage), range, std::move(checked.container.sections),
              std::move(checked.manifest));
}

void Plan::verifyBytes(const uint8_t *data, size_t size, const std::string &sourceName) {
  decodeAndVerify(data, size, sourceName);
}

void Plan::verifyEncoded(const plan::EncodedPlan &plan, const std::string &sourceName) {
  verifyDecoded(plan::decodePlanHead(plan.head().data(), plan.head().size(), plan.fileSize(), sourceName), sourceName);
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
