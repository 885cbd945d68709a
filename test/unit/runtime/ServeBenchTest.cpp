//===- ServeBenchTest.cpp - Concurrent clients against one plan -----------===//

#include "TestSupport.h"

#include "runtime/Error.h"
#include "runtime/cpu/CpuBackend.h"
#include "tools/fuserun/ServeBench.h"

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

/// A backend whose runs fail after `good` successful ones.
class FailingBackend final : public Backend {
public:
  explicit FailingBackend(int good) : good_(good) {}
  std::string name() const override { return "cpu"; }
  void execute(int64_t, const std::vector<const void *> &, const std::vector<void *> &) override {
    if (good_-- <= 0)
      throw Error("the device fell over");
  }

private:
  int good_;
};

} // namespace

TEST_CASE("a batch distribution is batch:weight pairs or plain batch sizes") {
  using Distribution = std::vector<std::pair<int64_t, double>>;
  CHECK(parseBatchDistribution("1:0.5,4:0.3,8:0.2") == Distribution{{1, 0.5}, {4, 0.3}, {8, 0.2}});
  CHECK(parseBatchDistribution("1,4") == Distribution{{1, 1.0}, {4, 1.0}});
  CHECK_THROWS_WITH(parseBatchDistribution("0"), Contains("entry '0': the batch size must be an integer >= 1"));
  CHECK_THROWS_WITH(parseBatchDistribution("2:x"), Contains("entry '2:x': the weight must be a finite number > 0"));
  CHECK_THROWS_WITH(parseBatchDistribution("2:-1"), Contains("the weight must be a finite number > 0"));
  CHECK_THROWS_WITH(parseBatchDistribution("2,2:3"), Contains("lists batch 2 twice"));
  CHECK_THROWS_WITH(parseBatchDistribution(""), Contains("lists no batch size"));
}

TEST_CASE("latency percentiles are nearest-rank") {
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i)
    ms.push_back(i);
  const LatencySummary summary = summarizeLatencies(ms);
  CHECK(summary.requests == 100);
  CHECK(summary.p50Ms == 50);
  CHECK(summary.p90Ms == 90);
  CHECK(summary.p99Ms == 99);
  CHECK(summary.maxMs == 100);
  CHECK(summary.meanMs == Approx(50.5));
  CHECK(summarizeLatencies({7}).p99Ms == 7);
  CHECK(summarizeLatencies({}).requests == 0);
}

TEST_CASE("the serve bench runs every client's requests and counts them per batch size", "[threads]") {
  auto plan = test::smallPlan();
  ServeBenchOptions options;
  options.clients = 3;
  options.requestsPerClient = 25;
  options.batchDistribution = {{1, 1.0}, {2, 2.0}, {5, 1.0}};
  int made = 0;
  const ServeBenchResult result = runServeBench(
      plan,
      [&] {
        ++made;
        return std::make_unique<cpu::CpuBackend>(plan);
      },
      options);
  CHECK(made == 3);
  CHECK(result.device == "cpu");
  CHECK(result.clients == 3);
  CHECK(result.requests == 75);
  size_t requests = 0;
  int64_t samples = 0;
  for (const auto &[batch, summary] : result.byBatch) {
    CHECK((batch == 1 || batch == 2 || batch == 5));
    requests += summary.requests;
    samples += batch * static_cast<int64_t>(summary.requests);
    CHECK(summary.p50Ms <= summary.p99Ms);
  }
  CHECK(requests == 75);
  CHECK(samples == result.samples);
  CHECK(result.requestsPerSecond > 0);
  CHECK(formatServeBench(result).find("serve-bench: 3 clients on cpu, 75 requests") == 0);
}

TEST_CASE("the serve bench checks batch sizes first and reports a client's failure", "[threads]") {
  auto plan = test::smallPlan();
  ServeBenchOptions options;
  options.batchDistribution = {{int64_t(1) << 40, 1.0}};
  CHECK_THROWS_WITH(
      runServeBench(plan, [&] { return std::make_unique<cpu::CpuBackend>(plan); }, options), Contains("1099511627776"));
  // One client's device fails during warm-up, another's while timed: the
  // bench still stops (no client waits forever) and rethrows.
  options.batchDistribution = {{1, 1.0}};
  options.clients = 2;
  int client = 0;
  CHECK_THROWS_WITH(runServeBench(
                        plan, [&] { return std::make_unique<FailingBackend>(client++ == 0 ? 0 : 10); }, options),
                    Contains("the device fell over"));
}
