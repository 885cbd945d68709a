//===- GpuBackendTest.cpp - The GPU backend on a driver of its own ----------===//
//
// The schedule runner (gpu::GpuBackend) on the CPU-hosted driver
// (HostGpuDevice.h), registered by name as a program would register a new
// GPU: graphed, padded, prebuilt, ungraphed and oversized runs, device
// buffers ordered on a caller's stream, timing, teardown of every device
// object, concurrent sessions, and the registry's own rules.
//
//===----------------------------------------------------------------------===//

#include "HostGpuDevice.h"
#include "TestSupport.h"

#include "runtime/BackendRegistry.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/gpu/DeviceMemory.h"
#include "runtime/gpu/GpuBackend.h"
#include "runtime/gpu/StreamObjects.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

Session sessionOn(const std::shared_ptr<gpu::GpuDevice> &driver, const DeviceOptions &options = {}) {
  const auto plan = test::hostStepPlan();
  return Session(plan, std::make_unique<gpu::GpuBackend>(plan, driver, options));
}

} // namespace

TEST_CASE("a registered GPU driver runs graphed, padded and oversized batches") {
  const auto driver = test::registerHostGpuBackend();
  const std::vector<std::string> names = backendNames();
  CHECK(std::find(names.begin(), names.end(), "host-gpu") != names.end());
  CHECK(isDeviceName("host-gpu"));

  DeviceOptions lazy, prebuilt, direct;
  prebuilt.prebuildGraphs = true;
  direct.useGraphs = false;
  for (const DeviceOptions &options : {lazy, prebuilt, direct}) {
    INFO("graphs " << options.useGraphs << ", prebuilt " << options.prebuildGraphs);
    const test::HostGpuCounters before = test::hostGpuCounters(*driver);
    Session session(test::hostStepPlan(), "host-gpu", options);
    REQUIRE(session.device() == "host-gpu");
    // Larger batches before smaller ones of the same bucket: stale rows in
    // the padding must not leak into results; 17 and 40 exceed the largest
    // bucket (16), the second of them grows the overflow workspace.
    float seed = -3.0f;
    for (int64_t batch : {1, 4, 3, 2, 8, 5, 16, 13, 17, 40, 17, 3, 1})
      test::requireHostStepOutputs(session, batch, seed += 0.5f);
    const test::HostGpuCounters after = test::hostGpuCounters(*driver);
    if (options.useGraphs) {
      // Two segments (around the host step) for each of the five buckets.
      CHECK(after.captures - before.captures == 10u);
      CHECK(after.graphLaunches - before.graphLaunches == 20u); // 10 graphed runs
    } else {
      CHECK(after.captures == before.captures);
      CHECK(after.graphLaunches == before.graphLaunches);
    }
    CHECK(after.callsOutsideDevice == 0);
  }
}

TEST_CASE("device-buffer runs are ordered on the caller's stream of a registered driver") {
  const auto driver = test::makeHostGpuDevice();
  Session session = sessionOn(driver);
  gpu::DeviceScope scope(*driver);
  const gpu::OwnedStream caller(*driver);
  constexpr int64_t kMaxBatch = 20;
  const uint64_t bytes = kMaxBatch * 4 * sizeof(float);
  gpu::DeviceBuffer x(*driver, bytes, "x"), y(*driver, bytes, "y"), z(*driver, bytes, "z");
  float seed = 0.25f;
  for (int64_t batch : {3, 1, 16, 4, 17, 2}) {
    for (void *stream : {caller.get(), static_cast<void *>(nullptr)}) {
      INFO("batch " << batch << (stream ? ", caller's stream" : ", no stream"));
      const Tensor input = test::hostStepInputRows(batch, seed += 0.5f);
      const size_t size = static_cast<size_t>(batch) * 4 * sizeof(float);
      // The driver runs nothing until the host waits, and then interleaves
      // the streams: without the event joins, the session's copies would
      // run before the upload or the download before the run.
      driver->copyHostToDevice(x.address(), input.data(), size, caller.get(), "x");
      if (!stream)
        driver->synchronize(caller.get(), "after the upload");
      session.runOnDevice(batch, {reinterpret_cast<const void *>(x.address())},
                          {reinterpret_cast<void *>(y.address()), reinterpret_cast<void *>(z.address())}, stream);
      std::vector<float> yHost(static_cast<size_t>(batch) * 4), zHost(yHost.size());
      driver->copyDeviceToHost(yHost.data(), y.address(), size, caller.get(), "y");
      driver->copyDeviceToHost(zHost.data(), z.address(), size, caller.get(), "z");
      driver->synchronize(caller.get(), "after the download");
      test::requireTensor(Tensor({batch, 4}, yHost), {batch, 4}, test::hostStepPlanY(input.values()), 1e-5f);
      test::requireTensor(Tensor({batch, 4}, zHost), {batch, 4}, test::hostStepPlanZ(input.values()), 0.0f);
    }
  }
}

