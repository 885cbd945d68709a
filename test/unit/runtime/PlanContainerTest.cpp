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
