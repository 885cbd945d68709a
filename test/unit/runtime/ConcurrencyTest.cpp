//===- ConcurrencyTest.cpp - Sessions of one plan on many threads ---------===//
//
// A loaded Plan is immutable and shared; each thread runs its own Session.
// These tests run N threads x M requests at mixed batch sizes against one
// plan and compare every result with the one a single session computed
// serially: nothing may be lost or mixed up. scripts/ci/tsan-runtime.sh runs
// them under ThreadSanitizer ("[threads]").
//
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

#include "runtime/Session.h"
#include "runtime/c_api/runtime_c.h"
#include "support/FileIO.h"
#include "tools/fuserun/RandomInputs.h"

#include <atomic>
#include <string>
#include <thread>

using namespace fusec;
using namespace fusec::runtime;

namespace {

constexpr int kThreads = 8;
constexpr int kRequestsPerThread = 40;
constexpr int64_t kBatches[] = {1, 3, 2, 5, 4, 1, 7};

struct Request {
  int64_t batch;
  std::map<std::string, Tensor> inputs;
  std::map<std::string, Tensor> expected;
};

/// Requests at mixed batch sizes, with the outputs one session computes for
/// them serially.
std::vector<Request> makeRequests(const std::shared_ptr<const Plan> &plan) {
  Session serial(plan, Device::Cpu);
  std::vector<Request> requests;
  uint64_t seed = 1;
  for (int64_t batch : kBatches) {
    Request request{batch, makeRandomInputs(*plan, batch, seed++), {}};
    request.expected = serial.run(batch, request.inputs);
    requests.push_back(std::move(request));
  }
  return requests;
}

bool sameTensors(const std::map<std::string, Tensor> &a, const std::map<std::string, Tensor> &b) {
  if (a.size() != b.size())
    return false;
  for (const auto &[name, tensor] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.shape() != tensor.shape() || it->second.toDoubles() != tensor.toDoubles())
      return false;
  }
  return true;
}

} // namespace

TEST_CASE("sessions of one plan on many threads give every request its serial result", "[threads]") {
  auto plan = test::smallPlan();
  const std::vector<Request> requests = makeRequests(plan);
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Session session(plan, Device::Cpu);
      for (int r = 0; r < kRequestsPerThread; ++r) {
        const Request &request = requests[static_cast<size_t>(t + r) % requests.size()];
        if (!sameTensors(session.run(request.batch, request.inputs), request.expected))
          ++wrong;
        ++done;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(done == kThreads * kRequestsPerThread);
  CHECK(wrong == 0);
}

TEST_CASE("CUDA sessions of one plan on many threads give every request its serial result", "[threads]") {
  // On the host CUDA double: each session has its own stream, workspace and
  // graphs; the double's driver state is shared, as a real driver's is.
  auto plan = test::hostStepPlan();
  const std::vector<Request> requests = makeRequests(plan);
  DeviceOptions options;
  options.cudaDriver = FUSEC_HOST_CUDA_DRIVER;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Session session(plan, Device::Cuda, options);
      for (int r = 0; r < 10; ++r) {
        const Request &request = requests[static_cast<size_t>(t + r) % requests.size()];
        if (!sameTensors(session.run(request.batch, request.inputs), request.expected))
          ++wrong;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  CHECK(wrong == 0);
}

TEST_CASE("C API sessions of one plan run on many threads, each with its own last error", "[threads]") {
  test::TempDir dir;
  writeFileAtomically(dir.file("small.plan"), test::smallPlanBytes());
  fusec_plan *plan = fusec_plan_load(dir.file("small.plan").c_str());
  REQUIRE(plan);
  // x [batch, 2] -> y [batch, 3]: the serial result of the example rows.
  const std::vector<float> x = {2, 1, -1, -1, 0, 3};
  const std::vector<float> expected = {10, 8, 1.25f, -1.5f, -18, 5.25f, 14, 12, 7.25f};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      fusec_session *session = fusec_session_create(plan, "cpu");
      if (!session) {
        ++wrong;
        return;
      }
      for (int r = 0; r < kRequestsPerThread; ++r) {
        std::vector<float> y(9, 0.0f);
        const float *inputs[] = {x.data()};
        float *outputs[] = {y.data()};
        if (fusec_session_run(session, 3, inputs, outputs) != 0 || y != expected)
          ++wrong;
        // A failing call on this thread sets this thread's error only.
        const int64_t batch = 1000000000 + t;
        if (fusec_session_run(session, batch, inputs, outputs) == 0 ||
            std::string(fusec_last_error()).find(std::to_string(batch)) == std::string::npos)
          ++wrong;
      }
      fusec_session_free(session);
    });
  for (std::thread &thread : threads)
    thread.join();
  fusec_plan_free(plan);
  CHECK(wrong == 0);
}
