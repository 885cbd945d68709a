//===- TuningTest.cpp - Kernel variants, the tuner and its cache -----------===//
//
// A plan's conv/GEMM kernels may carry compiled variants; the GPU backend
// times them (DeviceOptions::tune), runs the fastest and keeps the choice
// in the tuning cache. Here the host driver's virtual clock decides which
// variant is fastest, and the host step plan's two device kernels get a
// second variant each (another block size for the same PTX entry).
//
//===----------------------------------------------------------------------===//
#include "HostGpuDevice.h"
#include "TestSupport.h"

#include "runtime/Session.h"
#include "runtime/TuningCache.h"
#include "runtime/gpu/GpuBackend.h"
#include "runtime/plan/PlanContainer.h"
#include "support/FileIO.h"
#include "tools/fuserun/FuserunRun.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

/// The host step plan with a variant "wide" (128 threads per block) beside
/// each device kernel's "narrow" one.
json variantPlanManifest() {
  json manifest = test::hostStepPlanManifest();
  manifest["format_version"] = plan::formatVersionString();
  for (size_t k : {0, 2}) {
    json &kernel = manifest["kernels"][k];
    kernel["config"] = "narrow";
    json wide = {{"config", "wide"}, {"launch", kernel["launch"]}, {"images", kernel["images"]}};
    wide["launch"]["block"] = {128, 1, 1};
    wide["launch"]["grid"][0]["divisor"] = 128;
    kernel["variants"] = json::array({wide});
  }
  return manifest;
}

std::shared_ptr<const Plan> planOf(const json &manifest) {
  return std::make_shared<const Plan>(
      Plan::fromBytes(plan::encodePlan(manifest, test::hostStepPlanSections()), "variants.plan"));
}

/// A host driver on which variant `fastK0` of k0_mul and `fastK2` of k2_add
/// take 2 µs a launch and the others 9 µs.
std::shared_ptr<gpu::GpuDevice> clockedDriver(size_t fastK0, size_t fastK2) {
  test::HostGpuOptions options;
  options.launchMicroseconds = [=](const Plan &plan, const LaunchStep &step) {
    const size_t fast = plan.kernels()[step.kernel].name == "k0_mul" ? fastK0 : fastK2;
    return step.variant == fast ? 2.0 : 9.0;
  };
  return test::makeHostGpuDevice(options);
}

Session sessionOn(const std::shared_ptr<const Plan> &plan, const std::shared_ptr<gpu::GpuDevice> &driver,
                  const DeviceOptions &options) {
  return Session(plan, std::make_unique<gpu::GpuBackend>(plan, driver, options));
}

const KernelTuning &recordOf(const std::vector<KernelTuning> &records, const std::string &kernel) {
  auto found =
      std::find_if(records.begin(), records.end(), [&](const KernelTuning &record) { return record.kernel == kernel; });
  REQUIRE(found != records.end());
  return *found;
}

} // namespace

TEST_CASE("a plan's kernel variants are read with their configs, launches and images", "[runtime][tuning]") {
  const auto plan = planOf(variantPlanManifest());
  const KernelDesc &mul = plan->kernels()[0];
  REQUIRE(mul.variantCount() == 2);
  CHECK(mul.configOf(0) == "narrow");
  CHECK(mul.configOf(1) == "wide");
  CHECK(mul.launchOf(1).block[0] == 128);
  CHECK(gridAt(mul, 300, 0).x == 19); // ceil(4 * 300 / 64)
  CHECK(gridAt(mul, 300, 1).x == 10); // ceil(4 * 300 / 128)
  CHECK(blockOf(mul, 1).x == 128);
  CHECK(mul.findImage("ptx", "", 1)->entry == "fusec_test_mul");
  CHECK(plan->kernels()[1].variantCount() == 1);
}

TEST_CASE("the plan verifier rejects malformed variants", "[runtime][tuning]") {
  auto rejects = [](const std::function<void(json &)> &change, const std::string &message) {
    json manifest = variantPlanManifest();
    change(manifest);
    CHECK_THROWS_WITH(planOf(manifest), Contains(message));
  };
  rejects([](json &m) { m["kernels"][0]["variants"][0]["config"] = "narrow"; },
          "kernel 'k0_mul' variant 1 repeats the config of the kernel: narrow");
  rejects([](json &m) { m["kernels"][0]["variants"][0]["config"] = ""; },
          "kernel 'k0_mul' variant 1 needs a non-empty 'config'");
  rejects([](json &m) { m["kernels"][0]["variants"][0]["images"] = json::array(); },
          "kernel 'k0_mul' variant 1 has no 'images'");
  rejects([](json &m) { m["kernels"][0]["variants"][0]["launch"]["block"] = {2048, 1, 1}; },
          "kernel 'k0_mul' variant 1 block [2048, 1, 1]");
  rejects([](json &m) { m["kernels"][3]["variants"] = m["kernels"][0]["variants"]; },
          "kernel 'k3_copy_z' of kind 'copy' must have no 'launch', 'images' or 'variants'");
}