TEST_CASE("the GPU backend times runs and each device step on a registered driver") {
  const auto driver = test::makeHostGpuDevice();
  Session session = sessionOn(driver);
  const Tensor x = test::hostStepInputRows(3, 1.0f);
  std::vector<float> y(12), z(12);
  TimingOptions options;
  options.warmup = 1;
  options.iterations = 3;
  options.deviceSteps = true;
  const RunTimings timings = session.time(3, {x.data()}, {y.data(), z.data()}, options);
  CHECK(timings.mode == "bucket 4, graph");
  CHECK(timings.run.iterations == 3);
  REQUIRE(timings.execute);
  // Virtual time: every command the driver runs takes 1 µs.
  CHECK(timings.execute->minMs > 0);
  CHECK(timings.execute->medianMs < timings.run.medianMs);
  REQUIRE(timings.deviceSteps);
  CHECK(timings.deviceStepCount == 3); // two kernels and the copy
  CHECK(timings.deviceSteps->minMs > 0);
  test::requireTensor(Tensor({3, 4}, y), {3, 4}, test::hostStepPlanY(x.values()), 1e-5f);
}

TEST_CASE("the last session on a driver frees every device object, the weights last") {
  const auto driver = test::makeHostGpuDevice();
  {
    Session first = sessionOn(driver);
    {
      Session second = sessionOn(driver);
      test::requireHostStepOutputs(first, 3, 1.0f);
      test::requireHostStepOutputs(second, 17, 2.0f);
    }
    const test::HostGpuCounters one = test::hostGpuCounters(*driver);
    CHECK(one.liveStreams == 1);
    CHECK(one.liveAllocations > 0);
    test::requireHostStepOutputs(first, 5, 3.0f); // the shared weights outlived the second session
  }
  const test::HostGpuCounters none = test::hostGpuCounters(*driver);
  CHECK(none.liveAllocations == 0);
  CHECK(none.liveStreams == 0);
  CHECK(none.liveGraphs == 0);
  CHECK(none.liveEvents == 0);
  CHECK(none.callsOutsideDevice == 0);
}

TEST_CASE("a kernel that fails on the device fails the run with the driver's message") {
  class FailingRunner final : public test::HostKernelRunner {
  public:
    void run(const Plan &plan, const LaunchStep &step, const std::vector<void *> &,
             const std::vector<size_t> &) const override {
      throw Error("kernel '" + plan.kernels()[step.kernel].name + "' trapped");
    }
  };
  test::HostGpuOptions options;
  options.runner = std::make_shared<FailingRunner>();
  Session session = sessionOn(test::makeHostGpuDevice(options));
  CHECK_THROWS_WITH(session.run(2, {{"x", test::hostStepInputRows(2, 0.0f)}}), Contains("kernel 'k0_mul' trapped"));
  // The session stays usable for the next request.
  CHECK_THROWS_WITH(session.run(1, {{"x", test::hostStepInputRows(1, 0.0f)}}), Contains("trapped"));
}

TEST_CASE("sessions of a registered driver run on several threads at once", "[threads]") {
  test::registerHostGpuBackend();
  const auto plan = test::hostStepPlan();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        Session session(plan, "host-gpu");
        for (int request = 0; request < 12; ++request) {
          const int64_t batch = 1 + (t * 7 + request * 5) % 19;
          const Tensor x = test::hostStepInputRows(batch, static_cast<float>(t) - 0.5f * static_cast<float>(request));
          const auto outputs = session.run(batch, {{"x", x}});
          const std::vector<float> want = test::hostStepPlanY(x.values());
          const std::vector<float> &got = outputs.at("y").values();
          for (size_t i = 0; i < want.size(); ++i)
            if (std::abs(got[i] - want[i]) > 1e-5f * std::max(1.0f, std::abs(want[i])))
              ++failures;
        }
      } catch (const std::exception &) {
        ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(failures == 0);
}

TEST_CASE("backends register by name, under rules") {
  test::registerHostGpuBackend();
  CHECK_THROWS_WITH(registerBackend("cpu", nullptr), Contains("a backend named 'cpu' is already registered"));
  CHECK_THROWS_WITH(registerBackend("auto", nullptr), Contains("names are lowercase identifiers, and not 'auto'"));
  CHECK_THROWS_WITH(registerBackend("My GPU", nullptr), Contains("names are lowercase identifiers"));
  CHECK_THROWS_WITH(createBackend("tpu", test::hostStepPlan()),
                    Contains("unknown device 'tpu' (expected cpu, cuda, ") && Contains("host-gpu") &&
                        Contains(" or auto)"));
  CHECK_FALSE(isDeviceName("tpu"));
  CHECK(isDeviceName("auto"));
}

TEST_CASE("a GPU backend refuses a CPU plan before opening its driver, and reports an unavailable device") {
  static std::atomic<int> opened{0};
  registerGpuBackend("refusing-test-gpu", [](const DeviceOptions &) -> std::shared_ptr<const gpu::GpuDevice> {
    ++opened;
    throw gpu::GpuUnavailable("the test device is switched off");
  });
  CHECK_THROWS_WITH(Session(test::smallPlan(), "refusing-test-gpu"),
                    Contains("cannot run plan 'small.plan' on refusing-test-gpu: kernel 'k0_gemm' has no GPU image"));
  CHECK(opened == 0);
  CHECK_THROWS_WITH(Session(test::hostStepPlan(), "refusing-test-gpu"),
                    Contains("cannot run on refusing-test-gpu: the test device is switched off"));
  CHECK(opened == 1);
}
