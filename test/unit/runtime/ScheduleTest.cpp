//===- ScheduleTest.cpp - GPU launch schedules, computed without a GPU ------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/gpu/Schedule.h"

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace Catch {
template <> struct StringMaker<DeviceAddress> {
  static std::string convert(const DeviceAddress &address) {
    return std::string(address.region == Region::Weights ? "weights+" : "workspace+") + std::to_string(address.offset);
  }
};
template <> struct StringMaker<Dim3> {
  static std::string convert(const Dim3 &dim) {
    return "(" + std::to_string(dim.x) + ", " + std::to_string(dim.y) + ", " + std::to_string(dim.z) + ")";
  }
};
template <> struct StringMaker<RunMode> {
  static std::string convert(const RunMode &mode) {
    return "batch " + std::to_string(mode.batch) + " as " + describeRunMode(mode);
  }
};
} // namespace Catch

namespace {

Plan planFrom(const json &manifest) {
  return Plan::fromBytes(plan::encodePlan(manifest, test::hostStepPlanSections()), "host.plan");
}

Plan hostStepPlan() { return planFrom(test::hostStepPlanManifest()); }

/// The host step plan with `edit` applied to its manifest.
Plan editedHostStepPlan(const std::function<void(json &)> &edit) {
  json manifest = test::hostStepPlanManifest();
  edit(manifest);
  return planFrom(manifest);
}

const LaunchStep &launchAt(const Segment &segment, size_t index) {
  REQUIRE(index < segment.steps.size());
  REQUIRE(std::holds_alternative<LaunchStep>(segment.steps[index]));
  return std::get<LaunchStep>(segment.steps[index]);
}

DeviceAddress workspaceAt(uint64_t offset) { return DeviceAddress{Region::Workspace, offset}; }

} // namespace

TEST_CASE("batch buckets are sorted, unique, and default to 1..16") {
  CHECK(batchBuckets(hostStepPlan()) == std::vector<int64_t>{1, 2, 4, 8, 16});
  CHECK(batchBuckets(editedHostStepPlan([](json &m) { m["batch_buckets"] = {8, 2, 8, 32}; })) ==
        std::vector<int64_t>{2, 8, 32});
  CHECK(batchBuckets(editedHostStepPlan([](json &m) { m["batch_buckets"] = json::array(); })) == kDefaultBatchBuckets);
}

TEST_CASE("a batch runs graphed at the next bucket, or ungraphed") {
  const std::vector<int64_t> buckets = {1, 2, 4, 8, 16};
  CHECK(chooseRunMode(buckets, 1, true) == RunMode{1, 1, true});
  CHECK(chooseRunMode(buckets, 3, true) == RunMode{3, 4, true});
  CHECK(chooseRunMode(buckets, 8, true) == RunMode{8, 8, true});
  CHECK(chooseRunMode(buckets, 9, true) == RunMode{9, 16, true});
  CHECK(chooseRunMode(buckets, 17, true) == RunMode{17, 17, false});
  CHECK(chooseRunMode(buckets, 3, false) == RunMode{3, 3, false});
  CHECK(describeRunMode({3, 4, true}) == "bucket 4, graph");
  CHECK(describeRunMode({17, 17, false}) == "batch 17, no graph");
}

// GridDim's arithmetic itself is tested in test/unit/support/BatchLinearTest.cpp.
TEST_CASE("a kernel's grid at a batch comes from its launch record, within CUDA's limits") {
  const Plan plan = hostStepPlan();
  CHECK(gridAt(plan.kernels()[0], 1) == Dim3{1, 1, 1});
  CHECK(gridAt(plan.kernels()[0], 40) == Dim3{3, 1, 1});
  CHECK(blockOf(plan.kernels()[0]) == Dim3{64, 1, 1});

  const Plan tall = editedHostStepPlan(
      [](json &m) { m["kernels"][0]["launch"]["grid"][1] = {{"per_batch", 40000}, {"fixed", 0}, {"divisor", 1}}; });
  CHECK(gridAt(tall.kernels()[0], 1).y == 40000);
  CHECK_THROWS_WITH(gridAt(tall.kernels()[0], 2), Contains("kernel 'k0_mul' needs a grid y dimension of "
                                                           "80000 at batch 2, above CUDA's limit of 65535"));
}

