//===- ShapeVariantsTest.cpp - One plan for several sizes of named dimensions -===//
//
// A plan compiled with several sizes for a named dimension holds each size's
// plan as a shape variant: each variant must be the plan its sizes compile
// to alone (same kernels, images and weights, relocated into shared
// sections stored once), and a Session must run the variant its inputs fit,
// keeping at most DeviceOptions::shapeCacheSize backends.
//
//===----------------------------------------------------------------------===//
#include "compiler/ShapeVariants.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/c_api/runtime_c.h"
#include "runtime/cpu/CpuBackend.h"
#include "runtime/gpu/DeviceWeights.h"
#include "runtime/plan/PlanContainer.h"
#include "support/FileIO.h"

#include "test/unit/runtime/HostGpuDevice.h"
#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <numeric>

using namespace fusec;
using Catch::Matchers::Contains;

namespace {

const std::string kModel = std::string(FUSEC_TEST_DATA_DIR) + "/../lit/plan/Inputs/sequence.json";

/// The plan of sequence.json at the given sizes of "seq".
std::vector<uint8_t> compileSequence(const std::vector<int64_t> &sizes, const std::string &target = "cpu") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = kModel;
  options.plan.target = target;
  options.dimensionSizes = {{"seq", std::vector<import::DimensionSize>(sizes.begin(), sizes.end())}};
  auto bytes = compileToPlan(*context, options);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(bytes));
  return std::move(*bytes);
}

std::shared_ptr<const runtime::Plan> load(std::vector<uint8_t> bytes, const std::string &name) {
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(std::move(bytes), name));
}

std::vector<uint8_t> bytesOf(runtime::ByteRange range) { return {range.data, range.data + range.size}; }

/// x of shape [batch, seq, 4] with distinct values.
runtime::Tensor sequenceInput(int64_t batch, int64_t seq) {
  runtime::Tensor x({batch, seq, 4}, runtime::ElementType::F32);
  auto *data = static_cast<float *>(x.rawData());
  for (int64_t i = 0; i < batch * seq * 4; ++i)
    data[i] = float(i % 7) * 0.25f - 0.5f;
  return x;
}

bool sameData(const runtime::Tensor &a, const runtime::Tensor &b) {
  return a.shape() == b.shape() && std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

} // namespace

TEST_CASE("each shape variant is the plan its sizes compile to alone", "[shape-variants]") {
  for (const std::string target : {"cpu", "sm_90"}) {
    INFO(target);
    auto both = load(compileSequence({3, 8}, target), "both");
    REQUIRE(both->shapeVariants().size() == 1);
    CHECK(both->dims() == std::map<std::string, int64_t>{{"seq", 3}});
    CHECK(both->describeShapeVariants() == "seq=3; seq=8");
    for (int64_t seq : {3, 8}) {
      INFO("seq=" << seq);
      auto alone = load(compileSequence({seq}, target), "alone");
      const runtime::Plan *variant = both->findShapeVariant({{"seq", seq}});
      REQUIRE(variant);
      CHECK(variant->dims() == alone->dims());
      REQUIRE(variant->kernels().size() == alone->kernels().size());
      CHECK(variant->inputs()[0].shape == alone->inputs()[0].shape);
      for (size_t k = 0; k < alone->kernels().size(); ++k) {
        const runtime::KernelDesc &a = alone->kernels()[k];
        const runtime::KernelDesc &v = variant->kernels()[k];
        CHECK(v.name == a.name);
        REQUIRE(v.images.size() == a.images.size());
        for (size_t i = 0; i < a.images.size(); ++i)
          CHECK(bytesOf(variant->imageBytes(v.images[i].range)) == bytesOf(alone->imageBytes(a.images[i].range)));
      }
      for (const runtime::BufferDesc &buffer : alone->buffers())
        if (buffer.kind == runtime::BufferKind::Weight) {
          const runtime::BufferDesc &relocated = variant->buffers()[buffer.id];
          const size_t size = static_cast<size_t>(buffer.byteSize().fixed);
          CHECK(std::memcmp(variant->weightData(relocated), alone->weightData(buffer), size) == 0);
        }
    }
    if (target != "cpu") {
      // The projection's rows are kernel arguments (a folded GEMM): both
      // variants run one compiled image, stored once.
      const runtime::KernelDesc &first = both->kernels().front();
      const runtime::KernelDesc &second = both->shapeVariants().front().kernels().front();
      REQUIRE(first.kind == "gemm");
      CHECK(first.launch->arguments != second.launch->arguments);
      CHECK(first.images.front().range.offset == second.images.front().range.offset);
    }
    // The weights do not depend on the sequence: stored once.
    auto three = load(compileSequence({3}, target), "three");
    CHECK(both->sectionBytes(plan::kWeightsSection).size == three->sectionBytes(plan::kWeightsSection).size);
  }
}

