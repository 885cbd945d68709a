//===- TimingTest.cpp - Summaries of run times ------------------------------===//

#include "TestSupport.h"

#include "runtime/Timing.h"

using namespace fusec::runtime;

TEST_CASE("summarizeTimings reports median, minimum and maximum") {
  const TimingSummary odd = summarizeTimings({5, 1, 3});
  CHECK(odd.iterations == 3);
  CHECK(odd.medianMs == 3);
  CHECK(odd.minMs == 1);
  CHECK(odd.maxMs == 5);
  CHECK(summarizeTimings({4, 1, 2, 8}).medianMs == 3);
  CHECK(summarizeTimings({}).iterations == 0);
}

TEST_CASE("timeRuns runs warmup plus timed iterations") {
  int calls = 0;
  const TimingSummary summary = timeRuns(2, 3, [&] { ++calls; });
  CHECK(calls == 5);
  CHECK(summary.iterations == 3);
  CHECK(summary.minMs <= summary.medianMs);
  CHECK(summary.medianMs <= summary.maxMs);
}
