//===- PlanContainerTest.cpp - Encoding and decoding the plan envelope ------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/plan/PlanContainer.h"

#include <cstring>

using namespace fusec;
using namespace fusec::plan;
using nlohmann::json;

namespace {

uint64_t readLE64(const std::vector<uint8_t> &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | bytes[at + i];
  return value;
}

std::vector<Section> twoSections() {
  return {{"weights", std::vector<uint8_t>(100, 0xab)}, {"kernel_images", {1, 2, 3}}};
}

} // namespace

TEST_CASE("encodePlan lays out the header, manifest and aligned sections") {
  const json manifest = {{"target", "cpu"}, {"kernels", json::array()}};
  const std::vector<uint8_t> file = encodePlan(manifest, twoSections());

  REQUIRE(file.size() >= kHeaderSize);
  CHECK(std::memcmp(file.data(), "FUSEPLAN", 8) == 0);
  CHECK((file[8] | file[9] << 8) == static_cast<int>(kMajorVersion));
  CHECK(readLE64(file, 16) == kHeaderSize);
  CHECK(readLE64(file, 40) == file.size());
  for (size_t i = 48; i < 64; ++i)
    CHECK(file[i] == 0);

  const uint64_t manifestSize = readLE64(file, 24);
  const std::string text(file.begin() + kHeaderSize, file.begin() + kHeaderSize + manifestSize);
  CHECK(readLE64(file, 32) == fnv1a64(text.data(), text.size()));
  const json parsed = json::parse(text);
  CHECK(parsed["target"] == "cpu");
  // Serialized with sorted keys and without whitespace.
  CHECK(text == parsed.dump());

  const json &sections = parsed["sections"];
  REQUIRE(sections.size() == 2);
  CHECK(sections[0]["name"] == "weights");
  CHECK(sections[0]["size"] == 100);
  CHECK(sections[1]["name"] == "kernel_images");
  const uint64_t first = sections[0]["offset"];
  const uint64_t second = sections[1]["offset"];
  CHECK(first >= kHeaderSize + manifestSize);
  CHECK(first % kSectionAlignment == 0);
  CHECK(second % kSectionAlignment == 0);
  CHECK(second >= first + 100);
  CHECK(file[first] == 0xab);
  CHECK(file[second + 2] == 3);
  CHECK(second + 3 == file.size());
  CHECK(sections[1]["checksum"] == toHex64(fnv1a64(std::vector<uint8_t>{1, 2, 3}.data(), 3)));
}

TEST_CASE("encodePlan is deterministic and replaces a stale sections entry") {
  json manifest = {{"b", 1}, {"a", {{"z", 2}, {"y", 3}}}};
  const std::vector<uint8_t> once = encodePlan(manifest, twoSections());
  CHECK(encodePlan(manifest, twoSections()) == once);
  manifest["sections"] = json::array({{{"name", "stale"}}});
  CHECK(encodePlan(manifest, twoSections()) == once);
}

TEST_CASE("section offsets are consistent when they change the manifest size") {
  // Sizes chosen so that offsets cross digit-count boundaries, which lengthens
  // the manifest that the offsets depend on.
  for (size_t payload : {0u, 1u, 9u, 10u, 900u, 9000u, 99990u}) {
    for (size_t padding : {0u, 7u, 40u, 63u, 64u, 950u}) {
      json manifest = {{"pad", std::string(padding, 'p')}};
      std::vector<Section> sections = {
          {"a", std::vector<uint8_t>(payload, 1)}, {"b", std::vector<uint8_t>(payload, 2)}, {"c", {}}};
      const std::vector<uint8_t> file = encodePlan(manifest, sections);
      const DecodedContainer decoded = decodePlan(file.data(), file.size(), "test.plan");
      REQUIRE(decoded.sections.size() == 3);
      CHECK(decoded.sections[0].size == payload);
      if (payload > 0) {
        CHECK(file[decoded.sections[0].offset] == 1);
        CHECK(file[decoded.sections[1].offset + payload - 1] == 2);
      }
    }
  }
}

