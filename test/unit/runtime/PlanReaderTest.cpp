//===- PlanReaderTest.cpp - Loading plans and rejecting bad ones ------------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/plan/Plan.h"

#include <cstring>
#include <functional>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

const char *const kName = "small.plan";

Plan fromBytes(const std::vector<uint8_t> &bytes) { return Plan::fromBytes(bytes, kName); }

/// The small plan re-encoded after `edit` changed its manifest.
std::vector<uint8_t> editedPlan(const std::function<void(json &)> &edit) {
  json manifest = test::smallPlanManifest();
  edit(manifest);
  return plan::encodePlan(manifest, test::smallPlanSections());
}

void storeLE(std::vector<uint8_t> &bytes, size_t at, uint64_t value, int size) {
  for (int i = 0; i < size; ++i)
    bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

/// A file with a valid header around `manifestText` taken verbatim (its
/// "sections" entries are not recomputed), and `data` placed at `dataOffset`.
std::vector<uint8_t> assemble(const std::string &manifestText, const std::vector<uint8_t> &data = {},
                              uint64_t dataOffset = 0) {
  const size_t end = std::max<size_t>(plan::kHeaderSize + manifestText.size(), dataOffset + data.size());
  std::vector<uint8_t> file(end, 0);
  std::memcpy(file.data(), plan::kMagic, 8);
  storeLE(file, 8, plan::kMajorVersion, 4);
  storeLE(file, 12, plan::kMinorVersion, 4);
  storeLE(file, 16, plan::kHeaderSize, 8);
  storeLE(file, 24, manifestText.size(), 8);
  storeLE(file, 32, fnv1a64(manifestText.data(), manifestText.size()), 8);
  storeLE(file, 40, file.size(), 8);
  std::memcpy(file.data() + plan::kHeaderSize, manifestText.data(), manifestText.size());
  if (!data.empty())
    std::memcpy(file.data() + dataOffset, data.data(), data.size());
  return file;
}

/// The small plan's manifest with a hand-written weights section entry, and
/// the weights placed at offset 4096.
std::vector<uint8_t> withWeightsEntry(uint64_t offset, uint64_t size) {
  const std::vector<uint8_t> weights = test::smallPlanSections()[0].bytes;
  json manifest = test::smallPlanManifest();
  manifest["sections"] = {{{"name", "weights"},
                           {"offset", offset},
                           {"size", size},
                           {"checksum", toHex64(fnv1a64(weights.data(), std::min<size_t>(size, weights.size())))}}};
  return assemble(manifest.dump(), weights, 4096);
}

size_t manifestEnd(const std::vector<uint8_t> &file) {
  return plan::kHeaderSize + (file[24] | file[25] << 8 | file[26] << 16);
}

} // namespace

TEST_CASE("a valid plan is parsed into plain structs") {
  const Plan plan = fromBytes(test::smallPlanBytes());
  CHECK(plan.sourceName() == kName);
  const PlanManifest &m = plan.manifest();
  CHECK(m.formatVersion == "7.5");
  CHECK(m.compilerVersion == "fusec test");
  CHECK(m.target == "cpu");
  CHECK(m.sourceHash == "0123456789abcdef");
  CHECK(m.batchBuckets == std::vector<int64_t>{1, 2, 4});

  REQUIRE(plan.inputs().size() == 1);
  CHECK(plan.inputs()[0].name == "x");
  CHECK(plan.inputs()[0].dtype == ElementType::F32);
  CHECK(plan.inputs()[0].shape == Shape{-1, 2});
  CHECK(plan.outputs()[0].buffer == 5);

  REQUIRE(plan.buffers().size() == 7);
  CHECK(plan.buffers()[1].kind == BufferKind::Weight);
  CHECK(plan.buffers()[2].weightOffset == 24);
  CHECK(plan.buffers()[3].kind == BufferKind::Arena);
  CHECK(plan.buffers()[3].arenaOffset.at(2) == 128);
  CHECK(plan.buffers()[3].byteSize().at(2) == 24);
  CHECK(plan.buffers()[6].name == "t1");
  CHECK(plan.arena().size.at(3) == 384);
  CHECK(plan.arena().lowerBound.at(3) == 72);

  REQUIRE(plan.kernels().size() == 3);
  CHECK(plan.kernels()[0].ops[0].attrs["transB"] == 1);
  // "attrs" may be omitted.
  CHECK(plan.kernels()[1].ops[0].attrs == json::object());
  const KernelDesc &k2 = plan.kernels()[2];
  CHECK(k2.name == "k2_add_add");
  CHECK(k2.kind == "elementwise");
  CHECK(k2.inputs == std::vector<size_t>{6, 4, 3});
  CHECK(k2.outputs == std::vector<size_t>{5});
  CHECK(k2.values.size() == 5);
  CHECK(k2.values[1] == Shape{3});
  REQUIRE(k2.ops.size() == 2);
  CHECK(k2.ops[1].op == "Add");
  CHECK(k2.ops[1].name == "add_skip");
  CHECK(k2.ops[1].operands == std::vector<size_t>{3, 2});
  CHECK(k2.ops[1].results == std::vector<size_t>{4});
  CHECK(k2.yields == std::vector<size_t>{4});

  const auto *c = static_cast<const float *>(plan.weightData(plan.buffers()[4]));
  CHECK(c[0] == 1.0f);
  CHECK(c[1] == -10.0f);
  CHECK(plan.sectionBytes("weights").size == 60);
  CHECK(plan.sectionBytes("kernel_images").data == nullptr);
}

TEST_CASE("Plan::load reads files and names missing ones") {
  test::TempDir dir;
  plan::writeFileAtomically(dir.file("m.plan"), test::smallPlanBytes());
  CHECK(Plan::load(dir.file("m.plan")).kernels().size() == 3);
  CHECK_THROWS_WITH(Plan::load(dir.file("absent.plan")), Contains("cannot open '" + dir.file("absent.plan") + "'"));
}

