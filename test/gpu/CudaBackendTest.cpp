//===- CudaBackendTest.cpp - The CUDA backend on a real GPU -----------------===//
//
// The host step plan (TestSupport.h) has hand-written PTX kernels, a host
// step between them and a copy, so these tests need no compiler: they check
// graphed, padded, prebuilt, ungraphed and oversized runs against values
// computed on the host, and that driver failures name what failed.
//
//===----------------------------------------------------------------------===//

#include "CudaTestDriver.h"
#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/gpu/DeviceMemory.h"
#include "runtime/gpu/StreamGate.h"
#include "runtime/gpu/StreamObjects.h"

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

std::shared_ptr<const Plan> planFrom(const json &manifest) {
  return std::make_shared<const Plan>(
      Plan::fromBytes(plan::encodePlan(manifest, test::hostStepPlanSections()), "host.plan"));
}

} // namespace

TEST_CASE("graphed, padded and oversized runs match the host") {
  const auto plan = planFrom(test::hostStepPlanManifest());
  DeviceOptions lazy = test::cudaTestOptions(), prebuilt = lazy, direct = lazy;
  prebuilt.prebuildGraphs = true;
  direct.useGraphs = false;
  for (const DeviceOptions &options : {lazy, prebuilt, direct}) {
    INFO("graphs " << options.useGraphs << ", prebuilt " << options.prebuildGraphs);
    Session session(plan, Device::Cuda, options);
    REQUIRE(session.device() == "cuda");
    // Larger batches before smaller ones of the same bucket: stale rows in
    // the padding must not leak into results; 17 and 40 exceed the largest
    // bucket (16), the second of them grows the overflow workspace.
    float seed = -3.0f;
    for (int64_t batch : {1, 4, 3, 2, 8, 5, 16, 13, 17, 40, 17, 3, 1})
      test::requireHostStepOutputs(session, batch, seed += 0.5f);
  }
}

TEST_CASE("the CUDA backend times whole runs, execution and kernels") {
  Session session(planFrom(test::hostStepPlanManifest()), Device::Cuda, test::cudaTestOptions());
  const Tensor x = test::hostStepInputRows(3, 1.0f);
  std::vector<float> y(12), z(12);
  TimingOptions options;
  options.warmup = 2;
  options.iterations = 5;
  options.deviceSteps = true;
  const RunTimings timings = session.time(3, {x.data()}, {y.data(), z.data()}, options);
  CHECK(timings.mode == "bucket 4, graph");
  CHECK(timings.run.iterations == 5);
  CHECK(timings.run.minMs > 0);
  REQUIRE(timings.execute);
  CHECK(timings.execute->medianMs <= timings.run.medianMs);
  REQUIRE(timings.deviceSteps);
  CHECK(timings.deviceStepCount == 3); // two kernels and the copy
  CHECK(timings.deviceSteps->minMs > 0);
  // The outputs are those of the timed runs.
  test::requireTensor(Tensor({3, 4}, y), {3, 4}, test::hostStepPlanY(x.values()), 1e-5f);
}

TEST_CASE("kernels are timed with the host-memory wait where its probe passes, and without it") {
  // On a GPU: whether the stream gate's wait works here (the probe, within
  // its deadline), and that timing without the gate works either way.
  const auto driver = cuda::CudaDevice::open(test::cudaTestOptions());
  {
    const gpu::DeviceScope scope(*driver);
    const gpu::HostFlagWaitProbe probe = gpu::probeHostFlagWait(*driver);
    INFO("the host-memory wait: " << (probe.usable ? "works" : probe.reason) << ", released in " << probe.releaseMs
                                  << " ms");
    CHECK((probe.usable || !probe.reason.empty()));
  }
  for (TimingGate gate : {TimingGate::Auto, TimingGate::None}) {
    DeviceOptions options = test::cudaTestOptions();
    options.timingGate = gate;
    Session session(planFrom(test::hostStepPlanManifest()), Device::Cuda, options);
    const Tensor x = test::hostStepInputRows(3, 1.0f);
    std::vector<float> y(12), z(12);
    const RunTimings timings = session.time(3, {x.data()}, {y.data(), z.data()}, {1, 3, true});
    REQUIRE(timings.deviceSteps);
    CHECK(timings.deviceSteps->minMs > 0);
    if (gate == TimingGate::None)
      CHECK_FALSE(timings.deviceStepsHeld);
    test::requireTensor(Tensor({3, 4}, y), {3, 4}, test::hostStepPlanY(x.values()), 1e-5f);
  }
}

