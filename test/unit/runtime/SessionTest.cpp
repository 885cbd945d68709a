//===- SessionTest.cpp - Running a hand-built plan through a Session --------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/c_api/runtime_c.h"
#include "support/FileIO.h"
#include "support/IndexedBatch.h"
#include "tools/fuserun/RandomInputs.h"

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

/// The first `batch` rows of the small plan's example inputs, and outputs.
Tensor rows(const std::vector<std::vector<float>> &table, int64_t batch) {
  std::vector<float> values;
  for (int64_t r = 0; r < batch; ++r)
    values.insert(values.end(), table[r].begin(), table[r].end());
  return Tensor({batch, static_cast<int64_t>(table[0].size())}, values);
}

} // namespace

TEST_CASE("a three-kernel plan runs at batch 1 and batch 3") {
  Session session(test::smallPlan(), Device::Cpu);
  CHECK(session.device() == "cpu");
  REQUIRE(session.inputs().size() == 1);
  CHECK(session.outputs()[0].name == "y");

  for (int64_t batch : {1, 3, 1}) {
    INFO("batch " << batch);
    const auto outputs = session.run(batch, {{"x", rows(test::kSmallPlanInputRows, batch)}});
    REQUIRE(outputs.size() == 1);
    test::requireTensor(outputs.at("y"), {batch, 3}, rows(test::kSmallPlanOutputRows, batch).values());
  }
}

TEST_CASE("the pointer entry point writes into caller memory") {
  Session session(test::smallPlan(), Device::Auto);
  CHECK(session.device() == "cpu");
  const Tensor x = rows(test::kSmallPlanInputRows, 2);
  std::vector<float> y(6, -1.0f);
  session.run(2, {x.data()}, {y.data()});
  CHECK(y == rows(test::kSmallPlanOutputRows, 2).values());
  CHECK_THROWS_WITH(session.run(2, {}, {y.data()}), Contains("the plan has 1 inputs and 1 outputs; got 0 and "
                                                             "1 pointers"));
}

TEST_CASE("on the CPU backend, device buffers are host buffers and there are no streams") {
  Session session(test::smallPlan(), Device::Cpu);
  const Tensor x = rows(test::kSmallPlanInputRows, 3);
  std::vector<float> y(9, -1.0f);
  session.runOnDevice(3, {x.data()}, {y.data()});
  CHECK(y == rows(test::kSmallPlanOutputRows, 3).values());
  int stream = 0;
  CHECK_THROWS_WITH(session.runOnDevice(3, {x.data()}, {y.data()}, &stream),
                    Contains("the cpu backend has no streams"));

  test::TempDir dir;
  writeFileAtomically(dir.file("small.plan"), test::smallPlanBytes());
  fusec_plan *plan = fusec_plan_load(dir.file("small.plan").c_str());
  REQUIRE(plan);
  fusec_session *c = fusec_session_create(plan, "cpu");
  REQUIRE(c);
  std::vector<float> yc(9, -1.0f);
  const void *inputs[] = {x.data()};
  void *outputs[] = {yc.data()};
  CHECK(fusec_session_run_device(c, 3, inputs, outputs, nullptr) == 0);
  CHECK(yc == y);
  CHECK(fusec_session_run_device(c, 3, inputs, outputs, &stream) != 0);
  CHECK_THAT(fusec_last_error(), Contains("no streams"));
  fusec_session_free(c);
  fusec_plan_free(plan);
}

TEST_CASE("inferBatch reads the batch dimension of the inputs") {
  Session session(test::smallPlan());
  CHECK(session.inferBatch({{"x", Tensor({5, 2})}}) == 5);
  CHECK(session.inferBatch({}) == 1);
  CHECK(session.inferBatch({{"x", Tensor({5})}}) == 1);
}

TEST_CASE("Session rejects bad inputs with clear errors") {
  Session session(test::smallPlan(), Device::Cpu);
  CHECK_THROWS_WITH(session.run(2, {{"x", Tensor({3, 2})}}), Contains("input 'x' has shape [3, 2], but the plan "
                                                                      "expects [2, 2] ([batch, 2] at batch 2)"));
  CHECK_THROWS_WITH(session.run(1, {{"x", Tensor({1, 2, 1})}}), Contains("input 'x' has shape [1, 2, 1]"));
  CHECK_THROWS_WITH(session.run(1, {{"x", Tensor({1, 2})}, {"z", Tensor({1})}}),
                    Contains("unknown input 'z' (the plan's inputs: 'x')"));
  CHECK_THROWS_WITH(session.run(1, {}), Contains("missing input 'x' of shape [batch, 2]"));
  CHECK_THROWS_WITH(session.run(0, {{"x", Tensor({0, 2})}}), Contains("batch size must be at least 1, got 0"));
}

TEST_CASE("a plan without GPU kernels cannot run on CUDA") {
  CHECK_THROWS_WITH(Session(test::smallPlan(), Device::Cuda), Contains("cannot run plan 'small.plan' on cuda: kernel "
                                                                       "'k0_gemm' has no GPU image (the plan was "
                                                                       "compiled for target 'cpu'; compile it with "
                                                                       "fusec --target=sm_XX)"));
}