TEST_CASE("a session runs the shape variant its inputs fit", "[shape-variants]") {
  auto both = load(compileSequence({3, 8}), "both");
  runtime::Session session(both, "cpu");
  CHECK(session.shapeVariants() == std::vector<std::map<std::string, int64_t>>{{{"seq", 3}}, {{"seq", 8}}});
  for (int64_t seq : {8, 3}) {
    INFO("seq=" << seq);
    runtime::Session alone(load(compileSequence({seq}), "alone"), "cpu");
    const runtime::Tensor x = sequenceInput(2, seq);
    auto outputs = session.run(2, {{"x", x}});
    CHECK(session.dims() == std::map<std::string, int64_t>{{"seq", seq}});
    CHECK(session.inputs()[0].shape == runtime::Shape{-1, seq, 4});
    auto expected = alone.run(2, {{"x", x}});
    CHECK(sameData(outputs.at("weights"), expected.at("weights")));
    CHECK(sameData(outputs.at("pooled"), expected.at("pooled")));
  }

  // The pointer entry points run the selected variant.
  session.selectDims({{"seq", 8}});
  const runtime::Tensor x = sequenceInput(1, 8);
  runtime::Tensor weights({1, 8, 4}, runtime::ElementType::F32), pooled({1, 4}, runtime::ElementType::F32);
  session.run(1, {x.rawData()}, {weights.rawData(), pooled.rawData()});
  CHECK(sameData(weights, session.run(1, {{"x", x}}).at("weights")));

  CHECK_THROWS_WITH(session.selectDims({{"seq", 5}}),
                    Contains("the plan has no shape variant for seq=5 (it was compiled for seq=3; seq=8)"));
  CHECK_THROWS_WITH(session.run(2, {{"x", sequenceInput(2, 5)}}),
                    Contains("input 'x' has shape [2, 5, 4], but the plan's shape variants take [2, 3, 4] (seq=3), "
                             "[2, 8, 4] (seq=8) at batch 2"));
}

TEST_CASE("a session keeps at most shapeCacheSize variants' backends", "[shape-variants]") {
  auto both = load(compileSequence({3, 8}), "both");
  for (size_t cacheSize : {1, 2}) {
    INFO("shapeCacheSize " << cacheSize);
    size_t made = 0;
    runtime::Session session(
        both,
        [&](std::shared_ptr<const runtime::Plan> plan) {
          ++made;
          return std::make_unique<runtime::cpu::CpuBackend>(std::move(plan));
        },
        cacheSize);
    for (int64_t seq : {3, 8, 3, 8})
      session.run(1, {{"x", sequenceInput(1, seq)}});
    // One backend each while both fit; else one per switch.
    CHECK(made == (cacheSize == 1 ? 4u : 2u));
  }

  // A backend the caller made serves the plan's own variant only.
  runtime::Session given(both, std::make_unique<runtime::cpu::CpuBackend>(both));
  given.run(1, {{"x", sequenceInput(1, 3)}});
  CHECK_THROWS_WITH(given.run(1, {{"x", sequenceInput(1, 8)}}),
                    Contains("the variant for seq=8 needs a session of its own"));
}