TEST_CASE("a truncated plan is rejected at every length") {
  const std::vector<uint8_t> file = test::smallPlanBytes();
  for (size_t length = 0; length < file.size(); ++length) {
    INFO("length " << length);
    std::vector<uint8_t> prefix(file.begin(), file.begin() + length);
    if (length < plan::kHeaderSize)
      CHECK_THROWS_WITH(fromBytes(prefix), Contains("small.plan: file is too short"));
    else
      CHECK_THROWS_WITH(fromBytes(prefix), Contains("small.plan: file is truncated"));
  }
}

TEST_CASE("trailing data, bad magic and version numbers") {
  std::vector<uint8_t> file = test::smallPlanBytes();

  std::vector<uint8_t> longer = file;
  longer.push_back(0);
  CHECK_THROWS_WITH(fromBytes(longer), Contains("trailing data"));

  std::vector<uint8_t> badMagic = file;
  badMagic[3] = 'X';
  CHECK_THROWS_WITH(fromBytes(badMagic), Contains("small.plan: not a fusec plan (bad magic"));

  std::vector<uint8_t> newerMajor = file;
  storeLE(newerMajor, 8, plan::kMajorVersion + 1, 4);
  storeLE(newerMajor, 12, 0, 4);
  CHECK_THROWS_WITH(fromBytes(newerMajor), Contains("plan format version 8.0 is newer than this "
                                                    "runtime supports (2.x to 7.x)"));

  std::vector<uint8_t> olderMajor = file;
  storeLE(olderMajor, 8, 0, 4);
  CHECK_THROWS_WITH(fromBytes(olderMajor), Contains("no longer supported"));

  // Minor versions only add what older readers may ignore.
  std::vector<uint8_t> newerMinor = editedPlan([](json &m) {
    m["format_version"] = std::to_string(plan::kMajorVersion) + "." + std::to_string(plan::kMinorVersion + 7);
  });
  storeLE(newerMinor, 12, plan::kMinorVersion + 7, 4);
  CHECK(fromBytes(newerMinor).kernels().size() == 3);

  std::vector<uint8_t> badManifestOffset = file;
  storeLE(badManifestOffset, 16, 128, 8);
  CHECK_THROWS_WITH(fromBytes(badManifestOffset), Contains("manifest offset 128 is invalid"));

  std::vector<uint8_t> hugeManifest = file;
  storeLE(hugeManifest, 24, file.size(), 8);
  CHECK_THROWS_WITH(fromBytes(hugeManifest), Contains("runs past the end of the file"));
}

TEST_CASE("flipped bytes are caught by the checksums") {
  const std::vector<uint8_t> file = test::smallPlanBytes();
  const size_t end = manifestEnd(file);
  for (size_t at : {plan::kHeaderSize, plan::kHeaderSize + 10, end - 1}) {
    std::vector<uint8_t> flipped = file;
    flipped[at] ^= 0x20;
    CHECK_THROWS_WITH(fromBytes(flipped), Contains("small.plan: manifest checksum mismatch"));
  }
  // The weights section is the last 60 bytes.
  for (size_t back : {1u, 30u, 60u}) {
    std::vector<uint8_t> flipped = file;
    flipped[file.size() - back] ^= 0x01;
    CHECK_THROWS_WITH(fromBytes(flipped), Contains("section 'weights' checksum mismatch"));
  }
}

TEST_CASE("section entries outside the file are rejected") {
  CHECK(fromBytes(withWeightsEntry(4096, 60)).buffers().size() == 7);
  CHECK_THROWS_WITH(fromBytes(withWeightsEntry(4096, 61)), Contains("section 'weights' (offset 4096, size 61) lies "
                                                                    "outside the data area"));
  CHECK_THROWS_WITH(fromBytes(withWeightsEntry(8192, 60)), Contains("lies outside the data area"));
  CHECK_THROWS_WITH(fromBytes(withWeightsEntry(uint64_t(1) << 62, 60)), Contains("lies outside the data area"));
  CHECK_THROWS_WITH(fromBytes(withWeightsEntry(0, 60)), Contains("lies outside the data area"));
  CHECK_THROWS_WITH(fromBytes(withWeightsEntry(4100, 50)), Contains("is not a multiple of 64"));
}

TEST_CASE("manifests that are not valid JSON or miss fields are rejected") {
  CHECK_THROWS_WITH(fromBytes(assemble("{\"target\": ")), Contains("small.plan: manifest is not valid JSON"));
  CHECK_THROWS_WITH(fromBytes(assemble("[1, 2]")), Contains("manifest: expected a JSON object"));
  CHECK_THROWS_WITH(fromBytes(assemble("{}")), Contains("small.plan: manifest: missing required field 'sections'"));

  for (const char *field : {"format_version", "compiler_version", "target", "source_hash", "batch_buckets", "inputs",
                            "outputs", "buffers", "arena", "kernels"}) {
    INFO(field);
    CHECK_THROWS_WITH(fromBytes(editedPlan([&](json &m) { m.erase(field); })),
                      Contains(std::string("manifest: missing required field '") + field + "'"));
  }
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["ops"][0].erase("op"); })),
                    Contains("small.plan: kernels[1].ops[0]: missing required field 'op'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["batch_buckets"] = "many"; })),
                    Contains("batch_buckets: expected an array, found string"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][3]["offset"].erase("fixed"); })),
                    Contains("buffers[3].offset: missing required field 'fixed'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][1]["offset"] = 1.5; })),
                    Contains("buffers[1].offset: expected an integer, found 1.5"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][0]["inputs"][1] = -1; })),
                    Contains("kernels[0].inputs: expected non-negative indices"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][0]["kind"] = "scratch"; })),
                    Contains("unknown buffer kind 'scratch'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][0]["ops"][0]["attrs"] = 3; })),
                    Contains("kernels[0].ops[0].attrs: expected a JSON object"));
}

