//===- ConcatInPlaceTest.cpp - Concatenations their producers write -------===//
//
// densenet_tiny (torchvision's DenseNet, exported by PyTorch) concatenates
// every earlier feature map of a block before each layer. With
// concat-in-place the layers' kernels write into the block's buffer and no
// concat kernel is left; the plan must compute exactly what the plan with
// copies computes (the CPU backend runs the same ops on the same values),
// and the reader must reject views that do not fit their root or whose
// writes overlap or leave holes.
//
//===----------------------------------------------------------------------===//
#include "../../models/ModelReference.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/plan/PlanContainer.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace fusec;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

const std::string kModel = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch/densenet_tiny";

std::vector<uint8_t> compileDenseNet(bool inPlace, const std::string &layout = "nchw") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = test::loadModelReference(kModel).onnxPath;
  options.plan.target = "cpu";
  options.fusion.layout = layout;
  if (!inPlace)
    options.fusion.disabled = {"concat-in-place"};
  auto bytes = compileToPlan(*context, options);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(bytes));
  return std::move(*bytes);
}

size_t countConcatKernels(const runtime::Plan &plan) {
  size_t count = 0;
  for (const runtime::KernelDesc &kernel : plan.kernels())
    for (const runtime::OpDesc &op : kernel.ops)
      count += op.op == "Concat";
  return count;
}

/// The plan after `edit` changed its manifest.
runtime::Plan edited(const std::vector<uint8_t> &bytes, const std::function<void(json &)> &edit) {
  plan::DecodedContainer decoded = plan::decodePlan(bytes.data(), bytes.size(), "densenet.plan");
  json manifest = decoded.manifest;
  manifest.erase("sections");
  std::vector<plan::Section> sections;
  for (const plan::SectionRef &ref : decoded.sections)
    sections.push_back(
        {ref.name, std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(ref.offset),
                                        bytes.begin() + static_cast<std::ptrdiff_t>(ref.offset + ref.size))});
  edit(manifest);
  return runtime::Plan::fromBytes(plan::encodePlan(manifest, sections), "densenet.plan");
}

/// Ids of the view buffers, by offset within their root, of the root with
/// the most views.
std::vector<size_t> viewsOfLargestRoot(const json &manifest) {
  std::map<size_t, std::map<int64_t, size_t>> byRoot;
  for (const json &buffer : manifest["buffers"])
    if (buffer.contains("view"))
      byRoot[buffer["view"]["of"].get<size_t>()][buffer["view"]["offset"].get<int64_t>()] = buffer["id"];
  std::vector<size_t> ids;
  for (const auto &[root, views] : byRoot)
    if (views.size() > ids.size()) {
      ids.clear();
      for (const auto &[offset, id] : views)
        ids.push_back(id);
    }
  return ids;
}

json &bufferWithId(json &manifest, size_t id) {
  for (json &buffer : manifest["buffers"])
    if (buffer["id"] == id)
      return buffer;
  FAIL("no buffer " << id);
  return manifest;
}

} // namespace

TEST_CASE("DenseNet's concats are written in place and compute what the copies compute", "[concat-in-place]") {
  for (const char *layout : {"nchw", "nhwc"}) {
    INFO(layout);
    auto copies = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(compileDenseNet(false, layout), "a"));
    auto placed = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(compileDenseNet(true, layout), "b"));
    // Two blocks of 2 and 3 layers: 5 concats, all in place, none left.
    CHECK(countConcatKernels(*copies) == 5);
    CHECK(countConcatKernels(*placed) == 0);
    CHECK(placed->kernels().size() + 5 == copies->kernels().size());
    size_t views = 0, aliases = 0;
    for (const runtime::BufferDesc &buffer : placed->buffers()) {
      views += buffer.view && !buffer.view->alias;
      aliases += buffer.view && buffer.view->alias;
    }
    // The classifier's flatten (fuse-alias-reshapes).
    CHECK(aliases == 1);
    // Per block: the stem or transition output, each layer's features and
    // each concat but the last, which is the root.
    CHECK(views == (1 + 2 + 1) + (1 + 3 + 2));

    runtime::Session withCopies(copies, runtime::Device::Cpu), inPlace(placed, runtime::Device::Cpu);
    test::ModelReference reference = test::loadModelReference(kModel);
    for (const test::ReferenceBatch &batch : reference.batches) {
      auto want = withCopies.run(batch.batch, batch.inputs);
      auto got = inPlace.run(batch.batch, batch.inputs);
      for (const auto &[name, tensor] : want) {
        INFO("batch " << batch.batch << " output " << name);
        const runtime::Tensor &other = got.at(name);
        REQUIRE(other.shape() == tensor.shape());
        CHECK(std::memcmp(other.rawData(), tensor.rawData(), tensor.byteSize()) == 0);
        std::string report;
        CHECK(test::allClose(other, batch.outputs.at(name), reference.rtol, reference.atol, report));
        INFO(report);
      }
    }
  }
}

TEST_CASE("the reader rejects views that leave their root, overlap or are read before they are whole, and "
          "aliases of another size",
          "[concat-in-place]") {
  const std::vector<uint8_t> bytes = compileDenseNet(true);
  const json manifest = plan::decodePlan(bytes.data(), bytes.size(), "densenet.plan").manifest;
  const std::vector<size_t> views = viewsOfLargestRoot(manifest);
  REQUIRE(views.size() >= 3);
  CHECK_NOTHROW(edited(bytes, [](json &) {}));

  CHECK_THROWS_WITH(edited(bytes, [&](json &m) { bufferWithId(m, views.back())["view"]["offset"] = 1000; }),
                    Contains("outside its root"));
  CHECK_THROWS_WITH(edited(bytes,
                           [&](json &m) {
                             json &view = bufferWithId(m, views[1])["view"];
                             view["of"] = views[0];
                             view["offset"] = 0;
                           }),
                    Contains("which is not an arena buffer with bytes of its own"));
  CHECK_THROWS_WITH(edited(bytes, [&](json &m) { bufferWithId(m, views[1])["view"]["axis"] = 2; }),
                    Contains("differs from its root"));
  // Two features stored at the same channels: the second write overlaps.
  CHECK_THROWS_WITH(edited(bytes,
                           [&](json &m) {
                             json &last = bufferWithId(m, views.back())["view"];
                             last["offset"] = last["offset"].get<int64_t>() - 1;
                           }),
                    Contains("were written before"));
  // The classifier's flatten is an alias of the pooled features; pointed
  // at a buffer of another size it is rejected.
  size_t alias = manifest["buffers"].size();
  for (const json &buffer : manifest["buffers"])
    if (buffer.contains("alias"))
      alias = buffer["id"].get<size_t>();
  REQUIRE(alias < manifest["buffers"].size());
  CHECK_THROWS_WITH(edited(bytes,
                           [&](json &m) {
                             const json root = bufferWithId(m, views.back())["view"]["of"];
                             bufferWithId(m, alias)["alias"] = root;
                           }),
                    Contains("does not hold exactly the elements of its root"));
  // The root read with one slice missing: the kernel writing the last
  // features now writes a buffer of its own.
  CHECK_THROWS_WITH(edited(bytes,
                           [&](json &m) {
                             json &last = bufferWithId(m, views.back());
                             last.erase("view");
                             last["offset"] = {{"per_batch", 0}, {"fixed", 0}};
                           }),
                    Contains("before kernels have written all of it"));
}