TEST_CASE("the workspace holds the arena, then aligned input/output buffers") {
  const Plan plan = hostStepPlan();
  const WorkspaceLayout layout = layoutWorkspace(plan, 16);
  // Arena: 128 * 16 = 2048 bytes; x, y, z: 16 * 16 = 256 bytes each.
  CHECK(layout.capacityBatch == 16);
  CHECK(layout.ioOffsets[0] == 2048);
  CHECK(layout.ioOffsets[4] == 2304);
  CHECK(layout.ioOffsets[5] == 2560);
  CHECK(layout.bytes == 2816);
  // A size that is not a multiple of the alignment is rounded up.
  const WorkspaceLayout three = layoutWorkspace(plan, 3);
  CHECK(three.ioOffsets[0] == 512);
  CHECK(three.ioOffsets[4] == 768);
  CHECK(three.ioOffsets[5] == 1024);
  CHECK(three.bytes == 1072);

  CHECK(bufferAddress(plan, layout, 1, 4) == DeviceAddress{Region::Weights, 0});
  CHECK(bufferAddress(plan, layout, 2, 4) == workspaceAt(0));
  CHECK(bufferAddress(plan, layout, 3, 4) == workspaceAt(256));
  CHECK(bufferAddress(plan, layout, 4, 4) == workspaceAt(2304));
}

TEST_CASE("host steps split the kernels into segments") {
  const Plan plan = hostStepPlan();
  const Schedule schedule = buildSchedule(plan, layoutWorkspace(plan, 16), RunMode{3, 4, true});
  REQUIRE(schedule.segments.size() == 2);
  REQUIRE(schedule.hostSteps.size() == 1);
  CHECK(launchAt(schedule.segments[0], 0).kernel == 0);
  CHECK(schedule.segments[0].steps.size() == 1);
  CHECK(schedule.hostSteps[0].kernel == 1);
  CHECK(launchAt(schedule.segments[1], 0).kernel == 2);
  REQUIRE(schedule.segments[1].steps.size() == 2);
  REQUIRE(std::holds_alternative<CopyStep>(schedule.segments[1].steps[1]));

  // Host steps back to back, first and last: empty segments around them.
  const Plan hosts = editedHostStepPlan([](json &m) {
    json relu = {{"name", "h_first"},
                 {"kind", "host"},
                 {"inputs", {0}},
                 {"outputs", {3}},
                 {"values", {{{"dtype", "f32"}, {"shape", {-1, 4}}}, {{"dtype", "f32"}, {"shape", {-1, 4}}}}},
                 {"ops", {{{"op", "Relu"}, {"name", "r"}, {"operands", {0}}, {"results", {1}}}}},
                 {"yields", {1}}};
    json last = relu;
    last["name"] = "h_last";
    last["inputs"] = {2};
    last["outputs"] = {5};
    m["kernels"][3] = last;                              // replaces the copy of t0 into z
    m["kernels"].insert(m["kernels"].begin() + 1, relu); // host, host
    m["kernels"].insert(m["kernels"].begin(), relu);     // host first
    m["kernels"][0]["name"] = "h_zero";
  });
  const Schedule split = buildSchedule(hosts, layoutWorkspace(hosts, 16), RunMode{1, 1, true});
  // h_zero | k0_mul | h_first k1_softmax | k2_add | h_last
  REQUIRE(split.hostSteps.size() == 4);
  REQUIRE(split.segments.size() == 5);
  CHECK(split.segments[0].steps.empty());
  CHECK(launchAt(split.segments[1], 0).kernel == 1);
  CHECK(split.segments[2].steps.empty());
  CHECK(launchAt(split.segments[3], 0).kernel == 4);
  CHECK(split.segments[4].steps.empty());
  CHECK(hosts.kernels()[split.hostSteps[3].kernel].name == "h_last");
}

TEST_CASE("a launch passes inputs, then outputs, at the run batch") {
  const Plan plan = hostStepPlan();
  const WorkspaceLayout layout = layoutWorkspace(plan, 16);
  const Schedule schedule = buildSchedule(plan, layout, RunMode{3, 4, true});
  const LaunchStep &mul = launchAt(schedule.segments[0], 0);
  CHECK(mul.batch == 4);
  CHECK(mul.grid == Dim3{1, 1, 1});
  CHECK(mul.block == Dim3{64, 1, 1});
  CHECK(mul.args == std::vector<DeviceAddress>{workspaceAt(layout.ioOffsets[0]), DeviceAddress{Region::Weights, 0},
                                               workspaceAt(0)});
  const LaunchStep &add = launchAt(schedule.segments[1], 0);
  // t1 at 64 * 4, t0 at 0, y.
  CHECK(add.args == std::vector<DeviceAddress>{workspaceAt(256), workspaceAt(0), workspaceAt(layout.ioOffsets[4])});
  const CopyStep &copy = std::get<CopyStep>(schedule.segments[1].steps[1]);
  CHECK(copy.kernel == 3);
  CHECK(copy.source == workspaceAt(0));
  CHECK(copy.destination == workspaceAt(layout.ioOffsets[5]));
  CHECK(copy.bytes == 64);

  // Ungraphed above the largest bucket, at the exact batch.
  const Schedule big = buildSchedule(plan, layoutWorkspace(plan, 40), RunMode{40, 40, false});
  CHECK(launchAt(big.segments[0], 0).batch == 40);
  CHECK(launchAt(big.segments[0], 0).grid == Dim3{3, 1, 1});
}

