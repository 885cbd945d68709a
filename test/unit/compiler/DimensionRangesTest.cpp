//===- DimensionRangesTest.cpp - One plan for a range of a named dimension -===//
//
// `--dim seq=1:16` compiles one plan that runs every sequence length from 1
// to 16: its shapes write the range's code, its arena is laid out for the
// maximum, and a session specializes it to each run's length. At every
// length it must give exactly what the plan compiled for that length alone
// gives (the CPU backend runs the same ops in the same order), fused and
// unfused, and refuse lengths outside the range.
//
//===----------------------------------------------------------------------===//
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/c_api/runtime_c.h"
#include "runtime/plan/PlanFormat.h"
#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

using namespace fusec;
using Catch::Matchers::Contains;

namespace {

const std::string kModel = std::string(FUSEC_TEST_DATA_DIR) + "/../lit/plan/Inputs/sequence.json";

struct Compiled {
  bool ok = false;
  std::vector<uint8_t> bytes;
  std::string diagnostics;
};

Compiled compileSequence(const import::DimensionSize &seq, const std::string &target = "cpu",
                         const std::string &strategy = "greedy") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = kModel;
  options.plan.target = target;
  options.fusion.strategy = strategy;
  options.dimensionSizes = {{"seq", {seq}}};
  auto bytes = compileToPlan(*context, options);
  Compiled result;
  result.ok = mlir::succeeded(bytes);
  if (result.ok)
    result.bytes = std::move(*bytes);
  result.diagnostics = diagnostics.text();
  return result;
}

std::shared_ptr<const runtime::Plan> load(const Compiled &compiled, const std::string &name) {
  INFO(compiled.diagnostics);
  REQUIRE(compiled.ok);
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(compiled.bytes, name));
}

/// x of shape [batch, seq, 4] with distinct values.
runtime::Tensor sequenceInput(int64_t batch, int64_t seq) {
  runtime::Tensor x({batch, seq, 4}, runtime::ElementType::F32);
  auto *data = static_cast<float *>(x.rawData());
  for (int64_t i = 0; i < batch * seq * 4; ++i)
    data[i] = float((i * 5) % 11) * 0.25f - 1.0f;
  return x;
}

bool sameData(const runtime::Tensor &a, const runtime::Tensor &b) {
  return a.shape() == b.shape() && std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

} // namespace

TEST_CASE("a range compiles to one plan whose shapes name it", "[ranges]") {
  auto ranged = load(compileSequence(import::DimensionSize::range(1, 8, 16)), "ranged");
  REQUIRE(ranged->ranges().size() == 1);
  CHECK(ranged->ranges()[0] == runtime::DimensionRange{"seq", 1, 8, 16});
  CHECK(ranged->dims().empty());
  CHECK(ranged->inputs()[0].shape == runtime::Shape{plan::kBatchDim, plan::rangeDimCode(0), 4});
  // The arena is laid out for the maximum: the plan compiled for seq=16
  // alone needs the same bytes.
  auto atMax = load(compileSequence(16), "seq16");
  CHECK(ranged->arena().size == atMax->arena().size);
  CHECK(ranged->kernels().size() == atMax->kernels().size());
  // The plan's size does not grow with the range.
  CHECK(compileSequence(import::DimensionSize::range(1, 8, 4096)).bytes.size() ==
        compileSequence(import::DimensionSize::range(1, 8, 16)).bytes.size());
}

TEST_CASE("a plan over a range runs each length as the plan for that length alone", "[ranges]") {
  for (const std::string strategy : {"greedy", "none"}) {
    INFO("strategy " << strategy);
    auto ranged = load(compileSequence(import::DimensionSize::range(1, 8, 16), "cpu", strategy), "ranged");
    runtime::Session session(ranged, runtime::Device::Cpu);
    // The session starts at the range's opt size.
    CHECK(session.dims() == std::map<std::string, int64_t>{{"seq", 8}});
    for (int64_t seq : {1, 7, 16}) {
      auto alone = load(compileSequence(seq, "cpu", strategy), "seq" + std::to_string(seq));
      runtime::Session reference(alone, runtime::Device::Cpu);
      for (int64_t batch : {1, 3}) {
        INFO("seq " << seq << ", batch " << batch);
        const runtime::Tensor x = sequenceInput(batch, seq);
        auto got = session.run(batch, {{"x", x}});
        auto want = reference.run(batch, {{"x", x}});
        REQUIRE(got.size() == want.size());
        for (const auto &[name, tensor] : want)
          CHECK(sameData(got.at(name), tensor));
        CHECK(session.dims() == std::map<std::string, int64_t>{{"seq", seq}});
      }
    }
    // The pointer entry points run the length selectDims chose.
    session.selectDims({{"seq", 5}});
    CHECK(session.inputs()[0].shape == runtime::Shape{plan::kBatchDim, 5, 4});
    REQUIRE_THROWS_WITH(session.selectDims({{"seq", 17}}), Contains("'seq' = 17 is outside the plan's range 1:16"));
    REQUIRE_THROWS_WITH(session.selectDims({{"len", 3}}),
                        Contains("no shape variant for len=3 (it was compiled for seq=1:8:16 (min:opt:max))"));
  }
}

TEST_CASE("a length outside the range is refused, naming the range", "[ranges]") {
  auto ranged = load(compileSequence(import::DimensionSize::range(2, 4, 16)), "ranged");
  runtime::Session session(ranged, runtime::Device::Cpu);
  for (int64_t seq : {1, 17})
    REQUIRE_THROWS_WITH(session.run(1, {{"x", sequenceInput(1, seq)}}),
                        Contains("input 'x' has shape [1, " + std::to_string(seq) + ", 4]") &&
                            Contains("the plan takes [1, seq, 4] (seq in 2:16) at batch 1"));
  REQUIRE_THROWS_WITH(ranged->specialize({}), Contains("no size is given for dimension 'seq'"));
  REQUIRE_THROWS_WITH(ranged->specialize({{"seq", 4}, {"len", 2}}), Contains("which the plan has no range for"));
}

