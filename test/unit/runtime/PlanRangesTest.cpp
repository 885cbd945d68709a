//===- PlanRangesTest.cpp - Plans that run a named dimension over a range -===//
//
// A plan with `ranges` (format 7.1) lays its arena out for each range's
// maximum. The reader verifies the plan specialized at both ends of every
// range, so a layout that overlaps or overflows at some size of the range
// is rejected, naming that size; a sound one runs every size. A GPU plan
// over a range (format 7.3) carries launches whose grids grow with a range
// and arguments that hold its size: specializing folds both in.
//
//===----------------------------------------------------------------------===//
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/plan/PlanContainer.h"
#include "runtime/plan/PlanFormat.h"

#include <catch2/catch.hpp>

using namespace fusec;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

/// y = relu(x) + relu(relu(x)) over x: [batch, seq, 4] with seq in 1:16,
/// through two live intermediates t0 (at arena offset 0) and t1 (at
/// `t1Offset` bytes per sample); the arena holds `arenaPerBatch`.
std::vector<uint8_t> rangedPlan(int64_t t1Offset, int64_t arenaPerBatch, int64_t max = 16) {
  const json shape = {-1, plan::rangeDimCode(0), 4};
  const json value = {{"dtype", "f32"}, {"shape", shape}};
  auto arena = [&](int64_t id, const char *name, int64_t offset) {
    return json{{"id", id},       {"name", name},   {"kind", "arena"},
                {"dtype", "f32"}, {"shape", shape}, {"offset", {{"per_batch", offset}, {"fixed", 0}}}};
  };
  auto relu = [&](const char *name, int64_t input, int64_t output) {
    return json{{"name", name},
                {"kind", "elementwise"},
                {"inputs", {input}},
                {"outputs", {output}},
                {"values", {value, value}},
                {"ops", {{{"op", "Relu"}, {"name", name}, {"operands", {0}}, {"results", {1}}}}},
                {"yields", {1}}};
  };
  json manifest = {
      {"format_version", plan::formatVersionString()},
      {"compiler_version", "fusec test"},
      {"target", "cpu"},
      {"source_hash", "0123456789abcdef"},
      {"batch_buckets", {1, 2}},
      {"ranges", {{{"name", "seq"}, {"min", 1}, {"opt", 8}, {"max", max}}}},
      {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", shape}, {"buffer", 0}}}},
      {"outputs", {{{"name", "y"}, {"dtype", "f32"}, {"shape", shape}, {"buffer", 3}}}},
      {"buffers",
       {{{"id", 0}, {"name", "x"}, {"kind", "input"}, {"dtype", "f32"}, {"shape", shape}},
        arena(1, "t0", 0),
        arena(2, "t1", t1Offset),
        {{"id", 3}, {"name", "y"}, {"kind", "output"}, {"dtype", "f32"}, {"shape", shape}}}},
      {"arena", {{"per_batch", arenaPerBatch}, {"fixed", 0}, {"lower_bound", {{"per_batch", 0}, {"fixed", 0}}}}},
      {"kernels",
       {relu("k0_relu", 0, 1),
        relu("k1_relu", 1, 2),
        {{"name", "k2_add"},
         {"kind", "elementwise"},
         {"inputs", {1, 2}},
         {"outputs", {3}},
         {"values", {value, value, value}},
         {"ops", {{{"op", "Add"}, {"name", "add"}, {"operands", {0, 1}}, {"results", {2}}, {"attrs", json::object()}}}},
         {"yields", {2}}}}},
  };
  return plan::encodePlan(manifest, {{plan::kWeightsSection, {}}});
}

// 16 x 4 floats per sample at the maximum.
constexpr int64_t kSampleBytes = 16 * 4 * 4;

} // namespace

TEST_CASE("a plan laid out for its ranges' maximum runs every size of them", "[ranges]") {
  auto plan = std::make_shared<const runtime::Plan>(
      runtime::Plan::fromBytes(rangedPlan(kSampleBytes, 2 * kSampleBytes), "ranged.plan"));
  REQUIRE(plan->ranges().size() == 1);
  runtime::Session session(plan, runtime::Device::Cpu);
  for (int64_t seq : {1, 5, 16}) {
    runtime::Tensor x({2, seq, 4}, runtime::ElementType::F32);
    auto *data = static_cast<float *>(x.rawData());
    for (int64_t i = 0; i < 2 * seq * 4; ++i)
      data[i] = float(i % 5) - 2.0f;
    auto outputs = session.run(2, {{"x", x}});
    const auto *y = static_cast<const float *>(outputs.at("y").rawData());
    REQUIRE(outputs.at("y").shape() == runtime::Shape{2, seq, 4});
    for (int64_t i = 0; i < 2 * seq * 4; ++i)
      CHECK(y[i] == 2.0f * std::max(data[i], 0.0f));
  }
}

TEST_CASE("the reader rejects a layout that overlaps or overflows at some size of a range", "[ranges]") {
  // t1 right after t0 at seq 4: the two overlap from seq 5 on.
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(rangedPlan(4 * 4 * 4, 2 * kSampleBytes), "overlap.plan"),
                      Contains("overlap.plan at seq=16: ") && Contains("overlaps"));
  // t1 fits the arena at seq 8, not at 16.
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(rangedPlan(kSampleBytes, kSampleBytes + 8 * 4 * 4), "short.plan"),
                      Contains("short.plan at seq=16: ") && Contains("lies beyond the arena"));
  // The ranges themselves.
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(rangedPlan(kSampleBytes, 2 * kSampleBytes, 0), "bad.plan"),
                      Contains("bad.plan: the range of dimension 'seq' must satisfy 1 <= min <= opt <= max"));
}