TEST_CASE("buffer ids and references out of range are rejected") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][5]["id"] = 9; })),
                    Contains("buffers[5]: buffer id 9 is out of range (the plan has 7 "
                             "buffers"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][5]["id"] = 0; })),
                    Contains("duplicate buffer id 0"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][0]["inputs"][2] = 17; })),
                    Contains("kernel 'k0_gemm' input 2 refers to buffer 17, which is out of "
                             "range"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["outputs"][0]["buffer"] = 7; })),
                    Contains("output 'y' refers to buffer 7, which is out of range"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["inputs"][0]["buffer"] = 1; })),
                    Contains("input 'x' is bound to weight buffer 1 'W'; expected a buffer of "
                             "kind 'input'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][0]["outputs"][0] = 1; })),
                    Contains("kernel 'k0_gemm' output 0 writes weight buffer 1 'W'"));
}

TEST_CASE("kernel value indices out of range or out of order are rejected") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][0]["ops"][0]["operands"] = {0, 1, 9}; })),
                    Contains("kernel 'k0_gemm' op Gemm 'fc' operand 9 is out of range (the "
                             "kernel has 4 values)"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["ops"][0]["results"] = {4}; })),
                    Contains("op Relu 'relu' result 4 is out of range (the kernel has 2 "
                             "values)"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][2]["ops"][0]["operands"] = {3, 1}; })),
                    Contains("op Add 'add_c' uses value 3 before it is defined"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][2]["ops"][1]["results"] = {0}; })),
                    Contains("op Add 'add_skip' redefines value 0"));
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"].push_back({{"dtype", "f32"}, {"shape", {3}}}); })),
      Contains("kernel 'k1_relu' value 2 is neither a kernel input nor an op "
               "result"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][2]["yields"] = {8}; })),
                    Contains("kernel 'k2_add_add' yield 8 is out of range"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][2]["yields"] = {4, 3}; })),
                    Contains("yields 2 values for 1 outputs"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"][0]["shape"] = {-1, 4}; })),
                    Contains("kernel 'k1_relu' input 0 has shape [batch, 4] but arena "
                             "buffer 3 't0' has shape [batch, 3]"));
}

TEST_CASE("weights must lie inside the weights section") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][4]["offset"] = 52; })),
                    Contains("weight buffer 4 'c' (offset 52, 12 bytes) runs past the end "
                             "of the weights section (60 bytes)"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][4]["offset"] = 2; })),
                    Contains("offset 2 is not a multiple of 4 bytes"));
  CHECK_THROWS_WITH(fromBytes(plan::encodePlan(test::smallPlanManifest(), {})),
                    Contains("weight buffer 1 'W' needs a 'weights' section"));
}

TEST_CASE("arena buffers must lie inside the arena at every batch size") {
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["buffers"][3]["offset"] = {{"per_batch", 64}, {"fixed", 128}}; })),
      Contains("arena buffer 3 't0' (bytes [192, 204) at batch 1) lies beyond "
               "the arena (128 bytes at batch 1)"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) {
                      m["arena"]["per_batch"] = 64;
                      m["arena"]["fixed"] = 1024;
                    })),
                    Contains("arena buffer 3 't0' ends at 76*batch + 0 bytes, which "
                             "outgrows the arena of 64*batch + 1024 bytes"));
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["buffers"][3]["offset"] = {{"per_batch", 64}, {"fixed", 32}}; })),
      Contains("multiples of 64 bytes"));
}

TEST_CASE("graph inputs, outputs and kernel order are cross-checked") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["inputs"][0]["dtype"] = "f16"; })),
                    Contains("input 'x' has dtype f16 but input buffer 0 'x' has dtype f32"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["outputs"][0]["shape"] = {-1, 4}; })),
                    Contains("output 'y' has shape [batch, 4] but output buffer 5 'y' has "
                             "shape [batch, 3]"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { std::swap(m["kernels"][0], m["kernels"][1]); })),
                    Contains("kernel 'k1_relu' input 0 reads arena buffer 3 't0' before "
                             "any kernel writes it"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"].erase(2); })),
                    Contains("output 'y' is never written by a kernel"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][2]["shape"] = {-1, -1}; })),
                    Contains("more than one batch dimension"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][0]["shape"] = {-2, 2}; })),
                    Contains("invalid dimension -2"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["batch_buckets"] = {1, 0}; })),
                    Contains("batch bucket 0 is not positive"));
}

namespace {

/// The host step plan (a GPU plan) re-encoded after `edit`.
Plan gpuPlan(const std::function<void(json &)> &edit) {
  json manifest = test::hostStepPlanManifest();
  edit(manifest);
  return Plan::fromBytes(plan::encodePlan(manifest, test::hostStepPlanSections()), kName);
}

} // namespace

