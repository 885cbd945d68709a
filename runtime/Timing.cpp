//===- Timing.cpp - Time repeated runs --------------------------------------===//

#include "runtime/Timing.h"

#include <algorithm>
#include <chrono>

namespace fusec::runtime {

TimingSummary summarizeTimings(std::vector<double> milliseconds) {
  TimingSummary summary;
  summary.iterations = static_cast<int>(milliseconds.size());
  if (milliseconds.empty())
    return summary;
  std::sort(milliseconds.begin(), milliseconds.end());
  const size_t middle = milliseconds.size() / 2;
  summary.medianMs =
      milliseconds.size() % 2 ? milliseconds[middle] : (milliseconds[middle - 1] + milliseconds[middle]) / 2;
  summary.minMs = milliseconds.front();
  summary.maxMs = milliseconds.back();
  return summary;
}

TimingSummary timeRuns(int warmup, int iterations, const std::function<void()> &run) {
  for (int i = 0; i < warmup; ++i)
    run();
  std::vector<double> milliseconds;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto end = std::chrono::steady_clock::now();
    milliseconds.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  return summarizeTimings(std::move(milliseconds));
}

} // namespace fusec::runtime