TEST_CASE("the CPU backend runs host steps and copies like other kernels") {
  auto plan = test::hostStepPlan();
  Session session(plan, Device::Cpu);
  for (int64_t batch : {1, 3}) {
    INFO("batch " << batch);
    const Tensor x = test::iota({batch, 4}, -2.5f);
    const auto outputs = session.run(batch, {{"x", x}});
    test::requireTensor(outputs.at("y"), {batch, 4}, test::hostStepPlanY(x.values()), 1e-6f);
    test::requireTensor(outputs.at("z"), {batch, 4}, test::hostStepPlanZ(x.values()));
  }
}

TEST_CASE("Session::time reports wall-clock runs on the CPU") {
  Session session(test::smallPlan(), Device::Cpu);
  const Tensor x = rows(test::kSmallPlanInputRows, 2);
  std::vector<float> y(6);
  TimingOptions options;
  options.warmup = 1;
  options.iterations = 4;
  options.deviceSteps = true; // GPU only: ignored here
  const RunTimings timings = session.time(2, {x.data()}, {y.data()}, options);
  CHECK(timings.run.iterations == 4);
  CHECK(timings.mode.empty());
  CHECK_FALSE(timings.execute);
  CHECK_FALSE(timings.deviceSteps);
  CHECK(y == rows(test::kSmallPlanOutputRows, 2).values());
  CHECK_THROWS_WITH(session.time(2, {x.data()}, {}, options), Contains("got 1 and 0 pointers"));
}

TEST_CASE("random inputs are deterministic, shaped and between -1 and 1") {
  const auto plan = test::smallPlan();
  const auto a = makeRandomInputs(*plan, 4, 7);
  const auto b = makeRandomInputs(*plan, 4, 7);
  const auto c = makeRandomInputs(*plan, 4, 8);
  REQUIRE(a.at("x").shape() == Shape{4, 2});
  CHECK(a.at("x").values() == b.at("x").values());
  CHECK(a.at("x").values() != c.at("x").values());
  for (float v : a.at("x").values()) {
    CHECK(v >= -1.0f);
    CHECK(v < 1.0f);
  }
}

TEST_CASE("the batch limit follows from the plan and the machine's memory") {
  const auto plan = test::smallPlan();
  // Per sample: arena 128 bytes, x 8, y 12.
  const BatchLimit limit = batchLimitOf(*plan, 148 * 1000 + 5);
  CHECK(limit.bytesPerBatch == 148);
  CHECK(limit.fixedBytes == 0);
  CHECK(limit.maxBatch == 1000);
  CHECK_NOTHROW(checkBatchAgainst(*plan, limit, 1000));
  CHECK_THROWS_WITH(checkBatchAgainst(*plan, limit, 1001),
                    Contains("small.plan: batch size 1001 is too large: a run needs 148 bytes per sample plus 0"));
  CHECK_THROWS_WITH(checkBatchAgainst(*plan, limit, 0), Contains("batch size must be at least 1, got 0"));
  // Memory for any batch: the kernels' index math still bounds it.
  const BatchLimit roomy = batchLimitOf(*plan, uint64_t(1) << 50);
  CHECK(roomy.maxBatch == kLargestIndexedBatch);
  CHECK_NOTHROW(checkBatchAgainst(*plan, roomy, kLargestIndexedBatch));
  CHECK_THROWS_WITH(
      checkBatchAgainst(*plan, roomy, kLargestIndexedBatch + 1),
      Contains("small.plan: batch size 65537 is too large: a plan's kernels index batches up to 65536, so the "
               "largest batch is 65536"));

  Session session(plan, Device::Cpu);
  CHECK(session.maxBatch() == batchLimitOf(*plan, physicalMemoryBytes()).maxBatch);
  std::vector<float> x(2), y(3);
  // Both entry points check before allocating or touching memory.
  CHECK_THROWS_WITH(session.run(int64_t(1) << 61, {x.data()}, {y.data()}), Contains("is too large"));
  CHECK_THROWS_WITH(session.run(int64_t(1) << 61, {{"x", Tensor({1, 2})}}), Contains("is too large"));
}

TEST_CASE("the C API reports the batch limit and rejects larger batches") {
  const test::TempDir dir;
  writeFileAtomically(dir.file("small.plan"), test::smallPlanBytes());
  fusec_plan *plan = fusec_plan_load(dir.file("small.plan").c_str());
  REQUIRE(plan);
  fusec_session *session = fusec_session_create(plan, "cpu");
  REQUIRE(session);
  const int64_t maxBatch = fusec_session_max_batch(session);
  CHECK(maxBatch > 1000);
  std::vector<float> x(2), y(3);
  const float *inputs[] = {x.data()};
  float *outputs[] = {y.data()};
  CHECK(fusec_session_run(session, 1, inputs, outputs) == 0);
  CHECK(fusec_session_run(session, int64_t(2305843009213693952), inputs, outputs) == 1);
  CHECK_THAT(std::string(fusec_last_error()), Contains("batch size 2305843009213693952 is too large"));
  CHECK(fusec_session_max_batch(nullptr) == 0);
  fusec_session_free(session);
  fusec_plan_free(plan);
}