TEST_CASE("launch geometry and kernel images are read") {
  const Plan plan = gpuPlan([](json &) {});
  const KernelDesc &mul = plan.kernels()[0];
  REQUIRE(mul.launch);
  CHECK(mul.launch->block == std::array<int64_t, 3>{64, 1, 1});
  CHECK(mul.launch->grid[0].work.perBatch == 4);
  CHECK(mul.launch->grid[0].divisor == 64);
  CHECK(mul.launch->grid[2].work.fixed == 1);
  REQUIRE(mul.images.size() == 1);
  const KernelImage *ptxImage = mul.findImage("ptx");
  REQUIRE(ptxImage);
  CHECK(ptxImage->entry == "fusec_test_mul");
  CHECK(ptxImage->target == "sm_75");
  CHECK(ptxImage->range.offset == 0);
  CHECK_FALSE(mul.findImage("cubin"));
  const ByteRange ptx = plan.imageBytes(ptxImage->range);
  CHECK(std::string(reinterpret_cast<const char *>(ptx.data), 16) == "//\n// Two elemen");
  CHECK(plan.kernels()[1].isHostStep());
  CHECK_FALSE(plan.kernels()[1].launch);
  CHECK(plan.kernels()[3].isCopy());

  // Images of any format are kept, in order, each found by format and target.
  const Plan more = gpuPlan([](json &m) {
    m["kernels"][0]["images"].push_back(
        {{"format", "cubin"}, {"target", "sm_90"}, {"entry", "mul90"}, {"offset", 64}, {"size", 32}});
    m["kernels"][0]["images"].push_back(
        {{"format", "hsaco"}, {"target", "gfx942"}, {"entry", "mul"}, {"offset", 128}, {"size", 16}});
  });
  const KernelDesc &kernel = more.kernels()[0];
  REQUIRE(kernel.images.size() == 3);
  CHECK(kernel.findImage("cubin", "sm_90")->range.offset == 64);
  CHECK(kernel.findImage("cubin", "sm_90")->entry == "mul90");
  CHECK_FALSE(kernel.findImage("cubin", "sm_80"));
  CHECK(kernel.findImage("hsaco")->target == "gfx942");
}

TEST_CASE("a 3.1 plan (no split-K launches) is read by this runtime") {
  json manifest = test::hostStepPlanManifest();
  manifest["format_version"] = "3.1";
  std::vector<uint8_t> file = plan::encodePlan(manifest, test::hostStepPlanSections());
  storeLE(file, 8, 3, 4);
  storeLE(file, 12, 1, 4);
  const Plan plan = fromBytes(file);
  CHECK(plan.manifest().formatVersion == "3.1");
  REQUIRE(plan.kernels()[0].launch);
  CHECK_FALSE(plan.kernels()[0].launch->isSplit());
}

TEST_CASE("a 2.x plan's kernel image is read as a PTX and a CUBIN image") {
  json manifest = test::hostStepPlanManifest();
  manifest["format_version"] = "2.0";
  for (size_t k : {0, 2}) {
    json &kernel = manifest["kernels"][k];
    const json ptx = kernel["images"][0];
    kernel.erase("images");
    kernel["image"] = {
        {"entry", ptx["entry"]}, {"arch", "sm_75"}, {"ptx", {{"offset", ptx["offset"]}, {"size", ptx["size"]}}}};
  }
  manifest["kernels"][2]["image"]["cubin"] = {{"offset", 64}, {"size", 32}};
  std::vector<uint8_t> file = plan::encodePlan(manifest, test::hostStepPlanSections());
  storeLE(file, 8, 2, 4);
  storeLE(file, 12, 0, 4);
  const Plan plan = fromBytes(file);
  const KernelDesc &mul = plan.kernels()[0];
  REQUIRE(mul.images.size() == 1);
  CHECK(mul.images[0].format == "ptx");
  CHECK(mul.images[0].target == "sm_75");
  CHECK(mul.images[0].entry == "fusec_test_mul");
  const KernelDesc &add = plan.kernels()[2];
  REQUIRE(add.images.size() == 2);
  CHECK(add.images[0].format == "cubin"); // a CUBIN first, as fusec writes them
  CHECK(add.images[0].range.offset == 64);
  CHECK(add.images[1].format == "ptx");
  CHECK(add.images[1].entry == "fusec_test_add");
}

TEST_CASE("a split-K launch is read, its scratch laid out, its slices chosen per batch and device") {
  const Plan plan = gpuPlan([](json &m) {
    m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 8}, {"k_tiles", 20}, {"partial_floats", 256}};
  });
  const LaunchDesc &launch = *plan.kernels()[0].launch;
  CHECK(launch.isSplit());
  CHECK(launch.splitMaxSlices == 8);
  CHECK(launch.splitKTiles == 20);
  CHECK(launch.splitPartialFloats == 256);
  CHECK_FALSE(plan.kernels()[2].launch->isSplit());
  // On 16 SMs: at most 16 blocks of partial sums, 8 tile counters, after
  // the workspace's buffers.
  const WorkspaceLayout layout = layoutWorkspace(plan, 40, 16);
  const WorkspaceLayout plain = layoutWorkspace(gpuPlan([](json &) {}), 40, 16);
  CHECK(plain.splitCountersBytes == 0);
  CHECK(layout.splitPartialsOffset >= plain.bytes);
  CHECK(layout.splitCountersOffset == layout.splitPartialsOffset + 16 * 256 * sizeof(float));
  CHECK(layout.splitCountersBytes == 8 * sizeof(uint32_t));
  CHECK(layout.bytes == layout.splitCountersOffset + layout.splitCountersBytes);
  // grid x is ceil(4 * batch / 64) tiles: at batch 16, 1 tile, 5 slices
  // (20 k-tiles, 4 per slice); at batch 40, 3 tiles, 5 slices (16 / 3);
  // at batch 200, 13 tiles fill more than half the SMs: unsplit. The split
  // kernel always gets the scratch.
  for (auto [batch, slices] : {std::pair<int64_t, uint32_t>{16, 5}, {40, 5}, {200, 1}}) {
    INFO("batch " << batch);
    const Schedule schedule = buildSchedule(plan, layoutWorkspace(plan, batch, 16), RunMode{batch, batch, false});
    const auto &mul = std::get<LaunchStep>(schedule.segments[0].steps[0]);
    CHECK(mul.split);
    CHECK(mul.pointerCount() == mul.args.size() + 2);
    CHECK(mul.grid.z == slices);
  }
  const Schedule schedule = buildSchedule(plan, layout, RunMode{40, 40, false});
  CHECK(std::get<LaunchStep>(schedule.segments[0].steps[0]).splitCounters.offset == layout.splitCountersOffset);
  // With no SMs known (a layout without a device), nothing splits.
  const Schedule unknown = buildSchedule(plan, layoutWorkspace(plan, 40), RunMode{40, 40, false});
  CHECK(std::get<LaunchStep>(unknown.segments[0].steps[0]).grid.z == 1);
}