TEST_CASE("a GPU plan over a range has one launch per kernel whatever the range, reading the length", "[ranges]") {
  auto narrow = load(compileSequence(import::DimensionSize::range(1, 8, 16), "sm_90"), "narrow");
  auto wide = load(compileSequence(import::DimensionSize::range(1, 8, 4096), "sm_90"), "wide");
  REQUIRE(narrow->kernels().size() == wide->kernels().size());
  size_t growing = 0;
  for (size_t k = 0; k < narrow->kernels().size(); ++k) {
    const runtime::KernelDesc &kernel = narrow->kernels()[k];
    INFO(kernel.name);
    REQUIRE(kernel.launch);
    // Each kernel reads the length from one argument; the product's grid
    // grows with it (the softmax and the sum over the sequence run a block
    // per row of the other axes).
    CHECK(kernel.launch->rangeArguments.size() == 1);
    growing += !kernel.launch->gridRanges[0].empty() || !kernel.launch->gridRanges[2].empty();
    // The same code: the images do not grow with the range.
    REQUIRE(kernel.images.size() == wide->kernels()[k].images.size());
    for (size_t i = 0; i < kernel.images.size(); ++i)
      CHECK(kernel.images[i].range.size == wide->kernels()[k].images[i].range.size);
  }
  CHECK(growing == 1);
  // At each length the plan holds the launch the length needs: every
  // argument that held the range holds the length.
  for (int64_t seq : {1, 13}) {
    const runtime::Plan sized = wide->specialize({{"seq", seq}});
    for (const runtime::KernelDesc &kernel : sized.kernels()) {
      const runtime::KernelDesc &ranged = *std::find_if(wide->kernels().begin(), wide->kernels().end(),
                                                        [&](const auto &other) { return other.name == kernel.name; });
      for (const auto &[argument, code] : ranged.launch->rangeArguments)
        CHECK(kernel.launch->arguments.at(argument) == uint32_t(seq));
    }
  }
  // The CPU backend runs the GPU plan as it runs the CPU plan.
  auto cpu = load(compileSequence(import::DimensionSize::range(1, 8, 16)), "cpu");
  runtime::Session gpuPlan(narrow, runtime::Device::Cpu), cpuPlan(cpu, runtime::Device::Cpu);
  const auto x = sequenceInput(2, 11);
  const runtime::Tensor got = gpuPlan.run(2, {{"x", x}}).at("pooled"), want = cpuPlan.run(2, {{"x", x}}).at("pooled");
  REQUIRE(got.byteSize() == want.byteSize());
  CHECK(std::memcmp(got.rawData(), want.rawData(), got.byteSize()) == 0);
}

TEST_CASE("the C API lists a plan's ranges and runs the size select_dims gives", "[ranges]") {
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("ranges", "plan", path));
  const Compiled compiled = compileSequence(import::DimensionSize::range(1, 8, 16));
  REQUIRE(compiled.ok);
  runtime::writeFileAtomically(path.str().str(), compiled.bytes);
  fusec_plan *plan = fusec_plan_load(path.c_str());
  llvm::sys::fs::remove(path);
  REQUIRE(plan);
  REQUIRE(fusec_plan_num_ranges(plan) == 1);
  const char *name = nullptr;
  int64_t min = 0, opt = 0, max = 0;
  REQUIRE(fusec_plan_range(plan, 0, &name, &min, &opt, &max) == 1);
  CHECK((std::string(name) == "seq" && min == 1 && opt == 8 && max == 16));
  CHECK(fusec_plan_range(plan, 1, &name, &min, &opt, &max) == 0);
  int64_t dims[3] = {};
  CHECK(fusec_plan_input_shape(plan, 0, dims, 3) == 3);
  CHECK((dims[0] == FUSEC_BATCH_DIM && dims[1] == -2));

  fusec_session *session = fusec_session_create(plan, "cpu");
  REQUIRE(session);
  CHECK(fusec_session_input_shape(session, 0, dims, 3) == 3);
  CHECK(dims[1] == 8); // the range's opt size
  const char *names[] = {"seq"};
  const int64_t five[] = {5}, seventeen[] = {17};
  REQUIRE(fusec_session_select_dims(session, names, five, 1) == 0);
  CHECK(fusec_session_input_shape(session, 0, dims, 3) == 3);
  CHECK(dims[1] == 5);
  const runtime::Tensor x = sequenceInput(2, 5);
  std::vector<float> weights(2 * 5 * 4), pooled(2 * 4);
  const void *inputs[] = {x.rawData()};
  void *outputs[] = {weights.data(), pooled.data()};
  REQUIRE(fusec_session_run_typed(session, 2, inputs, outputs) == 0);
  runtime::Session reference(load(compileSequence(5), "five"), runtime::Device::Cpu);
  const runtime::Tensor expected = reference.run(2, {{"x", x}}).at("weights");
  CHECK(std::memcmp(weights.data(), expected.rawData(), expected.byteSize()) == 0);
  CHECK(fusec_session_select_dims(session, names, seventeen, 1) != 0);
  CHECK_THAT(fusec_last_error(), Contains("'seq' = 17 is outside the plan's range 1:16"));
  fusec_session_free(session);
  fusec_plan_free(plan);
}