namespace {

/// A GPU plan (format 7.3) of y = relu(x), x: [batch, seq, 4] with seq in
/// 1:16, whose one kernel's launch is `launch` (grid x over its elements,
/// the length as its first scalar argument); `ranges` false drops the
/// plan's ranges (and writes seq as 8).
std::vector<uint8_t> gpuPlan(const json &launch, bool ranges = true) {
  const json shape = {-1, ranges ? plan::rangeDimCode(0) : 8, 4};
  const json value = {{"dtype", "f32"}, {"shape", shape}};
  json manifest = {
      {"format_version", plan::formatVersionString()},
      {"compiler_version", "fusec test"},
      {"target", "sm_90"},
      {"source_hash", "0123456789abcdef"},
      {"batch_buckets", {1, 2}},
      {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", shape}, {"buffer", 0}}}},
      {"outputs", {{{"name", "y"}, {"dtype", "f32"}, {"shape", shape}, {"buffer", 1}}}},
      {"buffers",
       {{{"id", 0}, {"name", "x"}, {"kind", "input"}, {"dtype", "f32"}, {"shape", shape}},
        {{"id", 1}, {"name", "y"}, {"kind", "output"}, {"dtype", "f32"}, {"shape", shape}}}},
      {"arena", {{"per_batch", 0}, {"fixed", 0}, {"lower_bound", {{"per_batch", 0}, {"fixed", 0}}}}},
      {"kernels",
       {{{"name", "k0_relu"},
         {"kind", "elementwise"},
         {"inputs", {0}},
         {"outputs", {1}},
         {"values", {value, value}},
         {"ops", {{{"op", "Relu"}, {"name", "relu"}, {"operands", {0}}, {"results", {1}}}}},
         {"yields", {1}},
         {"launch", launch},
         {"images", {{{"format", "ptx"}, {"target", "sm_90"}, {"entry", "k0_relu"}, {"offset", 0}, {"size", 8}}}}}}},
  };
  if (ranges)
    manifest["ranges"] = {{{"name", "seq"}, {"min", 1}, {"opt", 8}, {"max", 16}}};
  return plan::encodePlan(manifest,
                          {{plan::kWeightsSection, {}}, {plan::kKernelImagesSection, std::vector<uint8_t>(8, '.')}});
}

/// A launch of 256 threads per block over the [batch, seq, 4] elements:
/// grid x is 4 per sample times seq, divided by 256; argument 0 is seq,
/// argument 1 a constant.
json rangedLaunch(int64_t rangeCode = plan::rangeDimCode(0), int64_t argument = 0) {
  const json one = {{"per_batch", 0}, {"fixed", 1}, {"divisor", 1}};
  return {{"block", {256, 1, 1}},
          {"grid", {{{"per_batch", 4}, {"fixed", 0}, {"divisor", 256}, {"ranges", {rangeCode}}}, one, one}},
          {"arguments", {0, 7}},
          {"range_arguments", {{{"argument", argument}, {"range", rangeCode}}}}};
}

} // namespace

TEST_CASE("specializing a GPU plan over a range sets its launches' grids and length arguments", "[ranges]") {
  const runtime::Plan plan = runtime::Plan::fromBytes(gpuPlan(rangedLaunch()), "gpu.plan");
  REQUIRE(plan.kernels()[0].launch->rangeArguments.size() == 1);
  for (int64_t seq : {1, 5, 16}) {
    const runtime::Plan sized = plan.specialize({{"seq", seq}});
    const runtime::LaunchDesc &launch = *sized.kernels()[0].launch;
    // 4 * seq elements per sample.
    CHECK(launch.grid[0].work == BatchLinear{4 * seq, 0});
    CHECK(launch.grid[0].at(100) == (400 * seq + 255) / 256);
    CHECK(launch.gridRanges[0].empty());
    CHECK(launch.arguments == std::vector<uint32_t>{uint32_t(seq), 7});
    CHECK(launch.rangeArguments.empty());
  }
}

TEST_CASE("the reader rejects launch ranges that name no range or no argument", "[ranges]") {
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(gpuPlan(rangedLaunch(plan::rangeDimCode(1))), "code.plan"),
                      Contains("kernel 'k0_relu': its launch names range code -3, which is no range of the plan"));
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(gpuPlan(rangedLaunch(plan::rangeDimCode(0), 2)), "argument.plan"),
                      Contains("kernel 'k0_relu': range argument 2 is past its 2 arguments"));
  // A plan without ranges launches what it says.
  json grown = rangedLaunch();
  grown.erase("range_arguments");
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(gpuPlan(grown, /*ranges=*/false), "fixed.plan"),
                      Contains("grows its grid with range code -2, but the plan has no ranges"));
  json passed = rangedLaunch();
  passed["grid"][0].erase("ranges");
  REQUIRE_THROWS_WITH(runtime::Plan::fromBytes(gpuPlan(passed, /*ranges=*/false), "fixed.plan"),
                      Contains("passes range code -2 as an argument, but the plan has no ranges"));
}