TEST_CASE("a host step stages what it reads and writes, but not weights") {
  const Plan plan = editedHostStepPlan([](json &m) {
    // The softmax step also reads the weight w and writes z.
    json &step = m["kernels"][1];
    step["inputs"] = {2, 1};
    step["outputs"] = {3, 5};
    step["values"] = {{{"dtype", "f32"}, {"shape", {-1, 4}}},
                      {{"dtype", "f32"}, {"shape", {4}}},
                      {{"dtype", "f32"}, {"shape", {-1, 4}}},
                      {{"dtype", "f32"}, {"shape", {-1, 4}}}};
    step["ops"] = {
        {{"op", "Softmax"}, {"name", "softmax"}, {"operands", {0}}, {"results", {2}}, {"attrs", {{"axis", 1}}}},
        {{"op", "Mul"}, {"name", "scale"}, {"operands", {2, 1}}, {"results", {3}}}};
    step["yields"] = {2, 3};
    m["kernels"].erase(3); // z now comes from the host step
  });
  const Schedule schedule = buildSchedule(plan, layoutWorkspace(plan, 16), RunMode{3, 4, true});
  const HostStep &step = schedule.hostSteps.at(0);
  REQUIRE(step.buffers.size() == 3);
  const HostBuffer &t0 = step.buffers[0], &t1 = step.buffers[1], &z = step.buffers[2];
  CHECK(t0.buffer == 2);
  CHECK((t0.download && !t0.upload));
  CHECK(t0.bytes == 64);
  CHECK(t0.hostOffset == 0);
  CHECK(t1.buffer == 3);
  CHECK((!t1.download && t1.upload));
  CHECK(t1.device == workspaceAt(256));
  CHECK(t1.hostOffset == 64);
  CHECK(z.buffer == 5);
  CHECK(z.hostOffset == 128);
  CHECK(schedule.hostScratchBytes == 192);
}

TEST_CASE("inputs and outputs copy the caller's rows and pad the rest") {
  const Plan plan = hostStepPlan();
  const WorkspaceLayout layout = layoutWorkspace(plan, 16);
  const Schedule padded = buildSchedule(plan, layout, RunMode{3, 4, true});
  REQUIRE(padded.inputs.size() == 1);
  REQUIRE(padded.outputs.size() == 2);
  const IoTransfer &x = padded.inputs[0];
  CHECK(x.device == workspaceAt(layout.ioOffsets[0]));
  CHECK(x.blocks == 1);
  CHECK(x.hostBlockBytes == 48);
  CHECK(x.deviceBlockBytes == 64);
  CHECK(padded.outputs[1].index == 1);
  CHECK(padded.outputs[1].device == workspaceAt(layout.ioOffsets[5]));
  CHECK(padded.outputs[1].hostBlockBytes == 48);

  // A batch dimension after others: one block per leading index.
  const Plan inner = editedHostStepPlan([](json &m) {
    m["inputs"][0]["shape"] = {2, -1, 2};
    m["buffers"][0]["shape"] = {2, -1, 2};
    m["kernels"][0]["values"][0]["shape"] = {2, -1, 2};
    m["kernels"][0]["ops"][0]["op"] = "Reshape";
    m["kernels"][0]["ops"][0]["operands"] = {0};
  });
  // A copy: a reference into the temporary Schedule would dangle (ASan found it).
  const IoTransfer blocked = buildSchedule(inner, layoutWorkspace(inner, 16), RunMode{3, 8, true}).inputs[0];
  CHECK(blocked.blocks == 2);
  CHECK(blocked.hostBlockBytes == 3 * 2 * 4);
  CHECK(blocked.deviceBlockBytes == 8 * 2 * 4);

  // No batch dimension: the whole tensor, never padded.
  const Plan fixed = editedHostStepPlan([](json &m) {
    m["inputs"][0]["shape"] = {2, 4};
    m["buffers"][0]["shape"] = {2, 4};
    m["kernels"][0]["values"][0]["shape"] = {2, 4};
  });
  const IoTransfer whole = buildSchedule(fixed, layoutWorkspace(fixed, 16), RunMode{3, 4, true}).inputs[0];
  CHECK(whole.blocks == 1);
  CHECK(whole.hostBlockBytes == 32);
  CHECK(whole.deviceBlockBytes == 32);
}

TEST_CASE("scheduling a kernel without launch geometry names it") {
  const Plan cpuPlan = Plan::fromBytes(test::smallPlanBytes(), "small.plan");
  CHECK_THROWS_WITH(buildSchedule(cpuPlan, layoutWorkspace(cpuPlan, 4), RunMode{1, 1, true}),
                    Contains("kernel 'k0_gemm' (kind 'gemm') has no launch geometry; "
                             "compile the plan for a GPU (fusec --target=sm_XX)"));
  const Plan plan = hostStepPlan();
  CHECK_THROWS_WITH(buildSchedule(plan, layoutWorkspace(plan, 4), RunMode{8, 8, true}),
                    Contains("does not fit a workspace for batch 4"));
}
