//===- VariantTuner.cpp - Choose each kernel's fastest compiled variant -----===//
#include "runtime/gpu/VariantTuner.h"

#include "runtime/gpu/StreamGate.h"
#include "runtime/gpu/StreamObjects.h"

#include <algorithm>
#include <iostream>
#include <limits>

namespace fusec::runtime::gpu {

namespace {

/// Launches per timed round, and rounds per variant (the best round
/// counts: a round that shared the GPU with other work is discarded).
constexpr int kLaunchesPerRound = 8;
constexpr int kRounds = 3;
static_assert(kLaunchesPerRound + 2 <= int(kMaxStepsBehindGate), "a round must fit behind the stream gate");

std::string cachePath(const DeviceOptions &options) {
  if (options.tuningCache == "none")
    return "";
  return options.tuningCache.empty() ? defaultTuningCachePath() : options.tuningCache;
}

TuningCache openCache(const DeviceOptions &options) {
  std::string warning;
  TuningCache cache(cachePath(options), &warning);
  if (!warning.empty())
    std::cerr << "fusec: " << warning << "\n";
  return cache;
}

} // namespace

bool hasVariants(const Plan &plan) {
  return std::any_of(plan.kernels().begin(), plan.kernels().end(),
                     [](const KernelDesc &kernel) { return kernel.launch && kernel.variantCount() > 1; });
}

std::vector<size_t> variantCandidates(const Plan &plan, size_t index, const DeviceExecutable &kernels,
                                      Tactics tactics) {
  const KernelDesc &kernel = plan.kernels()[index];
  std::vector<size_t> compiled, library;
  for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
    if (!kernel.libraryOf(variant))
      compiled.push_back(variant);
    else if (kernels.runsLibraryVariant(index, variant))
      library.push_back(variant);
  }
  switch (tactics) {
  case Tactics::Generated:
    return compiled;
  case Tactics::Library:
    return library.empty() ? compiled : library;
  case Tactics::All:
    break;
  }
  compiled.insert(compiled.end(), library.begin(), library.end());
  return compiled;
}

VariantChoice untunedVariants(const Plan &plan, const DeviceExecutable &kernels, Tactics tactics) {
  VariantChoice choice(plan.kernels().size(), 0);
  for (size_t k = 0; k < plan.kernels().size(); ++k) {
    const KernelDesc &kernel = plan.kernels()[k];
    if (!kernel.launch)
      continue;
    const std::vector<size_t> candidates = variantCandidates(plan, k, kernels, tactics);
    choice[k] = std::find(candidates.begin(), candidates.end(), kernel.defaultVariant) != candidates.end()
                    ? kernel.defaultVariant
                    : candidates.front();
  }
  return choice;
}

VariantTuner::VariantTuner(const Plan &plan, const DeviceOptions &options, std::string performanceIdentity)
    : plan_(plan), tune_(options.tune), tactics_(options.tactics), identity_(std::move(performanceIdentity)),
      cache_(openCache(options)) {}

std::vector<double> VariantTuner::timeVariants(const LaunchStep &step, const std::vector<size_t> &candidates,
                                               const RunMode &mode, const DeviceRegions &regions,
                                               const StreamTarget &target, bool gateHolds) const {
  const KernelDesc &kernel = plan_.kernels()[step.kernel];
  OwnedEvent start(target.driver), end(target.driver);
  StreamGate gate(target.driver, target.stream, gateHolds);
  std::vector<double> best(kernel.variantCount(), std::numeric_limits<double>::infinity());
  for (int round = 0; round < kRounds; ++round) {
    for (size_t variant : candidates) {
      LaunchStep launch = step;
      selectVariant(plan_, launch, variant, target.driver.multiprocessorCount());
      gate.close();
      // One launch before the events: the first launch of a module may load
      // it lazily, and caches warm up.
      enqueueStep(target, plan_, launch, regions, mode);
      start.record(target.stream);
      for (int i = 0; i < kLaunchesPerRound; ++i)
        enqueueStep(target, plan_, launch, regions, mode);
      end.record(target.stream);
      gate.open();
      target.driver.synchronize(target.stream, [&] {
        return "after timing variant " + std::to_string(variant) + " of kernel '" + kernel.name + "' (" +
               kernel.configOf(variant) + ")";
      });
      best[variant] = std::min(best[variant], end.millisecondsSince(start) / kLaunchesPerRound);
    }
  }
  return best;
}

VariantChoice VariantTuner::choose(const Schedule &schedule, const DeviceRegions &regions, const StreamTarget &target,
                                   const std::function<bool()> &gateHolds) {
  VariantChoice choice = untunedVariants(plan_, target.kernels, tactics_);
  bool timed = false;
  for (const Segment &segment : schedule.segments) {
    for (const DeviceStep &deviceStep : segment.steps) {
      const auto *step = std::get_if<LaunchStep>(&deviceStep);
      if (!step)
        continue;
      const KernelDesc &kernel = plan_.kernels()[step->kernel];
      const std::vector<size_t> candidates = variantCandidates(plan_, step->kernel, target.kernels, tactics_);
      if (candidates.size() < 2)
        continue;
      auto isCandidate = [&](size_t variant) {
        return std::find(candidates.begin(), candidates.end(), variant) != candidates.end();
      };
      KernelTuning record;
      record.kernel = kernel.name;
      record.batch = schedule.mode.runBatch;
      for (size_t variant = 0; variant < kernel.variantCount(); ++variant)
        record.configs.push_back(kernel.configOf(variant));
      // Shape variants share the source and the kernel names, not the sizes
      // the timings were taken at.
      const std::string planKey = plan_.dims().empty() ? plan_.manifest().sourceHash
                                                       : plan_.manifest().sourceHash + " " + formatDims(plan_.dims());
      const TuningKey key{identity_, planKey, kernel.name, record.batch, record.configs};
      if (std::optional<size_t> cached = cache_.lookup(key); cached && isCandidate(*cached)) {
        record.chosen = *cached;
        record.fromCache = true;
      } else if (tune_) {
        record.milliseconds = timeVariants(*step, candidates, schedule.mode, regions, target, gateHolds());
        // The first of equally fast variants: compiled variants win ties.
        record.chosen = size_t(std::min_element(record.milliseconds.begin(), record.milliseconds.end()) -
                               record.milliseconds.begin());
        cache_.store(key, TuningEntry{record.milliseconds, record.configs[record.chosen]});
        timed = true;
      } else {
        continue;
      }
      choice[step->kernel] = record.chosen;
      records_.push_back(std::move(record));
    }
  }
  if (timed)
    cache_.save();
  return choice;
}

} // namespace fusec::runtime::gpu