TEST_CASE("tuning times every variant, runs the fastest and records it in the cache", "[runtime][tuning]") {
  test::TempDir dir;
  const auto plan = planOf(variantPlanManifest());
  DeviceOptions options;
  options.tune = true;
  options.tuningCache = dir.file("cache/tuning.json"); // the directory is created
  const auto driver = clockedDriver(/*fastK0=*/1, /*fastK2=*/0);
  Session session = sessionOn(plan, driver, options);
  const Tensor x = test::hostStepInputRows(3, 0.5f);
  const auto outputs = session.run(3, {{"x", x}});
  test::requireTensor(outputs.at("y"), {3, 4}, test::hostStepPlanY(x.values()), 1e-5f);

  const std::vector<KernelTuning> records = session.tuning();
  REQUIRE(records.size() == 2);
  const KernelTuning &mul = recordOf(records, "k0_mul");
  CHECK(mul.batch == 4);
  CHECK(mul.configs == std::vector<std::string>{"narrow", "wide"});
  CHECK(mul.chosen == 1);
  CHECK_FALSE(mul.fromCache);
  REQUIRE(mul.milliseconds.size() == 2);
  // Eight launches of 2 (or 9) µs between two events, and the end event's
  // own 1 µs of virtual time.
  CHECK(mul.milliseconds[1] == Approx((8 * 0.002 + 0.001) / 8));
  CHECK(mul.milliseconds[0] == Approx((8 * 0.009 + 0.001) / 8));
  CHECK(recordOf(records, "k2_add").chosen == 0);

  // Another batch bucket is tuned when it first runs.
  session.run(8, {{"x", test::hostStepInputRows(8, 1.5f)}});
  CHECK(session.tuning().size() == 4);

  const json cache = json::parse(readFileBytes(options.tuningCache));
  CHECK(cache["format"] == "fusec-tuning-1");
  REQUIRE(cache["entries"].size() == 4);
  for (const json &entry : cache["entries"]) {
    CHECK(entry["device"] == "a CPU-hosted GPU double");
    CHECK(entry["plan"] == "0123456789abcdef");
    CHECK(entry["choice"] == (entry["kernel"] == "k0_mul" ? "wide" : "narrow"));
  }
}

TEST_CASE("tuning with nothing holding the stream still times every variant and runs the fastest",
          "[runtime][tuning]") {
  // TimingGate::None: the fallback where the device's wait on host memory
  // is unusable. The launches run as they are enqueued.
  const auto plan = planOf(variantPlanManifest());
  DeviceOptions options;
  options.tune = true;
  options.tuningCache = "none";
  options.timingGate = TimingGate::None;
  Session session = sessionOn(plan, clockedDriver(/*fastK0=*/1, /*fastK2=*/0), options);
  const Tensor x = test::hostStepInputRows(3, 0.5f);
  test::requireTensor(session.run(3, {{"x", x}}).at("y"), {3, 4}, test::hostStepPlanY(x.values()), 1e-5f);
  const std::vector<KernelTuning> records = session.tuning();
  CHECK(recordOf(records, "k0_mul").chosen == 1);
  CHECK(recordOf(records, "k2_add").chosen == 0);
}