TEST_CASE("launch and image fields are checked") {
  const struct {
    std::function<void(json &)> edit;
    std::string message;
  } cases[] = {
      {[](json &m) { m["kernels"][0]["launch"]["block"] = {64, 1}; },
       "kernels[0].launch: 'block' must have 3 entries (x, y, z), found 2"},
      {[](json &m) { m["kernels"][0]["launch"]["grid"].erase(2); }, "kernels[0].launch: 'grid' must have 3 entries"},
      {[](json &m) { m["kernels"][0]["launch"]["grid"][1].erase("divisor"); },
       "kernels[0].launch.grid[1]: missing required field 'divisor'"},
      {[](json &m) { m["kernels"][0]["images"][0]["offset"] = -1; },
       "kernels[0].images[0].offset: expected a non-negative integer"},
      {[](json &m) { m["kernels"][0]["images"][0].erase("entry"); },
       "kernels[0].images[0]: missing required field 'entry'"},
      {[](json &m) { m["kernels"][0]["images"][0].erase("format"); },
       "kernels[0].images[0]: missing required field 'format'"},
      {[](json &m) { m["kernels"][0]["launch"]["block"] = {0, 1, 1}; },
       "kernel 'k0_mul' block [0, 1, 1]: x must be in [1, 1024]"},
      {[](json &m) { m["kernels"][0]["launch"]["block"] = {1, 1, 65}; },
       "kernel 'k0_mul' block [1, 1, 65]: z must be in [1, 64]"},
      {[](json &m) { m["kernels"][0]["launch"]["block"] = {64, 32, 1}; },
       "kernel 'k0_mul' block [64, 32, 1] has 2048 threads; CUDA allows at "
       "most 1024"},
      {[](json &m) { m["kernels"][0]["launch"]["grid"][0]["divisor"] = 0; },
       "kernel 'k0_mul' grid x (per_batch 4, fixed 0, divisor 0) needs a "
       "positive divisor"},
      {[](json &m) { m["kernels"][2]["launch"]["grid"][2]["fixed"] = -1; }, "kernel 'k2_add' grid z"},
      {[](json &m) { m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 2}, {"k_tiles", 8}}; },
       "kernels[0].launch.split_k: missing required field 'partial_floats'"},
      {[](json &m) {
         m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 1}, {"k_tiles", 8}, {"partial_floats", 64}};
       },
       "kernel 'k0_mul' split_k allows 1 slices; a split allows 2 to 64"},
      {[](json &m) {
         m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 4}, {"k_tiles", 3}, {"partial_floats", 64}};
       },
       "kernel 'k0_mul' split_k has 3 k-tiles; it needs at least one per slice (4)"},
      {[](json &m) {
         m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 2}, {"k_tiles", 8}, {"partial_floats", 0}};
       },
       "kernel 'k0_mul' split_k stores 0 partial floats per block; a block stores 1 to 1048576"},
      {[](json &m) {
         m["kernels"][0]["launch"]["split_k"] = {{"max_slices", 2}, {"k_tiles", 8}, {"partial_floats", 64}};
         m["kernels"][0]["launch"]["grid"][2]["fixed"] = 2;
       },
       "kernel 'k0_mul' splits K, so its grid z must be one block"},
      // Tensor maps (7.0): their fields, then the rules of
      // runtime/plan/TensorMapVerifier.cpp (the buffers here are f32).
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f32"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"box", {64, 64}}}};
       },
       "'element' is 'f32'; a tensor map reads f16 or bf16"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"box", {0, 64}}}};
       },
       "'box' sizes must lie in [1, 256], not 0"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"middle", {4, 4}},
                                                      {"box", {64, 64}}}};
       },
       "'box' has 2 sizes for a map of rank 4"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"middle", {4}},
                                                      {"box", {64, 4, 1}},
                                                      {"element_strides", {1, 12, 1}}}};
       },
       "'element_strides' must lie in [1, 8], not 12"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"middle", {2, 2, 2}},
                                                      {"box", {64, 1, 1, 1, 1}}}};
       },
       "'middle' has 3 dimensions; a map has at most 2"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 9},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"box", {64, 64}}}};
       },
       "kernel 'k0_mul' tensor map names buffer 9, but the kernel has 3"},
      {[](json &m) {
         m["kernels"][0]["launch"]["tensor_maps"] = {{{"buffer", 0},
                                                      {"element", "f16"},
                                                      {"rows", {{"per_batch", 1}, {"fixed", 0}}},
                                                      {"columns", 8},
                                                      {"box", {64, 64}}}};
       },
       "kernel 'k0_mul' tensor map reads f16 from a buffer of dtype f32"},
      {[](json &m) { m["kernels"][0]["images"][0]["size"] = 1 << 20; },
       "kernel 'k0_mul' 'ptx' image (offset 0, 1048576 bytes) must be "
       "non-empty and lie inside the kernel_images section"},
      {[](json &m) { m["kernels"][0]["images"][0]["size"] = 0; },
       "kernel 'k0_mul' 'ptx' image (offset 0, 0 bytes) must be non-empty"},
      {[](json &m) {
         m["kernels"][2]["images"].push_back(
             {{"format", "cubin"}, {"target", "sm_75"}, {"entry", "add"}, {"offset", 1 << 20}, {"size", 8}});
       },
       "kernel 'k2_add' 'cubin' image (offset 1048576, 8 bytes)"},
      {[](json &m) { m["kernels"][0]["images"][0]["entry"] = ""; },
       "kernel 'k0_mul' image 0 needs a non-empty 'format', 'target' and 'entry'"},
      {[](json &m) { m["kernels"][0]["images"].push_back(m["kernels"][0]["images"][0]); },
       "kernel 'k0_mul' has two 'ptx' images for target 'sm_75'"},
      {[](json &m) { m["kernels"][0]["images"] = json::array(); }, "kernel 'k0_mul' has a 'launch' but no 'images'"},
      {[](json &m) { m["kernels"][0].erase("images"); }, "kernel 'k0_mul' has a 'launch' but no 'images'"},
      {[](json &m) { m["kernels"][0].erase("launch"); }, "kernel 'k0_mul' has 'images' but no 'launch'"},
      {[](json &m) {
         m["kernels"][0].erase("launch");
         m["kernels"][0].erase("images");
       },
       "kernel 'k0_mul' has no 'launch' and 'images', which every device "
       "kernel of a plan for target 'sm_75' needs"},
      {[](json &m) { m["kernels"][1]["launch"] = m["kernels"][0]["launch"]; },
       "kernel 'k1_softmax' of kind 'host' must have no 'launch', 'images' or "
       "'variants'"},
      {[](json &m) { m["kernels"][3]["images"] = m["kernels"][0]["images"]; },
       "kernel 'k3_copy_z' of kind 'copy' must have no 'launch'"},
      {[](json &m) {
         m["kernels"][3]["inputs"] = {2, 0};
         m["kernels"][3]["values"].insert(m["kernels"][3]["values"].begin(),
                                          json::parse(R"({"dtype": "f32", "shape": [-1, 4]})"));
         m["kernels"][3]["ops"][0]["operands"] = {0};
         m["kernels"][3]["ops"][0]["results"] = {2};
         m["kernels"][3]["yields"] = {2};
       },
       "kernel 'k3_copy_z' of kind 'copy' must have one input and one output, "
       "not 2 and 1"},
  };
  for (const auto &c : cases) {
    INFO(c.message);
    CHECK_THROWS_WITH(gpuPlan(c.edit), Contains(c.message));
  }
  // A copy between buffers of different shapes.
  json manifest = test::hostStepPlanManifest();
  manifest["buffers"][5]["shape"] = {-1, 2, 2};
  manifest["outputs"][1]["shape"] = {-1, 2, 2};
  manifest["kernels"][3]["values"][1]["shape"] = {-1, 2, 2};
  CHECK_THROWS_WITH(Plan::fromBytes(plan::encodePlan(manifest, test::hostStepPlanSections()), kName),
                    Contains("kernel 'k3_copy_z' copies arena buffer 2 't0' of shape "
                             "[batch, 4] and dtype f32 into output buffer 5 'z' of shape [batch, 2, 2]"));
  // Images need their section.
  CHECK_THROWS_WITH(
      Plan::fromBytes(plan::encodePlan(test::hostStepPlanManifest(), {test::hostStepPlanSections()[0]}), kName),
      Contains("kernel 'k0_mul' has an image, but the plan has no "
               "'kernel_images' section"));
}