TEST_CASE("shape variants merge only plans that share what they must", "[shape-variants]") {
  const std::vector<uint8_t> cpu = compileSequence({3});
  const std::vector<uint8_t> gpu = compileSequence({8}, "sm_90");
  // A plan file's manifest and sections as its writer holds them.
  auto contentsOf = [](const std::vector<uint8_t> &file) {
    plan::DecodedContainer container = plan::decodePlan(file.data(), file.size(), "plan");
    PlanContents contents{container.manifest, {}};
    contents.manifest.erase("sections");
    for (const plan::SectionRef &section : container.sections) {
      plan::SectionPieces pieces{section.name, section.size};
      pieces.pieces.push_back({0, {file.data() + section.offset, static_cast<size_t>(section.size)}});
      contents.sections.push_back(std::move(pieces));
    }
    return contents;
  };
  ShapeVariantMerger merger;
  merger.add(contentsOf(cpu));
  CHECK_THROWS_WITH(merger.add(contentsOf(gpu)), Contains("shape variant 1: its 'target' differs"));
  CHECK_THROWS_WITH(ShapeVariantMerger().finish(), Contains("no shape variants"));

  // The reader holds the merged manifest to the same rules.
  const std::vector<uint8_t> eight = compileSequence({8});
  plan::DecodedContainer first = plan::decodePlan(cpu.data(), cpu.size(), "first");
  plan::DecodedContainer second = plan::decodePlan(eight.data(), eight.size(), "second");
  auto rejected = [&](const std::function<void(nlohmann::json &, nlohmann::json &)> &edit) {
    nlohmann::json root = first.manifest;
    nlohmann::json variant = second.manifest;
    for (const char *field : plan::kSharedManifestFields)
      variant.erase(field);
    edit(root, variant);
    root[plan::kShapeVariantsField] = nlohmann::json::array({variant});
    root.erase("sections");
    // Both plans hold the same weights at the same offsets.
    const plan::SectionRef &weights = first.sections.front();
    std::vector<plan::Section> sections = {
        {weights.name,
         std::vector<uint8_t>(cpu.begin() + weights.offset, cpu.begin() + weights.offset + weights.size)}};
    const std::vector<uint8_t> bytes = plan::encodePlan(root, sections);
    try {
      runtime::Plan::fromBytes(bytes, "merged");
    } catch (const runtime::Error &error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(rejected([](nlohmann::json &, nlohmann::json &) {}) == "accepted");
  CHECK_THAT(rejected([](nlohmann::json &root, nlohmann::json &) { root.erase("dims"); }),
             Contains("merged: the plan has shape variants but no 'dims'"));
  CHECK_THAT(rejected([](nlohmann::json &, nlohmann::json &variant) { variant["dims"] = {{"seq", 3}}; }),
             Contains("shape variant 1 (seq=3): the first variant has the same sizes"));
  CHECK_THAT(rejected([](nlohmann::json &, nlohmann::json &variant) { variant["dims"] = {{"len", 8}}; }),
             Contains("its dims name other dimensions than the first variant's (seq=3)"));
  CHECK_THAT(rejected([](nlohmann::json &, nlohmann::json &variant) { variant["target"] = "cpu"; }),
             Contains("'target' is shared by every shape variant"));
  CHECK_THAT(rejected([](nlohmann::json &, nlohmann::json &variant) { variant["outputs"][0]["name"] = "w"; }),
             Contains("output 0 is 'w'"));
  CHECK_THAT(rejected([](nlohmann::json &root, nlohmann::json &variant) {
               // The seq=3 plan labelled seq=8.
               variant = root;
               for (const char *field : plan::kSharedManifestFields)
                 variant.erase(field);
               variant["dims"]["seq"] = 8;
             }),
             Contains("its inputs have the shapes of the first variant's, so a run could not tell them apart"));
  CHECK_THAT(rejected([](nlohmann::json &, nlohmann::json &variant) { variant["dims"]["seq"] = 0; }),
             Contains("dimension 'seq' must be a size of at least 1"));
}

TEST_CASE("the C API selects a shape variant and describes it", "[shape-variants]") {
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("variants", "plan", path));
  runtime::writeFileAtomically(path.str().str(), compileSequence({3, 8}));
  fusec_plan *plan = fusec_plan_load(path.c_str());
  llvm::sys::fs::remove(path);
  REQUIRE(plan);
  CHECK(fusec_plan_num_shape_variants(plan) == 2);
  const char *name = nullptr;
  int64_t size = 0;
  CHECK(fusec_plan_shape_variant_dims(plan, 1, &name, &size, 1) == 1);
  CHECK(std::string(name) == "seq");
  CHECK(size == 8);
  CHECK(fusec_plan_shape_variant_dims(plan, 2, &name, &size, 1) == 0);
  fusec_session *session = fusec_session_create(plan, "cpu");
  REQUIRE(session);
  int64_t dims[3] = {};
  CHECK(fusec_session_input_shape(session, 0, dims, 3) == 3);
  CHECK(dims[1] == 3);

  const char *names[] = {"seq"};
  const int64_t eight[] = {8}, five[] = {5};
  REQUIRE(fusec_session_select_dims(session, names, eight, 1) == 0);
  CHECK(fusec_session_input_shape(session, 0, dims, 3) == 3);
  CHECK(dims[1] == 8);
  const runtime::Tensor x = sequenceInput(2, 8);
  std::vector<float> weights(2 * 8 * 4), pooled(2 * 4);
  const void *inputs[] = {x.rawData()};
  void *outputs[] = {weights.data(), pooled.data()};
  REQUIRE(fusec_session_run_typed(session, 2, inputs, outputs) == 0);
  runtime::Session reference(load(compileSequence({8}), "eight"), "cpu");
  const runtime::Tensor expected = reference.run(2, {{"x", x}}).at("weights");
  CHECK(std::memcmp(weights.data(), expected.rawData(), expected.byteSize()) == 0);

  CHECK(fusec_session_select_dims(session, names, five, 1) != 0);
  CHECK_THAT(fusec_last_error(), Contains("no shape variant for seq=5"));
  fusec_session_free(session);
  fusec_plan_free(plan);
}

TEST_CASE("a transformer layer's shape variants share its GEMM and attention programs", "[shape-variants]") {
  // The encoder example with its sequence length named (it fixes 128).
  const std::string examples = std::string(FUSEC_TEST_DATA_DIR) + "/../../examples/";
  nlohmann::json model = nlohmann::json::parse(std::ifstream(examples + "encoder_layer.json"));
  REQUIRE(model["inputs"][0]["shape"] == nlohmann::json({"batch", 128, 32}));
  model["inputs"][0]["shape"][1] = "seq";
  model["weights"] = examples + "encoder_layer.safetensors";
  const std::string json = model.dump();
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("encoder", "json", path));
  std::ofstream(path.str().str()) << json;

  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = path.str().str();
  options.plan.target = "sm_90";
  options.dimensionSizes = {{"seq", {16, 40}}};
  auto bytes = compileToPlan(*context, options);
  llvm::sys::fs::remove(path);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(bytes));
  auto plan = load(std::move(*bytes), "encoder");
  const runtime::Plan &longer = plan->shapeVariants().front();
  REQUIRE(plan->kernels().size() == longer.kernels().size());
  size_t shared = 0;
  for (size_t k = 0; k < plan->kernels().size(); ++k) {
    const runtime::KernelDesc &a = plan->kernels()[k], &b = longer.kernels()[k];
    INFO(a.name);
    if (a.kind != "gemm" && a.kind != "attention")
      continue;
    // One image, each variant's sizes in its own launch's arguments.
    CHECK(a.images.front().range.offset == b.images.front().range.offset);
    CHECK(a.launch->arguments != b.launch->arguments);
    ++shared;
  }
  CHECK(shared == 5); // QKV, attention, output projection, two FFN products
  // Both lengths run (the CPU backend runs the ops; emulation tests run the
  // shared programs' code).
  runtime::Session session(plan, "cpu");
  for (int64_t seq : {16, 40}) {
    runtime::Tensor x({1, seq, 32}, runtime::ElementType::F32);
    auto *data = static_cast<float *>(x.rawData());
    for (int64_t i = 0; i < seq * 32; ++i)
      data[i] = float(i % 11) * 0.1f - 0.5f;
    CHECK(session.run(1, {{"x", x}}).at("y").shape() == runtime::Shape{1, seq, 32});
  }
}

