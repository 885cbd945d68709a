//===- Timing.h - Time repeated runs ----------------------------------------===//
#ifndef FUSEC_RUNTIME_TIMING_H
#define FUSEC_RUNTIME_TIMING_H

#include <functional>
#include <vector>

namespace fusec::runtime {

struct TimingSummary {
  int iterations = 0;
  double medianMs = 0.0;
  double minMs = 0.0;
  double maxMs = 0.0;
};

/// Median, minimum and maximum of per-run times in milliseconds.
TimingSummary summarizeTimings(std::vector<double> milliseconds);

/// Calls `run` `warmup` times untimed, then `iterations` times timed with a
/// monotonic wall clock.
TimingSummary timeRuns(int warmup, int iterations, const std::function<void()> &run);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_TIMING_H
