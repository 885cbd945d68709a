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
#include "support/ByteRange.h"
#include "support/FileIO.h"

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

/// A section given as byte ranges the encoder neither copies nor owns: each
/// range's bytes go at `offset` in the section. Ranges are in increasing
/// offset order and do not overlap; the gaps between them are zero bytes.
struct SectionPieces {
  struct Piece {
    uint64_t offset = 0;
    runtime::ByteRange bytes;
  };
  std::string name;
  uint64_t size = 0;
  std::vector<Piece> pieces;
  /// Bytes that pieces may point into and the encoded plan keeps (pieces
  /// made for the plan rather than viewed where they already were).
  std::vector<std::vector<uint8_t>> storage;
};

/// A plan file as its writer holds it: the header and manifest, then the
/// sections' pieces, which still point where their owners keep them (they
/// must outlive it). A ~100 MB model is then never assembled in memory.
class EncodedPlan {
public:
  /// The header and the manifest: the file's first bytes.
  const std::vector<uint8_t> &head() const { return head_; }
  uint64_t fileSize() const { return fileSize_; }
  /// The whole file as ranges in order, zero padding included.
  std::vector<runtime::ByteRange> ranges() const;
  /// The whole file in one buffer.
  std::vector<uint8_t> bytes() const;

private:
  friend EncodedPlan encodePlanPieces(const nlohmann::json &, std::vector<SectionPieces>);
  struct Placed {
    uint64_t fileOffset;
    runtime::ByteRange bytes;
  };
  std::vector<uint8_t> head_;
  uint64_t fileSize_ = 0;
  std::vector<Placed> pieces_;
  std::vector<std::vector<uint8_t>> storage_;
};

/// Where a section of a decoded plan lies in the file.
struct SectionRef {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  /// As the manifest records it (16 hex digits).
  std::string checksum;
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

/// encodePlan for sections given as pieces: the same file, not assembled.
EncodedPlan encodePlanPieces(const nlohmann::json &manifestWithoutSections, std::vector<SectionPieces> sections);

/// Checks the header (magic, major version, sizes), the manifest checksum and
/// JSON syntax, and every section's entry, range and checksum. Throws
/// runtime::Error naming `sourceName` and the reason on the first problem.
DecodedContainer decodePlan(const uint8_t *data, size_t size, const std::string &sourceName);

/// decodePlan's checks of a file of `fileSize` bytes that begins with
/// `head` (at least its header and manifest), except the sections'
/// checksums, which need their bytes.
DecodedContainer decodePlanHead(const uint8_t *head, size_t headSize, uint64_t fileSize, const std::string &sourceName);

/// Plan writers write their file with this (see support/FileIO.h).
using runtime::writeFileAtomically;

} // namespace fusec::plan

#endif // FUSEC_RUNTIME_PLAN_PLANCONTAINER_H
