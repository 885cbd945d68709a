//===- TileDescriptionTest.cpp - Every config field reaches the device by name -===//
//
// A generated kernel instantiates its tile template with one description,
// `struct <kernel>_tile`, rendered from its KernelConfig by
// TileDescription (codegen/KernelBuilder.h). These tests render one, read
// the names back, and check that every field of KernelConfig is there under
// the name the device templates read: each field, changed alone, changes
// exactly the member of its name. A field added to KernelConfig fails the
// count below until it is rendered and listed here; two fields rendered
// under each other's names fail the per-field check. The descriptions that
// add the op's geometry (attention's head dimensions, the Hopper GEMM's and
// the few-row template's B layout, the SIMT convolutions' groups and
// window) keep every config field and add theirs, each window field under
// its own name.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelBuilder.h"

#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

using namespace fusec;

namespace {

/// Converts to any field's type: counts an aggregate's fields.
struct AnyField {
  template <class T> operator T() const; // NOLINT(google-explicit-constructor)
};

template <class T, class... Fields> constexpr auto initializable(int) -> decltype(void(T{Fields{}...}), true) {
  return true;
}
template <class T, class... Fields> constexpr bool initializable(...) { return false; }

/// The fields of the aggregate T.
template <class T, class... Fields> constexpr size_t fieldCount() {
  if constexpr (initializable<T, Fields..., AnyField>(0))
    return fieldCount<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

/// KernelConfig's fields in declaration order, with the member each is
/// rendered as.
const char *const kFieldNames[] = {"kTemplate", "kBlockM", "kBlockN", "kBlockK",  "kWarpM",   "kWarpN",
                                   "kStages",   "kPasses", "kSplitK", "kAVector", "kBVector", "Element"};
constexpr size_t kFields = sizeof(kFieldNames) / sizeof(kFieldNames[0]);
static_assert(fieldCount<fuse::KernelConfig>() == kFields,
              "a KernelConfig field was added or removed: render it in TileDescription's constructor "
              "(codegen/KernelBuilder.cpp) and list it in kFieldNames and changeField");

/// Changes field `field` (declaration order) of `config`, and no other.
void changeField(fuse::KernelConfig &config, size_t field) {
  auto &[kind, blockM, blockN, blockK, warpM, warpN, stages, passes, splitK, aVector, bVector, operands] = config;
  switch (field) {
  case 0:
    kind = fuse::KernelTemplate::WgmmaGemm;
    break;
  case 1:
    blockM += 1000;
    break;
  case 2:
    blockN += 1000;
    break;
  case 3:
    blockK += 1000;
    break;
  case 4:
    warpM += 1000;
    break;
  case 5:
    warpN += 1000;
    break;
  case 6:
    stages += 1000;
    break;
  case 7:
    passes += 1000;
    break;
  case 8:
    splitK = splitK > 1 ? 1 : 2; // rendered as whether the kernel splits
    break;
  case 9:
    aVector += 1000;
    break;
  case 10:
    bVector += 1000;
    break;
  case 11:
    operands = fuse::OperandType::BF16;
    break;
  default:
    FAIL("no field " << field);
  }
}

/// The members of a rendered description, name to value, read back from
/// its text; fails on a line it cannot read.
std::map<std::string, std::string> readBack(const std::string &text, const std::string &name) {
  std::istringstream lines(text);
  std::string line;
  REQUIRE(std::getline(lines, line));
  CHECK(line == "struct " + name + " {");
  const std::regex constant(R"(  static constexpr (int|bool|const char \*)\s*(\w+) = (.+);)");
  const std::regex type(R"(  using (\w+) = (\w+);)");
  std::map<std::string, std::string> members;
  while (std::getline(lines, line) && line != "};") {
    std::smatch match;
    if (std::regex_match(line, match, constant))
      CHECK(members.emplace(match[2], match[3]).second);
    else if (std::regex_match(line, match, type))
      CHECK(members.emplace(match[1], match[2]).second);
    else
      FAIL("not a description member: " << line);
  }
  CHECK(line == "};");
  return members;
}

fuse::KernelConfig sampleConfig() {
  fuse::KernelConfig config;
  config.kind = fuse::KernelTemplate::TensorCoreGemm;
  config.blockM = 128;
  config.blockN = 64;
  config.blockK = 32;
  config.warpM = 64;
  config.warpN = 32;
  config.stages = 3;
  config.passes = 3;
  config.splitK = 4;
  config.aVector = 4;
  config.bVector = 2;
  config.operands = fuse::OperandType::F32;
  return config;
}

} // namespace

TEST_CASE("a tile description names every KernelConfig field under its own name", "[codegen][tile]") {
  const fuse::KernelConfig config = sampleConfig();
  const auto members = readBack(codegen::TileDescription(config).render("sk0_tile"), "sk0_tile");
  const std::set<std::string> expected(std::begin(kFieldNames), std::end(kFieldNames));
  std::set<std::string> rendered;
  for (const auto &member : members)
    rendered.insert(member.first);
  CHECK(rendered == expected);
  CHECK(members.at("kTemplate") == "\"tensor_core_gemm\"");
  CHECK(members.at("kBlockM") == "128");
  CHECK(members.at("Element") == "float");
  CHECK(members.at("kSplitK") == "true");

  // Each field changed alone changes exactly its member.
  for (size_t field = 0; field < kFields; ++field) {
    INFO("field " << field << ", rendered as " << kFieldNames[field]);
    fuse::KernelConfig changed = config;
    changeField(changed, field);
    const auto after = readBack(codegen::TileDescription(changed).render("sk0_tile"), "sk0_tile");
    std::set<std::string> differ;
    for (const auto &[name, value] : after)
      if (members.count(name) == 0 || members.at(name) != value)
        differ.insert(name);
    CHECK(differ == std::set<std::string>{kFieldNames[field]});
  }
}

TEST_CASE("an attention description adds the head dimensions to the config's fields", "[codegen][tile]") {
  fuse::KernelConfig config = sampleConfig();
  config.kind = fuse::KernelTemplate::TensorCoreAttention;
  config.operands = fuse::OperandType::F16;
  const auto members = readBack(codegen::TileDescription::attention(config, 64, 32).render("sk1_tile"), "sk1_tile");
  CHECK(members.size() == kFields + 2);
  for (const char *name : kFieldNames)
    CHECK(members.count(name) == 1);
  CHECK(members.at("kHeadDim") == "64");
  CHECK(members.at("kValueDim") == "32");
  CHECK(members.at("Element") == "fusec_f16");
  CHECK(members.at("kTemplate") == "\"tensor_core_attention\"");
}

TEST_CASE("a Hopper GEMM description adds B's layout to the config's fields", "[codegen][tile]") {
  fuse::KernelConfig config = sampleConfig();
  config.kind = fuse::KernelTemplate::WgmmaGemm;
  config.operands = fuse::OperandType::BF16;
  for (bool bNMajor : {false, true}) {
    const auto members = readBack(codegen::TileDescription::hopperGemm(config, bNMajor).render("sk2_tile"), "sk2_tile");
    CHECK(members.size() == kFields + 1);
    for (const char *name : kFieldNames)
      CHECK(members.count(name) == 1);
    CHECK(members.at("kBNMajor") == (bNMajor ? "true" : "false"));
    CHECK(members.at("Element") == "fusec_bf16");
    CHECK(members.at("kBlockM") == "128");
    CHECK(members.at("kStages") == "3");
  }
}

TEST_CASE("a gemv description adds B's layout and the tensors' type to the config's fields", "[codegen][tile]") {
  fuse::KernelConfig config = sampleConfig();
  config.kind = fuse::KernelTemplate::SimtGemv;
  const auto members =
      readBack(codegen::TileDescription::gemv(config, true, "fusec_f16").render("sk3_tile"), "sk3_tile");
  CHECK(members.size() == kFields + 2);
  for (const char *name : kFieldNames)
    CHECK(members.count(name) == 1);
  CHECK(members.at("kTransB") == "true");
  CHECK(members.at("Storage") == "fusec_f16");
  // The config's operand type stays the arithmetic's.
  CHECK(members.at("Element") == "float");
  CHECK(members.at("kAVector") == "4");
  CHECK(readBack(codegen::TileDescription::gemv(config, false, "float").render("sk3_tile"), "sk3_tile").at("kTransB") ==
        "false");
}

TEST_CASE("a convolution description names every window field under its own name", "[codegen][tile]") {
  fuse::KernelConfig config = sampleConfig();
  config.kind = fuse::KernelTemplate::DirectConv;
  using Window = codegen::TileDescription::ConvWindow;
  const char *const windowNames[] = {"kGroup",   "kStrideH",   "kStrideW",   "kPadTop",
                                     "kPadLeft", "kDilationH", "kDilationW", "kChannelsLast"};
  constexpr size_t kWindowFields = sizeof(windowNames) / sizeof(windowNames[0]);
  static_assert(fieldCount<Window>() == kWindowFields,
                "a ConvWindow field was added or removed: render it in TileDescription::convolution and list it "
                "in windowNames and the switch below");
  const Window window{2, 3, 5, 7, 11, 13, 17, false};
  const auto members = readBack(codegen::TileDescription::convolution(config, window).render("sk4_tile"), "sk4_tile");
  CHECK(members.size() == kFields + kWindowFields);
  for (const char *name : kFieldNames)
    CHECK(members.count(name) == 1);
  CHECK(members.at("kGroup") == "2");
  CHECK(members.at("kStrideH") == "3");
  CHECK(members.at("kDilationW") == "17");
  CHECK(members.at("kChannelsLast") == "false");

  // Each window field changed alone changes exactly its member.
  for (size_t field = 0; field < kWindowFields; ++field) {
    INFO("window field " << field << ", rendered as " << windowNames[field]);
    Window changed = window;
    auto &[group, strideH, strideW, padTop, padLeft, dilationH, dilationW, channelsLast] = changed;
    switch (field) {
    case 0:
      group += 100;
      break;
    case 1:
      strideH += 100;
      break;
    case 2:
      strideW += 100;
      break;
    case 3:
      padTop += 100;
      break;
    case 4:
      padLeft += 100;
      break;
    case 5:
      dilationH += 100;
      break;
    case 6:
      dilationW += 100;
      break;
    default:
      channelsLast = !channelsLast;
      break;
    }
    const auto after = readBack(codegen::TileDescription::convolution(config, changed).render("sk4_tile"), "sk4_tile");
    std::set<std::string> differ;
    for (const auto &[name, value] : after)
      if (members.count(name) == 0 || members.at(name) != value)
        differ.insert(name);
    CHECK(differ == std::set<std::string>{windowNames[field]});
  }
}
