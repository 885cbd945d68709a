//===- PlanContainer.h - Encode and decode the model.plan container ---------===//
//
// The container is the binary envelope of a plan: header, JSON manifest and
// 64-byte aligned sections (layout in PlanFormat.h). The plan writer in
// compiler/ and the reader in runtime/ both go through this codec, so the
// format is defined in one place. What the manifest *means* is the business
// of PlanReader/PlanVerifier.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLANCONTAINER_H
#define FUSEC_RUNTIME_PLAN_PLANCONTAINER_H

#include "runtime/plan/PlanFormat.h"
#include "runtime/support/FileIO.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fusec::plan {

/// A named binary payload (weights, kernel images) to place in a plan.
struct Section {
  std::string name;
  std::vector<uint8_t> bytes;
};

/// Where a section of a decoded plan lies in the file.
struct SectionRef {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// The validated envelope of a plan file.
struct DecodedContainer {
  uint32_t majorVersion = 0;
  uint32_t minorVersion = 0;
  nlohmann::json manifest;
  std::vector<SectionRef> sections;
};

/// Lays out a plan file: header, `manifestWithoutSections` with its "sections"
/// array filled in (name, offset, size, checksum of each section, in the given
/// order; any existing "sections" entry is replaced), then the sections, each
/// at a multiple of kSectionAlignment. The manifest is serialized with sorted
/// keys and no whitespace, so equal inputs give byte-identical files. Throws
/// runtime::Error if two sections share a name or the manifest is not an
/// object.
std::vector<uint8_t> encodePlan(const nlohmann::json &manifestWithoutSections, const std::vector<Section> &sections);

/// Checks the header (magic, major version, sizes), the manifest checksum and
/// JSON syntax, and every section's entry, range and checksum. Throws
/// runtime::Error naming `sourceName` and the reason on the first problem.
DecodedContainer decodePlan(const uint8_t *data, size_t size, const std::string &sourceName);

/// Plan writers write their file with this (see runtime/support/FileIO.h).
using runtime::writeFileAtomically;

} // namespace fusec::plan

#endif // FUSEC_RUNTIME_PLAN_PLANCONTAINER_H