TEST_CASE("a later session reuses the cached choice without timing and without a cache the compiler's runs",
          "[runtime][tuning]") {
  test::TempDir dir;
  const auto plan = planOf(variantPlanManifest());
  DeviceOptions tune;
  tune.tune = true;
  tune.tuningCache = dir.file("tuning.json");
  {
    Session first = sessionOn(plan, clockedDriver(1, 1), tune);
    first.run(2, {{"x", test::hostStepInputRows(2, 0.0f)}});
  }

  // Timing would now choose variant 0 of both: the cache is what decides.
  const auto driver = clockedDriver(0, 0);
  DeviceOptions reuse;
  reuse.tuningCache = tune.tuningCache;
  Session later = sessionOn(plan, driver, reuse);
  const Tensor x = test::hostStepInputRows(2, 3.0f);
  const auto outputs = later.run(2, {{"x", x}});
  test::requireTensor(outputs.at("z"), {2, 4}, test::hostStepPlanZ(x.values()), 0.0f);
  for (const KernelTuning &record : later.tuning()) {
    CHECK(record.fromCache);
    CHECK(record.chosen == 1);
    CHECK(record.milliseconds.empty());
  }
  // The run's two launches, captured once into the bucket's graph: nothing timed.
  CHECK(test::hostGpuCounters(*driver).kernelLaunches == 2);

  // A bucket the cache has no entry for runs the compiler's choice.
  later.run(16, {{"x", test::hostStepInputRows(16, 3.0f)}});
  CHECK(later.tuning().size() == 2);

  DeviceOptions none;
  none.tuningCache = "none";
  Session untuned = sessionOn(plan, driver, none);
  untuned.run(2, {{"x", x}});
  CHECK(untuned.tuning().empty());

  // Tuning again times only what the cache lacks: here nothing.
  Session again = sessionOn(plan, driver, tune);
  again.run(2, {{"x", x}});
  for (const KernelTuning &record : again.tuning())
    CHECK(record.fromCache);
}

// Shape variants (fusec --dim seq=64,128) share the source hash and the
// kernel names; a choice timed at one length is not another's.
TEST_CASE("tuning choices of a plan compiled for named sizes are kept per sizes", "[runtime][tuning]") {
  test::TempDir dir;
  DeviceOptions tune;
  tune.tune = true;
  tune.tuningCache = dir.file("tuning.json");
  json at64 = variantPlanManifest();
  at64["dims"] = {{"seq", 64}};
  json at128 = variantPlanManifest();
  at128["dims"] = {{"seq", 128}};
  for (const json &manifest : {at64, at128}) {
    Session session = sessionOn(planOf(manifest), clockedDriver(1, 1), tune);
    session.run(2, {{"x", test::hostStepInputRows(2, 0.0f)}});
    // Timed, not read from the other sizes' entries.
    for (const KernelTuning &record : session.tuning())
      CHECK_FALSE(record.fromCache);
  }
  const json cache = json::parse(readFileBytes(tune.tuningCache));
  REQUIRE(cache["entries"].size() == 4);
  std::set<std::string> plans;
  for (const json &entry : cache["entries"])
    plans.insert(entry["plan"].get<std::string>());
  CHECK(plans == std::set<std::string>{"0123456789abcdef seq=128", "0123456789abcdef seq=64"});
}

TEST_CASE("the tuning cache keys choices by device, plan, kernel, batch and variants, and merges on save",
          "[runtime][tuning]") {
  test::TempDir dir;
  const std::string path = dir.file("tuning.json");
  const TuningKey key{"gpu A", "hash", "k0", 4, {"a", "b", "c"}};
  {
    TuningCache cache(path);
    CHECK(cache.size() == 0);
    cache.store(key, TuningEntry{{3.0, 1.0, 2.0}, "b"});
    CHECK(cache.lookup(key) == std::optional<size_t>(1));
    cache.save();
  }
  TuningCache reread(path);
  CHECK(reread.lookup(key) == std::optional<size_t>(1));
  for (const TuningKey &other :
       {TuningKey{"gpu B", "hash", "k0", 4, {"a", "b", "c"}}, TuningKey{"gpu A", "other", "k0", 4, {"a", "b", "c"}},
        TuningKey{"gpu A", "hash", "k1", 4, {"a", "b", "c"}}, TuningKey{"gpu A", "hash", "k0", 8, {"a", "b", "c"}},
        TuningKey{"gpu A", "hash", "k0", 4, {"a", "b"}}})
    CHECK_FALSE(reread.lookup(other));

  // Two caches open at once: each save keeps the other's entries.
  TuningCache one(path), two(path);
  const TuningKey keyOne{"gpu A", "hash", "k1", 4, {"a", "b"}}, keyTwo{"gpu A", "hash", "k2", 4, {"a", "b"}};
  one.store(keyOne, TuningEntry{{1.0, 2.0}, "a"});
  two.store(keyTwo, TuningEntry{{2.0, 1.0}, "b"});
  one.save();
  two.save();
  TuningCache merged(path);
  CHECK(merged.size() == 3);
  CHECK(merged.lookup(keyOne) == std::optional<size_t>(0));
  CHECK(merged.lookup(keyTwo) == std::optional<size_t>(1));
  CHECK(merged.lookup(key) == std::optional<size_t>(1));
}

