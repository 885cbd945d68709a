//===- VariantTuner.h - Choose each kernel's fastest compiled variant -------===//
//
// A plan may carry, per conv/GEMM kernel, several compiled variants (other
// tiles of the same computation; fusec --kernel-variants). The compiler's
// choice (variant 0) comes from a model; the tuner measures instead: for a
// run batch, it launches each variant of each such kernel on the session's
// workspace (whatever it holds: the work, not the values, is timed), keeps
// the fastest, and remembers the choice in the tuning cache, which later
// sessions on the same device and driver read instead of timing again.
//
// Timing follows the backend's per-step timing: the stream is held behind a
// gate while the launches are enqueued, so host-side launch overhead is not
// measured; each variant is timed over a few rounds, taking the best round.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_VARIANTTUNER_H
#define FUSEC_RUNTIME_GPU_VARIANTTUNER_H

#include "runtime/Backend.h"
#include "runtime/Device.h"
#include "runtime/TuningCache.h"
#include "runtime/gpu/Enqueue.h"
#include "runtime/gpu/Schedule.h"

#include <functional>
#include <string>
#include <vector>

namespace fusec::runtime::gpu {

/// Whether any kernel of `plan` has more than one variant.
bool hasVariants(const Plan &plan);

/// The variants of kernel `index` of `plan` a session may run, in order:
/// those `kernels` runs (a library variant needs its library, and cuDNN an
/// engine for it) that `tactics` allows. Never empty: a kernel's compiled
/// variant 0 always runs, and Tactics::Library keeps the compiled variants
/// of a kernel without a runnable library one.
std::vector<size_t> variantCandidates(const Plan &plan, size_t index, const DeviceExecutable &kernels, Tactics tactics);

/// Each kernel's variant when none is timed or cached: the plan's default
/// (KernelDesc::defaultVariant) if it is a candidate, else the first.
VariantChoice untunedVariants(const Plan &plan, const DeviceExecutable &kernels, Tactics tactics);

class VariantTuner {
public:
  /// Reads the cache `options` name (DeviceOptions::tuningCache) for a
  /// device of `performanceIdentity`. A cache that cannot be read is
  /// ignored, with a note on stderr.
  VariantTuner(const Plan &plan, const DeviceOptions &options, std::string performanceIdentity);

  /// The variant each kernel of `schedule` (built with every kernel's
  /// variant 0, at one run batch, on `regions`) runs at that batch, among
  /// its candidates (variantCandidates): the cache's choice, else, when
  /// tuning, the fastest as timed on `target` (the cache is then saved),
  /// else the untuned one. Throws Error if a launch fails or the cache
  /// cannot be written.
  /// `gateHolds` says, when asked, whether the stream gate holds the
  /// stream while the launches are enqueued (GpuBackend's timingGate).
  VariantChoice choose(const Schedule &schedule, const DeviceRegions &regions, const StreamTarget &target,
                       const std::function<bool()> &gateHolds);

  /// Every choice made, in order.
  const std::vector<KernelTuning> &records() const { return records_; }

private:
  /// Milliseconds per launch of each variant of `step`'s kernel among
  /// `candidates` (infinity for the others).
  std::vector<double> timeVariants(const LaunchStep &step, const std::vector<size_t> &candidates, const RunMode &mode,
                                   const DeviceRegions &regions, const StreamTarget &target, bool gateHolds) const;

  const Plan &plan_;
  bool tune_;
  Tactics tactics_;
  std::string identity_;
  TuningCache cache_;
  std::vector<KernelTuning> records_;
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_VARIANTTUNER_H