TEST_CASE("driver failures name the call, the kernel and the device") {
  json manifest = test::hostStepPlanManifest();
  manifest["kernels"][2]["images"][0]["entry"] = "no_such_kernel";
  CHECK_THROWS_WITH(Session(planFrom(manifest), Device::Cuda, test::cudaTestOptions()),
                    Contains("cuModuleGetFunction failed for kernel 'k2_add' (PTX for "
                             "sm_75, JIT-compiled for ") &&
                        Contains("(entry 'no_such_kernel'): CUDA_ERROR_NOT_FOUND"));

  DeviceOptions missing = test::cudaTestOptions();
  missing.cudaDevice = 999;
  CHECK_THROWS_WITH(Session(planFrom(test::hostStepPlanManifest()), Device::Cuda, missing),
                    Contains("cannot run on cuda: there is no CUDA device 999"));
}

TEST_CASE("runs on device buffers, ordered on the caller's stream") {
  // The caller: its own stream on the same device, its own device buffers
  // for x, y and z, sized for the largest batch used.
  const auto plan = planFrom(test::hostStepPlanManifest());
  Session session(plan, Device::Cuda, test::cudaTestOptions());
  const auto caller = cuda::CudaDevice::open(test::cudaTestOptions());
  gpu::DeviceScope current(*caller);
  const gpu::OwnedStream callerStream(*caller);
  auto *const stream = static_cast<cuda::CUstream>(callerStream.get());
  const cuda::DriverApi &cu = caller->api();
  constexpr int64_t kMaxBatch = 20;
  const uint64_t bytes = kMaxBatch * 4 * sizeof(float);
  gpu::DeviceBuffer x(*caller, bytes, "x"), y(*caller, bytes, "y"), z(*caller, bytes, "z");
  float seed = 0.25f;
  for (int64_t batch : {3, 1, 16, 4, 17, 2}) {
    for (void *runStream : {static_cast<void *>(stream), static_cast<void *>(nullptr)}) {
      INFO("batch " << batch << (runStream ? ", caller's stream" : ", no stream"));
      const Tensor input = test::hostStepInputRows(batch, seed += 0.5f);
      const size_t size = static_cast<size_t>(batch) * 4 * sizeof(float);
      // Upload, run and download are all queued before anyone waits: the
      // run must be ordered between them on the caller's stream.
      cu.check(cu.memcpyHtoDAsync(x.address(), input.data(), size, stream), "cuMemcpyHtoDAsync", "x");
      if (!runStream)
        caller->synchronize(stream, "after the upload");
      session.runOnDevice(batch, {reinterpret_cast<const void *>(x.address())},
                          {reinterpret_cast<void *>(y.address()), reinterpret_cast<void *>(z.address())}, runStream);
      std::vector<float> yHost(static_cast<size_t>(batch) * 4), zHost(yHost.size());
      cu.check(cu.memcpyDtoHAsync(yHost.data(), y.address(), size, stream), "cuMemcpyDtoHAsync", "y");
      cu.check(cu.memcpyDtoHAsync(zHost.data(), z.address(), size, stream), "cuMemcpyDtoHAsync", "z");
      caller->synchronize(stream, "after the download");
      test::requireTensor(Tensor({batch, 4}, yHost), {batch, 4}, test::hostStepPlanY(input.values()), 1e-5f);
      test::requireTensor(Tensor({batch, 4}, zHost), {batch, 4}, test::hostStepPlanZ(input.values()), 0.0f);
    }
  }
  CHECK_THROWS_WITH(session.runOnDevice(1, {}, {}, stream),
                    Contains("the plan has 1 inputs and 2 outputs; got 0 and 0 pointers"));
}