TEST_CASE("a CPU plan may carry launch and image, or neither") {
  CHECK_NOTHROW(gpuPlan([](json &m) {
    m["target"] = "cpu";
    m["kernels"][0].erase("launch");
    m["kernels"][0].erase("images");
  }));
  CHECK_NOTHROW(gpuPlan([](json &m) { m["target"] = "cpu"; }));
}

TEST_CASE("arena buffers live at the same time must not overlap") {
  // t1 (kernels 1..2) moved onto t0 (kernels 0..2): both are read by k2.
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["buffers"][6]["offset"] = {{"per_batch", 64}, {"fixed", 0}}; })),
      Contains("arena buffer 3 't0' (bytes 64*batch + 0 to 76*batch + 0, live in kernels 0..2) overlaps arena "
               "buffer 6 't1' (bytes 64*batch + 0 to 76*batch + 0, live in kernels 1..2)"));
  // Disjoint at batch 1 but t1's end outgrows t0's start at larger batches.
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) {
                      m["buffers"][3]["offset"] = {{"per_batch", 0}, {"fixed", 64}};
                      m["arena"]["fixed"] = 128;
                    })),
                    Contains("overlaps arena buffer 6 't1'"));
}

TEST_CASE("the manifest's format_version must match the header") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["format_version"] = "garbage"; })),
                    Contains("small.plan: manifest format_version 'garbage' does not match the header's version 7.5"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["format_version"] = "3.0"; })),
                    Contains("does not match the header's version 7.5"));
}

TEST_CASE("reserved header bytes must be zero") {
  for (size_t at : {48, 55, 63}) {
    std::vector<uint8_t> bytes = test::smallPlanBytes();
    bytes[at] = 1;
    CHECK_THROWS_WITH(fromBytes(bytes), Contains("reserved header byte " + std::to_string(at) + " is 1, not 0"));
  }
}

TEST_CASE("implausibly large shapes are rejected at the largest batch bucket") {
  // Buckets stop at the batch the kernels index, so a shape is implausible
  // by its own sizes: 2^40 floats per sample at batch 2^16.
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) {
        m["batch_buckets"] = {1, 65536};
        m["buffers"][0]["shape"] = {-1, int64_t(1) << 40};
      })),
      Contains("input buffer 0 'x' shape [batch, 1099511627776] is implausibly large (more than 4503599627370496 "
               "bytes at batch 65536)"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["batch_buckets"] = {1, int64_t(1) << 51}; })),
                    Contains("batch bucket 2251799813685248 is above 65536, the batch generated kernels index"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["batch_buckets"] = {-1}; })),
                    Contains("batch bucket -1 is not positive"));
}

