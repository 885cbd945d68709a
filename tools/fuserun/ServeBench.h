//===- ServeBench.h - Concurrent clients against one plan -------*- C++ -*-===//
//
// What a server sees: N clients, each with its own Session of one shared
// plan, sending requests back to back (a closed loop) at batch sizes drawn
// from a distribution. The result is throughput and latency percentiles,
// overall and per batch size. `fuserun --serve-bench` prints it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TOOLS_FUSERUN_SERVEBENCH_H
#define FUSEC_TOOLS_FUSERUN_SERVEBENCH_H

#include "runtime/Backend.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fusec::runtime {

struct ServeBenchOptions {
  int clients = 4;
  /// Timed requests per client.
  int requestsPerClient = 50;
  /// Untimed requests per client first (graphs captured, caches warm).
  int warmupPerClient = 2;
  /// Batch sizes and their relative weights.
  std::vector<std::pair<int64_t, double>> batchDistribution = {{1, 1.0}};
  /// Seeds the inputs and each client's draws: the same seed sends the same
  /// requests.
  uint64_t seed = 1;
};

/// Parses "1:0.5,4:0.3,8:0.2" (batch:weight) or "1,4,8" (equal weights).
/// Throws Error naming the bad entry.
std::vector<std::pair<int64_t, double>> parseBatchDistribution(const std::string &text);

struct LatencySummary {
  size_t requests = 0;
  double meanMs = 0.0;
  double p50Ms = 0.0;
  double p90Ms = 0.0;
  double p99Ms = 0.0;
  double maxMs = 0.0;
};

/// Nearest-rank percentiles of per-request latencies in milliseconds.
LatencySummary summarizeLatencies(std::vector<double> milliseconds);

struct ServeBenchResult {
  std::string device;
  int clients = 0;
  size_t requests = 0;
  int64_t samples = 0;
  double wallSeconds = 0.0;
  double requestsPerSecond = 0.0;
  double samplesPerSecond = 0.0;
  LatencySummary latency;
  std::map<int64_t, LatencySummary> byBatch;
};

/// Makes one client's backend; called once per client, on the caller's thread.
using ClientBackendFactory = std::function<std::unique_ptr<Backend>()>;

/// Runs the benchmark. Throws Error for a batch size the plan cannot run, and
/// rethrows the first error a client met (after every client stopped).
ServeBenchResult runServeBench(const std::shared_ptr<const Plan> &plan, const ClientBackendFactory &makeBackend,
                               const ServeBenchOptions &options);

/// The result as text: one line of throughput, one of latency, one per
/// batch size.
std::string formatServeBench(const ServeBenchResult &result);

} // namespace fusec::runtime

#endif // FUSEC_TOOLS_FUSERUN_SERVEBENCH_H