TEST_CASE("decodePlan round-trips the manifest and sections") {
  const json manifest = {{"target", "cpu"}, {"n", 42}};
  const std::vector<uint8_t> file = encodePlan(manifest, twoSections());
  const DecodedContainer decoded = decodePlan(file.data(), file.size(), "x");
  CHECK(decoded.majorVersion == kMajorVersion);
  CHECK(decoded.minorVersion == kMinorVersion);
  CHECK(decoded.manifest["n"] == 42);
  REQUIRE(decoded.sections.size() == 2);
  CHECK(decoded.sections[1].name == "kernel_images");
  CHECK(decoded.sections[1].size == 3);
  CHECK(std::memcmp(file.data() + decoded.sections[1].offset, std::vector<uint8_t>{1, 2, 3}.data(), 3) == 0);
}

TEST_CASE("encodePlan rejects duplicate sections and non-object manifests") {
  CHECK_THROWS_WITH(encodePlan(json::object(), {{"w", {}}, {"w", {}}}), Catch::Contains("duplicate section 'w'"));
  CHECK_THROWS_WITH(encodePlan(json::array(), {}), Catch::Contains("must be a JSON object"));
}

TEST_CASE("a plan encoded from pieces is the plan encodePlan assembles") {
  // Pieces with gaps (zeros), one at the section's start, one ending at its
  // end, a gap longer than a run of zeros, and bytes the section owns.
  std::vector<uint8_t> first(70, 0x11), second(5000, 0x22), owned(3, 0x33);
  SectionPieces weights{"weights", 10000, {}, {}};
  weights.pieces.push_back({0, {first.data(), first.size()}});
  weights.pieces.push_back({128, {second.data(), second.size()}});
  weights.storage.push_back(owned);
  weights.pieces.push_back({9997, {weights.storage.back().data(), 3}});
  SectionPieces images{"kernel_images", 7, {}, {}};
  images.pieces.push_back({2, {owned.data(), owned.size()}});

  std::vector<uint8_t> assembled(10000, 0);
  std::memcpy(assembled.data(), first.data(), first.size());
  std::memcpy(assembled.data() + 128, second.data(), second.size());
  std::memcpy(assembled.data() + 9997, owned.data(), 3);
  const json manifest = {{"target", "cpu"}};
  const std::vector<uint8_t> expected =
      encodePlan(manifest, {{"weights", assembled}, {"kernel_images", {0, 0, 0x33, 0x33, 0x33, 0, 0}}});

  const EncodedPlan encoded = encodePlanPieces(manifest, {weights, images});
  CHECK(encoded.fileSize() == expected.size());
  CHECK(encoded.bytes() == expected);
  size_t total = 0;
  for (const runtime::ByteRange &range : encoded.ranges())
    total += range.size;
  CHECK(total == expected.size());
  // The head alone passes every check but the sections' checksums.
  const DecodedContainer head =
      decodePlanHead(encoded.head().data(), encoded.head().size(), encoded.fileSize(), "pieces.plan");
  CHECK(head.sections.size() == 2);
  CHECK(head.sections[0].checksum == toHex64(fnv1a64(assembled.data(), assembled.size())));
}

TEST_CASE("encodePlanPieces rejects overlapping and overrunning pieces") {
  std::vector<uint8_t> bytes(10, 1);
  SectionPieces overlapping{"w", 100, {{0, {bytes.data(), 10}}, {5, {bytes.data(), 10}}}, {}};
  CHECK_THROWS_WITH(encodePlanPieces(json::object(), {overlapping}), Catch::Contains("overlaps another"));
  SectionPieces overrunning{"w", 12, {{5, {bytes.data(), 10}}}, {}};
  CHECK_THROWS_WITH(encodePlanPieces(json::object(), {overrunning}), Catch::Contains("runs past the section's 12"));
}

TEST_CASE("decodePlanHead checks the file size and the manifest against the head") {
  const std::vector<uint8_t> file = encodePlan(json{{"n", 1}}, twoSections());
  const uint64_t manifestEnd = kHeaderSize + readLE64(file, 24);
  CHECK_NOTHROW(decodePlanHead(file.data(), manifestEnd, file.size(), "h"));
  CHECK_THROWS_WITH(decodePlanHead(file.data(), manifestEnd, file.size() - 1, "h"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(decodePlanHead(file.data(), manifestEnd - 1, file.size(), "h"),
                    Catch::Contains("runs past the " + std::to_string(manifestEnd - 1) + " bytes given"));
}
