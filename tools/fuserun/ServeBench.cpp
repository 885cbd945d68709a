//===- ServeBench.cpp - Concurrent clients against one plan ---------------===//
#include "tools/fuserun/ServeBench.h"

#include "runtime/Error.h"
#include "runtime/Session.h"
#include "tools/fuserun/RandomInputs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <iomanip>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace fusec::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The inputs of one batch size, shared read-only by every client.
struct BatchInputs {
  int64_t batch = 0;
  std::vector<Tensor> tensors;
  std::vector<const void *> pointers;
};

/// One client's output buffers for one batch size.
struct BatchOutputs {
  std::vector<Tensor> tensors;
  std::vector<void *> pointers;
};

/// Holds every client at the start line until all have warmed up.
class StartLine {
public:
  explicit StartLine(int clients) : waiting_(clients) {}
  /// Called by each client once; blocks until open() is called.
  void arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0)
      allArrived_.notify_one();
    opened_.wait(lock, [&] { return open_; });
  }
  /// Waits for every client, then lets them go.
  void open() {
    std::unique_lock<std::mutex> lock(mutex_);
    allArrived_.wait(lock, [&] { return waiting_ == 0; });
    open_ = true;
    opened_.notify_all();
  }

private:
  std::mutex mutex_;
  std::condition_variable allArrived_, opened_;
  int waiting_;
  bool open_ = false;
};

struct Sample {
  int64_t batch;
  double ms;
};

} // namespace

std::vector<std::pair<int64_t, double>> parseBatchDistribution(const std::string &text) {
  std::vector<std::pair<int64_t, double>> distribution;
  std::stringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    const size_t colon = entry.find(':');
    const std::string batchText = entry.substr(0, colon);
    const std::string weightText = colon == std::string::npos ? "1" : entry.substr(colon + 1);
    char *end = nullptr;
    const long long batch = std::strtoll(batchText.c_str(), &end, 10);
    if (batchText.empty() || *end != '\0' || batch < 1)
      throw Error("batch distribution entry '" + entry + "': the batch size must be an integer >= 1");
    const double weight = std::strtod(weightText.c_str(), &end);
    if (weightText.empty() || *end != '\0' || !std::isfinite(weight) || weight <= 0.0)
      throw Error("batch distribution entry '" + entry + "': the weight must be a finite number > 0");
    for (const auto &[existing, unused] : distribution)
      if (existing == batch)
        throw Error("batch distribution lists batch " + std::to_string(batch) + " twice");
    distribution.emplace_back(batch, weight);
  }
  if (distribution.empty())
    throw Error("batch distribution '" + text + "' lists no batch size (e.g. '1:0.5,4:0.3,8:0.2')");
  return distribution;
}

LatencySummary summarizeLatencies(std::vector<double> milliseconds) {
  LatencySummary summary;
  summary.requests = milliseconds.size();
  if (milliseconds.empty())
    return summary;
  std::sort(milliseconds.begin(), milliseconds.end());
  // Nearest rank: the smallest value with at least p% of the samples at or below it.
  auto percentile = [&](double p) {
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(milliseconds.size())));
    return milliseconds[std::max<size_t>(rank, 1) - 1];
  };
  double sum = 0.0;
  for (double ms : milliseconds)
    sum += ms;
  summary.meanMs = sum / static_cast<double>(milliseconds.size());
  summary.p50Ms = percentile(50);
  summary.p90Ms = percentile(90);
  summary.p99Ms = percentile(99);
  summary.maxMs = milliseconds.back();
  return summary;
}