namespace {

json maxPoolAttrs() {
  return {
      {"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"ceil_mode", 0}};
}

} // namespace

TEST_CASE("op attributes are checked with the dialect's rules before anything runs") {
  const json pooled = {-1, 1, 2, 2};
  CHECK_NOTHROW(fromBytes(test::windowPlanBytes("MaxPool", maxPoolAttrs(), pooled)));

  json attrs = maxPoolAttrs();
  attrs["ceil_mode"] = -1;
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("MaxPool", attrs, pooled)),
                    Contains("small.plan: kernel 'k0' op MaxPool 'op1': 'ceil_mode' must be 0 or 1, got -1"));

  attrs = maxPoolAttrs();
  attrs["dilations"] = {int64_t(1) << 62, 1};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("MaxPool", attrs, pooled)),
                    Contains("op MaxPool 'op1': spatial dimension 0: window of size 2 (dilation 4611686018427387904, "
                             "4611686018427387905 wide) does not fit the input extent 4 with pads 0+0"));
  attrs["kernel_shape"] = {3, 3};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("MaxPool", attrs, pooled)),
                    Contains("overflows the size arithmetic"));

  attrs = maxPoolAttrs();
  attrs["pads"] = {INT64_MAX, 0, INT64_MAX, 0};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("MaxPool", attrs, pooled)),
                    Contains("overflows the size arithmetic"));

  attrs = maxPoolAttrs();
  attrs.erase("dilations");
  attrs["count_include_pad"] = 2;
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("AveragePool", attrs, pooled)),
                    Contains("op AveragePool 'op1': 'count_include_pad' must be 0 or 1, got 2"));

  // The result shape the attributes give must be the recorded one.
  CHECK_THROWS_WITH(
      fromBytes(test::windowPlanBytes("MaxPool", maxPoolAttrs(), json{-1, 1, 3, 2})),
      Contains("the plan records result shape [batch, 1, 3, 2], but the attributes give 2 for dimension 2"));

  // One pad of 2^31 used to fill a 2^31-entry index vector before any check.
  const json padAttrs = {{"pads", {0, 0, 0, int64_t(1) << 31, 0, 0, 0, 0}}, {"mode", "constant"}, {"value", 0.0}};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Pad", padAttrs, json{-1, 1, 4, 4})),
                    Contains("op Pad 'op1': the plan records result shape [batch, 1, 4, 4], but the attributes give "
                             "2147483652 for dimension 3"));
  const json hugePad = {{"pads", {0, 0, 0, INT64_MAX, 0, 0, 0, 0}}, {"mode", "constant"}, {"value", 0.0}};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Pad", hugePad, json{-1, 1, 4, 4})),
                    Contains("axis 3: pads 9223372036854775807+0 make the axis of size 4 implausibly large"));
  const json batchPad = {{"pads", {1, 0, 0, 0, 0, 0, 0, 0}}, {"mode", "constant"}, {"value", 0.0}};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Pad", batchPad, json{-1, 1, 4, 4})),
                    Contains("cannot pad the batch dimension (axis 0)"));
}

TEST_CASE("Slice, Expand and Resize attributes are checked against the shapes at load") {
  // x: [batch, 1, 4, 4]. Every index a slice reads must lie in its input.
  const json columns = {{"starts", {0, 0, 0, 1}}, {"ends", {INT64_MAX, 1, 4, 3}}, {"steps", {1, 1, 1, 1}}};
  CHECK_NOTHROW(fromBytes(test::windowPlanBytes("Slice", columns, json{-1, 1, 4, 2})));
  const json past = {{"starts", {0, 0, 0, 1}}, {"ends", {INT64_MAX, 1, 4, 5}}, {"steps", {1, 1, 1, 1}}};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Slice", past, json{-1, 1, 4, 4})),
                    Contains("op Slice 'op1': axis 3: start 1 and end 5 with step 1 are not normalised for an axis of "
                             "4"));
  const json batch = {{"starts", {1, 0, 0, 0}}, {"ends", {INT64_MAX, 1, 4, 4}}, {"steps", {1, 1, 1, 1}}};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Slice", batch, json{-1, 1, 4, 4})),
                    Contains("axis 0 is the batch dimension, which can only be sliced whole"));
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Slice", columns, json{-1, 1, 4, 3})),
                    Contains("the plan records result shape [batch, 1, 4, 3], but the operands and attributes give "
                             "[batch, 1, 4, 2]"));
  CHECK_NOTHROW(fromBytes(test::windowPlanBytes("Expand", {{"shape", {1, 3, 1, 1}}}, json{-1, 3, 4, 4})));
  const json resize = {{"sizes", {-1, 1, 8, 2}},
                       {"scales", {1.0, 1.0, 2.0, 0.5}},
                       {"mode", "linear"},
                       {"coordinate_transformation_mode", "half_pixel"},
                       {"nearest_mode", "floor"}};
  CHECK_NOTHROW(fromBytes(test::windowPlanBytes("Resize", resize, json{-1, 1, 8, 2})));
  json zeroScale = resize;
  zeroScale["scales"] = {1.0, 1.0, 0.0, 0.5};
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Resize", zeroScale, json{-1, 1, 8, 2})),
                    Contains("op Resize 'op1': axis 2: 'scales' entries must be finite and > 0, got 0"));
  CHECK_THROWS_WITH(fromBytes(test::windowPlanBytes("Expand", {{"shape", {2, 1, 1, 1}}}, json{-1, 1, 4, 4})),
                    Contains("op Expand 'op1': cannot expand [batch, 1, 4, 4] to [2, 1, 1, 1]"));
}