TEST_CASE("a variant that was not timed is kept as null in the tuning cache and read back", "[runtime][tuning]") {
  // A library variant whose library is missing, or one outside --tactics,
  // is never timed: its time is infinite, which JSON has no number for.
  test::TempDir dir;
  const std::string path = dir.file("tuning.json");
  const TuningKey key{"gpu", "hash", "k0", 4, {"a", "b", "cublaslt"}};
  TuningCache cache(path);
  cache.store(key, TuningEntry{{2.0, 1.0, std::numeric_limits<double>::infinity()}, "b"});
  cache.save();
  const std::vector<uint8_t> bytes = readFileBytes(path);
  const json written = json::parse(bytes.begin(), bytes.end());
  CHECK(written["entries"][0]["milliseconds"] == json::array({2.0, 1.0, nullptr}));
  std::string warning;
  TuningCache reread(path, &warning);
  CHECK(warning.empty());
  CHECK(reread.lookup(key) == std::optional<size_t>(1));
}

TEST_CASE("a tuning cache that cannot be parsed is ignored with a reason and replaced on save", "[runtime][tuning]") {
  test::TempDir dir;
  const std::string path = dir.file("tuning.json");
  const std::string garbage = "{not json";
  writeFileAtomically(path, std::vector<uint8_t>(garbage.begin(), garbage.end()));
  std::string warning;
  TuningCache cache(path, &warning);
  CHECK_THAT(warning, Contains("ignoring the tuning cache '" + path + "': "));
  CHECK(cache.size() == 0);
  const TuningKey key{"gpu", "hash", "k0", 1, {"a", "b"}};
  cache.store(key, TuningEntry{{2.0, 1.0}, "b"});
  cache.save();
  CHECK(TuningCache(path).lookup(key) == std::optional<size_t>(1));

  const std::string foreign = R"({"entries": []})";
  writeFileAtomically(path, std::vector<uint8_t>(foreign.begin(), foreign.end()));
  warning.clear();
  TuningCache(path, &warning);
  CHECK_THAT(warning, Contains("is not a fusec tuning cache"));
}

TEST_CASE("fuserun --tune prints each kernel's choice and timings", "[runtime][tuning][fuserun]") {
  test::TempDir dir;
  const std::string planPath = dir.file("variants.plan");
  writeFileAtomically(planPath, plan::encodePlan(variantPlanManifest(), test::hostStepPlanSections()));
  const auto driver = clockedDriver(1, 0);
  const fuserun::BackendFactory onHostGpu = [&](const std::string &, std::shared_ptr<const Plan> plan,
                                                const DeviceOptions &options) -> std::unique_ptr<Backend> {
    return std::make_unique<gpu::GpuBackend>(std::move(plan), driver, options);
  };
  const std::string cache = dir.file("tuning.json");
  auto run = [&](const std::vector<std::string> &extra, std::ostringstream &out, std::ostringstream &err) {
    std::vector<std::string> args = {planPath, "--random-inputs=1", "--batch=3", "--tuning-cache=" + cache};
    args.insert(args.end(), extra.begin(), extra.end());
    return fuserun::runFuserun(fuserun::parseFuserunOptions(args), out, err, onHostGpu);
  };
  std::ostringstream out, err;
  REQUIRE(run({"--tune"}, out, err) == 0);
  INFO(out.str() << err.str());
  CHECK_THAT(out.str(), Contains("tuning (2 kernels with variants):\n"
                                 "  k0_mul at batch 4: variant 1 of 2, ms per launch: 0.009125 [0.002125]\n"
                                 "    wide\n"));
  CHECK_THAT(out.str(), Contains("  k2_add at batch 4: variant 0 of 2, ms per launch: [0.002125] 0.009125\n"
                                 "    narrow\n"));

  std::ostringstream cachedOut, cachedErr;
  REQUIRE(run({"--tune"}, cachedOut, cachedErr) == 0);
  CHECK_THAT(cachedOut.str(), Contains("  k0_mul at batch 4: variant 1 of 2 (from the tuning cache)\n    wide\n"));

  std::ostringstream cpuOut, cpuErr;
  std::vector<std::string> args = {planPath, "--random-inputs=1", "--device=cpu", "--tune"};
  REQUIRE(fuserun::runFuserun(fuserun::parseFuserunOptions(args), cpuOut, cpuErr) == 0);
  CHECK_THAT(cpuErr.str(), Contains("fuserun: --tune: nothing to tune (cpu runs the plan's ops, not its kernels)"));
}