ServeBenchResult runServeBench(const std::shared_ptr<const Plan> &plan, const ClientBackendFactory &makeBackend,
                               const ServeBenchOptions &options) {
  if (options.clients < 1 || options.requestsPerClient < 1 || options.warmupPerClient < 0)
    throw Error("serve bench: needs at least one client and one request per client");
  if (options.batchDistribution.empty())
    throw Error("serve bench: the batch distribution is empty");

  // Sessions first, on this thread: a backend that cannot be made fails here.
  std::vector<Session> sessions;
  sessions.reserve(static_cast<size_t>(options.clients));
  for (int client = 0; client < options.clients; ++client)
    sessions.emplace_back(plan, makeBackend());
  std::vector<BatchInputs> inputs;
  std::vector<double> weights;
  for (const auto &[batch, weight] : options.batchDistribution) {
    sessions.front().checkBatch(batch);
    BatchInputs batchInputs{batch, {}, {}};
    auto named = makeRandomInputs(*plan, batch, options.seed + static_cast<uint64_t>(batch));
    for (const TensorDesc &input : plan->inputs())
      batchInputs.tensors.push_back(std::move(named.at(input.name)));
    for (const Tensor &tensor : batchInputs.tensors)
      batchInputs.pointers.push_back(tensor.rawData());
    inputs.push_back(std::move(batchInputs));
    weights.push_back(weight);
  }

  std::vector<std::vector<Sample>> samples(static_cast<size_t>(options.clients));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(options.clients));
  StartLine startLine(options.clients);
  auto client = [&](size_t index) {
    bool arrived = false;
    try {
      Session &session = sessions[index];
      std::vector<BatchOutputs> outputs(inputs.size());
      for (size_t b = 0; b < inputs.size(); ++b)
        for (const TensorDesc &output : plan->outputs()) {
          outputs[b].tensors.emplace_back(resolveShape(output.shape, inputs[b].batch), output.dtype);
          outputs[b].pointers.push_back(outputs[b].tensors.back().rawData());
        }
      std::mt19937_64 random(options.seed * 0x9E3779B97F4A7C15ULL + index);
      std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
      auto request = [&] {
        const size_t b = pick(random);
        const Clock::time_point start = Clock::now();
        session.run(inputs[b].batch, inputs[b].pointers, outputs[b].pointers);
        return Sample{inputs[b].batch, millisecondsSince(start)};
      };
      for (int i = 0; i < options.warmupPerClient; ++i)
        request();
      arrived = true;
      startLine.arrive();
      samples[index].reserve(static_cast<size_t>(options.requestsPerClient));
      for (int i = 0; i < options.requestsPerClient; ++i)
        samples[index].push_back(request());
    } catch (...) {
      errors[index] = std::current_exception();
      if (!arrived)
        startLine.arrive();
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(sessions.size());
  for (size_t index = 0; index < sessions.size(); ++index)
    threads.emplace_back(client, index);
  startLine.open();
  const Clock::time_point start = Clock::now();
  for (std::thread &thread : threads)
    thread.join();
  const double wallSeconds = millisecondsSince(start) / 1000.0;
  for (const std::exception_ptr &error : errors)
    if (error)
      std::rethrow_exception(error);

  ServeBenchResult result;
  result.device = sessions.front().device();
  result.clients = options.clients;
  result.wallSeconds = wallSeconds;
  std::vector<double> all;
  std::map<int64_t, std::vector<double>> byBatch;
  for (const std::vector<Sample> &clientSamples : samples)
    for (const Sample &sample : clientSamples) {
      all.push_back(sample.ms);
      byBatch[sample.batch].push_back(sample.ms);
      result.samples += sample.batch;
    }
  result.requests = all.size();
  result.requestsPerSecond = static_cast<double>(result.requests) / std::max(wallSeconds, 1e-9);
  result.samplesPerSecond = static_cast<double>(result.samples) / std::max(wallSeconds, 1e-9);
  result.latency = summarizeLatencies(std::move(all));
  for (auto &[batch, milliseconds] : byBatch)
    result.byBatch[batch] = summarizeLatencies(std::move(milliseconds));
  return result;
}

std::string formatServeBench(const ServeBenchResult &result) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3);
  auto latency = [&](const LatencySummary &summary) {
    out << "p50 " << summary.p50Ms << " ms, p90 " << summary.p90Ms << " ms, p99 " << summary.p99Ms << " ms, max "
        << summary.maxMs << " ms, mean " << summary.meanMs << " ms";
  };
  out << "serve-bench: " << result.clients << " clients on " << result.device << ", " << result.requests
      << " requests (" << result.samples << " samples) in " << result.wallSeconds << " s: " << std::setprecision(1)
      << result.requestsPerSecond << " requests/s, " << result.samplesPerSecond << " samples/s\n"
      << std::setprecision(3);
  out << "serve-bench latency: ";
  latency(result.latency);
  out << "\n";
  for (const auto &[batch, summary] : result.byBatch) {
    out << "serve-bench batch " << batch << " (" << summary.requests << " requests): ";
    latency(summary);
    out << "\n";
  }
  return out.str();
}

} // namespace fusec::runtime