TEST_CASE("a plan of format 1.0 is rejected as predating element types") {
  std::vector<uint8_t> file = test::smallPlanBytes();
  storeLE(file, 8, 1, 4);
  storeLE(file, 12, 0, 4);
  CHECK_THROWS_WITH(fromBytes(file), "small.plan: plan format 1.0 predates element types (2.0); recompile the model "
                                     "with this fusec");
}

TEST_CASE("dtypes are read for tensors, buffers and kernel values") {
  const Plan plan = fromBytes(editedPlan([](json &m) {
    // k1_relu computes in f16: its input converts, its result rounds, and
    // t1 stores f16.
    m["buffers"][6]["dtype"] = "f16";
    m["kernels"][1]["values"][1]["dtype"] = "f16";
    m["kernels"][2]["values"][0]["dtype"] = "f16";
  }));
  CHECK(plan.buffers()[6].dtype == ElementType::F16);
  CHECK(plan.buffers()[6].byteSize().perBatch == 6);
  CHECK(plan.kernels()[1].valueTypes == std::vector<ElementType>{ElementType::F32, ElementType::F16});
  CHECK(plan.outputs()[0].dtype == ElementType::F32);
}

TEST_CASE("dtype errors name the buffer, value, kernel and op") {
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["buffers"][3]["dtype"] = "f64"; })),
                    Contains("arena buffer 3 't0' has unknown dtype 'f64'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"][1]["dtype"] = "u16"; })),
                    Contains("kernel 'k1_relu' value 1 has unknown dtype 'u16'"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"][1].erase("dtype"); })),
                    Contains("dtype"));
  // A kernel input value must have its buffer's type, a yield its output's.
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"][0]["dtype"] = "bf16"; })),
      Contains("kernel 'k1_relu' input 0 (value 0) has dtype bf16 but arena buffer 3 't0' has dtype f32"));
  CHECK_THROWS_WITH(
      fromBytes(editedPlan([](json &m) { m["kernels"][1]["values"][1]["dtype"] = "f16"; })),
      Contains("kernel 'k1_relu' output 0 (value 1) has dtype f16 but arena buffer 6 't1' has dtype f32"));
  // Only Cast, Identity and the typed ops take or give integers.
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) {
                      m["buffers"][6]["dtype"] = "i32";
                      m["kernels"][1]["values"][1]["dtype"] = "i32";
                      m["kernels"][2]["values"][0]["dtype"] = "i32";
                    })),
                    Contains("kernel 'k1_relu' op Relu 'relu': result value 1 (i32) is not a float"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) {
                      m["buffers"][4]["dtype"] = "i32";
                      m["kernels"][2]["values"][1]["dtype"] = "i32";
                    })),
                    Contains("kernel 'k2_add_add' op Add 'add_c': operand value 1 (i32) is not a float"));
  // The typed ops: a comparison gives i1, Where's condition is i1.
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["ops"][0]["op"] = "Equal"; })),
                    Contains("kernel 'k1_relu' op Equal 'relu': the result value 1 (f32) must be i1"));
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) { m["kernels"][1]["ops"][0]["op"] = "Where"; })),
                    Contains("kernel 'k1_relu' op Where 'relu': the condition value 0 (f32) must be i1"));
  // Mixed float types within an op are fine.
  CHECK_NOTHROW(fromBytes(editedPlan([](json &m) {
    m["buffers"][4]["dtype"] = "bf16";
    m["kernels"][2]["values"][1]["dtype"] = "bf16";
  })));
  // A weight's offset must be a multiple of its element size.
  CHECK_THROWS_WITH(fromBytes(editedPlan([](json &m) {
                      m["buffers"][4]["dtype"] = "i64";
                      m["buffers"][4]["offset"] = 52;
                      m["kernels"][2]["values"][1]["dtype"] = "i64";
                      m["kernels"][2]["ops"][0]["op"] = "Identity";
                    })),
                    Contains("weight buffer 4 'c' offset 52 is not a multiple of 8 bytes"));
}

TEST_CASE("Cast and Identity are checked against their values' dtypes") {
  auto relu = [](const std::function<void(json &)> &edit) {
    return editedPlan([&](json &m) {
      json &kernel = m["kernels"][1];
      kernel["ops"][0] = {{"op", "Cast"}, {"name", "to_f16"}, {"operands", {0}}, {"results", {1}}};
      kernel["ops"][0]["attrs"] = {{"to", "f16"}};
      kernel["values"][1]["dtype"] = "f16";
      m["buffers"][6]["dtype"] = "f16";
      m["kernels"][2]["values"][0]["dtype"] = "f16";
      edit(m);
    });
  };
  CHECK_NOTHROW(fromBytes(relu([](json &) {})));
  CHECK_THROWS_WITH(fromBytes(relu([](json &m) { m["kernels"][1]["ops"][0]["attrs"]["to"] = "bf16"; })),
                    Contains("kernel 'k1_relu' op Cast 'to_f16': attribute 'to' is 'bf16', but the result value 1 "
                             "(f16) is f16"));
  CHECK_THROWS_WITH(fromBytes(relu([](json &m) { m["kernels"][1]["ops"][0]["attrs"] = json::object(); })),
                    Contains("op Cast 'to_f16': needs a string attribute 'to'"));
  CHECK_THROWS_WITH(fromBytes(relu([](json &m) { m["kernels"][1]["ops"][0]["operands"] = {0, 0}; })),
                    Contains("op Cast 'to_f16': needs one operand and one result, not 2 and 1"));
  CHECK_THROWS_WITH(fromBytes(relu([](json &m) { m["kernels"][1]["ops"][0]["op"] = "Identity"; })),
                    Contains("op Identity 'to_f16': must keep the element type, but turns value 0 (f32) into value "
                             "1 (f16)"));
}