TEST_CASE("a GPU session runs each shape variant on one copy of the weights", "[shape-variants]") {
  auto both = load(compileSequence({3, 8}, "sm_90"), "both");
  const std::shared_ptr<runtime::gpu::GpuDevice> driver = test::registerHostGpuBackend();
  // The variants share the plan's bytes, and so one device copy; another
  // load of the same bytes has its own.
  {
    runtime::gpu::DeviceScope entered(*driver);
    runtime::gpu::Stream stream = driver->createStream("the test's stream");
    auto weights = runtime::gpu::DeviceWeights::acquire(driver, stream, both);
    std::shared_ptr<const runtime::Plan> variant(both, &both->shapeVariants().front());
    CHECK(runtime::gpu::DeviceWeights::acquire(driver, stream, variant) == weights);
    auto again = load(compileSequence({3, 8}, "sm_90"), "again");
    CHECK(runtime::gpu::DeviceWeights::acquire(driver, stream, again) != weights);
    driver->synchronize(stream, "the test's stream");
    driver->destroyStream(stream);
  }
  // Both variants through the GPU backend (its schedule, graphs and kernel
  // arguments, on the CPU-hosted driver) match the CPU backend.
  runtime::Session gpu(both, "host-gpu"), cpu(both, "cpu");
  for (int64_t seq : {8, 3, 8}) {
    INFO("seq=" << seq);
    const runtime::Tensor x = sequenceInput(2, seq);
    auto got = gpu.run(2, {{"x", x}});
    auto expected = cpu.run(2, {{"x", x}});
    for (const char *output : {"weights", "pooled"}) {
      const std::vector<double> a = got.at(output).toDoubles(), b = expected.at(output).toDoubles();
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i)
        CHECK(a[i] == Approx(b[i]).epsilon(1e-5).margin(1e-6));
    }
  }
}
