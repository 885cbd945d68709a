//===- GpuBackend.cpp - Run a plan's schedule on a GPU through a GpuDevice --===//

#include "runtime/gpu/GpuBackend.h"

#include "runtime/gpu/HostSteps.h"
#include "runtime/gpu/StreamGate.h"

#include <algorithm>
#include <deque>
#include <iostream>

namespace fusec::runtime::gpu {

namespace {

std::string workspaceName(int64_t batch) { return "the workspace for batch " + std::to_string(batch); }

} // namespace

const KernelDesc *firstKernelWithoutImage(const Plan &plan) {
  for (const KernelDesc &kernel : plan.kernels())
    if (!kernel.isCopy() && !kernel.isHostStep() && kernel.images.empty())
      return &kernel;
  return nullptr;
}

void checkPlanHasGpuImages(const Plan &plan, const std::string &backend) {
  if (const KernelDesc *kernel = firstKernelWithoutImage(plan))
    throw Error("cannot run plan '" + plan.sourceName() + "' on " + backend + ": kernel '" + kernel->name +
                "' has no GPU image (the plan was compiled for target '" + plan.manifest().target +
                "'; compile it with fusec --target=sm_XX)");
}

struct GpuBackend::RunEvents {
  explicit RunEvents(const GpuDevice &driver) : start(driver), executeStart(driver), executeEnd(driver), end(driver) {}

  OwnedEvent start, executeStart, executeEnd, end;
};

GpuBackend::GpuBackend(std::shared_ptr<const Plan> plan, std::shared_ptr<const GpuDevice> driver,
                       const DeviceOptions &options)
    : plan_(std::move(plan)), driver_(std::move(driver)), options_(options), buckets_(batchBuckets(*plan_)),
      constructing_((checkPlanHasGpuImages(*plan_, driver_->name()), std::in_place), *driver_), stream_(*driver_),
      kernels_(driver_->loadKernels(*plan_, options_)), weights_(DeviceWeights::acquire(driver_, stream_.get(), plan_)),
      layout_(layoutWorkspace(*plan_, buckets_.back(), driver_->multiprocessorCount())),
      workspace_(*driver_, layout_.bytes, workspaceName(buckets_.back())), graphs_(*driver_, stream_.get()),
      staging_(*driver_) {
  zeroSplitCounters(workspace_, layout_);
  untuned_ = untunedVariants(*plan_, *kernels_, options_.tactics);
  reportUnrunnableLibraries();
  if (hasVariants(*plan_))
    tuner_.emplace(*plan_, options_, driver_->performanceIdentity());
  if (options_.useGraphs && options_.prebuildGraphs)
    for (int64_t bucket : buckets_)
      prepare(bucket);
  constructing_.reset();
}

GpuBackend::~GpuBackend() {
  // The members free device objects next, and the device may not be
  // entered on the destroying thread. constructing_ is destroyed after them
  // and leaves the device again.
  try {
    constructing_.emplace(*driver_);
    // A run on device buffers may still be in flight on the stream (a
    // session gives up a shape variant's backend between runs).
    synchronize("before releasing the session's device memory");
  } catch (const Error &) { // NOLINT(bugprone-empty-catch)
    // Nothing to report to: teardown goes on regardless.
  }
}

GpuBackend::Prepared GpuBackend::prepare(int64_t batch) {
  const RunMode mode = chooseRunMode(buckets_, batch, options_.useGraphs);
  if (mode.runBatch > layout_.capacityBatch) {
    // Above the largest bucket (never graphed): a workspace of its own,
    // replaced by a larger one when needed. The old one goes first, so the
    // two never hold device memory together.
    if (mode.runBatch > overflowLayout_.capacityBatch || !overflow_.bytes()) {
      // A run enqueued on device buffers may still use the old one.
      synchronize("before growing the workspace for batches above the largest bucket");
      overflowSchedule_.reset();
      overflow_ = DeviceBuffer();
      overflowLayout_ = layoutWorkspace(*plan_, mode.runBatch, driver_->multiprocessorCount());
      overflow_ = DeviceBuffer(*driver_, overflowLayout_.bytes, workspaceName(mode.runBatch));
      zeroSplitCounters(overflow_, overflowLayout_);
    }
    if (!overflowSchedule_ || !(overflowSchedule_->mode == mode))
      overflowSchedule_ = buildSchedule(*plan_, overflowLayout_, mode, untuned_);
    return Prepared{&*overflowSchedule_, DeviceRegions{weights_->address(), overflow_.address()}, nullptr};
  }

  // Keyed by the requested batch: batches sharing a bucket share its graphs
  // but copy different numbers of rows in and out.
  const DeviceRegions regions{weights_->address(), workspace_.address()};
  auto cached = schedules_.find(batch);
  if (cached == schedules_.end())
    cached = schedules_.emplace(batch, buildSchedule(*plan_, layout_, mode, variantsAt(mode, regions))).first;
  Prepared prepared{&cached->second, regions, nullptr};
  if (mode.graphed)
    prepared.graphs = &graphs_.graphs(cached->second, [&](const Segment &segment) {
      enqueueSegment(target(), *plan_, segment, prepared.regions, mode);
    });
  return prepared;
}

void GpuBackend::zeroSplitCounters(const DeviceBuffer &workspace, const WorkspaceLayout &layout) {
  // Ordered on the stream before any launch; the kernels leave them zero.
  if (layout.splitCountersBytes > 0)
    driver_->zero(workspace.address() + layout.splitCountersOffset, static_cast<size_t>(layout.splitCountersBytes),
                  stream_.get(), [&] {
                    return "for the split-K tile counters of the workspace for batch " +
                           std::to_string(layout.capacityBatch);
                  });
}

const VariantChoice &GpuBackend::variantsAt(const RunMode &mode, const DeviceRegions &regions) {
  if (!tuner_)
    return untuned_;
  auto found = variants_.find(mode.runBatch);
  if (found == variants_.end())
    found = variants_
                .emplace(mode.runBatch, tuner_->choose(buildSchedule(*plan_, layout_, mode), regions, target(),
                                                       [this] { return gateHolds(); }))
                .first;
  return found->second;
}

void GpuBackend::reportUnrunnableLibraries() const {
  const std::string reason = kernels_->libraryUnavailable();
  if (reason.empty() || options_.tactics == Tactics::Generated)
    return;
  // Kernels that would run a library variant (their default, or any under
  // --tactics=library) but run a compiled one.
  size_t fallbacks = 0;
  for (size_t k = 0; k < plan_->kernels().size(); ++k) {
    const KernelDesc &kernel = plan_->kernels()[k];
    if (!kernel.hasLibraryVariant())
      continue;
    const size_t runs = untuned_[k];
    const bool wanted = kernel.libraryOf(kernel.defaultVariant) != nullptr || options_.tactics == Tactics::Library;
    fallbacks += wanted && !kernel.libraryOf(runs);
  }
  // One line: the plan still runs, on the compiled variants.
  if (fallbacks > 0)
    std::cerr << "fusec: " << reason << "; " << fallbacks << " kernel" << (fallbacks == 1 ? "" : "s")
              << " whose library variant would run use" << (fallbacks == 1 ? "s its" : " their")
              << " generated variant instead\n";
}

bool GpuBackend::gateHolds() {
  if (!gateHolds_)
    switch (options_.timingGate) {
    case TimingGate::HostFlag:
      gateHolds_ = true;
      break;
    case TimingGate::None:
      gateHolds_ = false;
      break;
    case TimingGate::Auto:
      gateHolds_ = hostFlagWaitOf(driver_).usable;
      break;
    }
  return *gateHolds_;
}

std::vector<KernelTuning> GpuBackend::tuning() const {
  return tuner_ ? tuner_->records() : std::vector<KernelTuning>();
}

void GpuBackend::reserveHostScratch(const Schedule &schedule) {
  if (hostScratch_.bytes() >= schedule.hostScratchBytes)
    return;
  // An earlier run's uploads from the scratch memory may still be queued.
  synchronize("before growing the host steps' buffers");
  hostScratch_ = PinnedBuffer(); // the old one goes first
  hostScratch_ = PinnedBuffer(*driver_, static_cast<size_t>(schedule.hostScratchBytes), "the host steps' buffers");
}

void GpuBackend::enqueueExecution(const Prepared &prepared) {
  const Schedule &schedule = *prepared.schedule;
  for (size_t i = 0; i < schedule.segments.size(); ++i) {
    if (!prepared.graphs)
      enqueueSegment(target(), *plan_, schedule.segments[i], prepared.regions, schedule.mode);
    else if (Graph graph = (*prepared.graphs)[i])
      driver_->launchGraph(graph, stream_.get(), [&] {
        return "for segment " + std::to_string(i) + " (" + describeRunMode(schedule.mode) + ")";
      });
    if (i < schedule.hostSteps.size())
      runHostStep(*driver_, stream_.get(), *plan_, schedule.hostSteps[i], prepared.regions, schedule.mode,
                  hostScratch_.data());
  }
}

void GpuBackend::run(const Prepared &prepared, const std::vector<const void *> &inputs,
                     const std::vector<void *> &outputs, RunEvents *events) {
  const Schedule &schedule = *prepared.schedule;
  reserveHostScratch(schedule);

  const std::vector<const void *> stagedInputs = staging_.stageInputs(schedule, inputs);
  const std::vector<void *> stagedOutputs = staging_.outputSlots(schedule);
  if (events)
    events->start.record(stream_.get());
  enqueueInputs(target(), *plan_, schedule, prepared.regions, stagedInputs);
  if (events)
    events->executeStart.record(stream_.get());
  enqueueExecution(prepared);
  if (events)
    events->executeEnd.record(stream_.get());
  enqueueOutputs(target(), *plan_, schedule, prepared.regions, stagedOutputs);
  if (events)
    events->end.record(stream_.get());
  // Also where a kernel's asynchronous failure (a bad address, say) shows.
  synchronize("at the end of a run (" + describeRunMode(schedule.mode) + ")");
  staging_.unstageOutputs(schedule, outputs);
}

void GpuBackend::execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) {
  DeviceScope scope(*driver_);
  run(prepare(batch), inputs, outputs, nullptr);
}

void GpuBackend::executeOnDevice(int64_t batch, const std::vector<const void *> &inputs,
                                 const std::vector<void *> &outputs, void *stream) {
  DeviceScope scope(*driver_);
  const Prepared prepared = prepare(batch);
  const Schedule &schedule = *prepared.schedule;
  auto caller = static_cast<Stream>(stream);
  if (caller) {
    if (!callerReady_) {
      callerReady_.emplace(*driver_);
      runDone_.emplace(*driver_);
    }
    callerReady_->recordOn(caller);
    callerReady_->makeWait(stream_.get());
  }
  reserveHostScratch(schedule);
  enqueueInputs(target(), *plan_, schedule, prepared.regions, inputs, CallerMemory::Device);
  enqueueExecution(prepared);
  enqueueOutputs(target(), *plan_, schedule, prepared.regions, outputs, CallerMemory::Device);
  if (!caller) {
    synchronize("at the end of a run on device buffers (" + describeRunMode(schedule.mode) + ")");
    return;
  }
  runDone_->recordOn(stream_.get());
  runDone_->makeWait(caller);
}

std::vector<double> GpuBackend::timeDeviceSteps(const Prepared &prepared, int iterations) {
  std::vector<const DeviceStep *> steps;
  for (const Segment &segment : prepared.schedule->segments)
    for (const DeviceStep &step : segment.steps)
      steps.push_back(&step);
  const std::vector<StepChunk> chunks = chunkSteps(steps.size(), kMaxStepsBehindGate);
  std::deque<OwnedEvent> starts, ends;
  for (size_t i = 0; i < std::min(steps.size(), kMaxStepsBehindGate); ++i) {
    starts.emplace_back(*driver_);
    ends.emplace_back(*driver_);
  }
  StreamGate gate(*driver_, stream_.get(), gateHolds());
  const std::string where = "after timing each device step (" + describeRunMode(prepared.schedule->mode) + ")";
  std::vector<double> sums;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    double sum = 0.0;
    // A bounded number of commands behind the closed gate at a time: the
    // host blocks once a stream's queue is full, and a closed gate would
    // then never open.
    for (const StepChunk &chunk : chunks) {
      gate.close();
      for (size_t i = chunk.begin; i < chunk.end; ++i) {
        starts[i - chunk.begin].record(stream_.get());
        enqueueStep(target(), *plan_, *steps[i], prepared.regions, prepared.schedule->mode);
        ends[i - chunk.begin].record(stream_.get());
      }
      gate.open();
      synchronize(where);
      for (size_t i = chunk.begin; i < chunk.end; ++i)
        sum += ends[i - chunk.begin].millisecondsSince(starts[i - chunk.begin]);
    }
    sums.push_back(sum);
  }
  return sums;
}

RunTimings GpuBackend::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                            const TimingOptions &options) {
  DeviceScope scope(*driver_);
  const Prepared prepared = prepare(batch);
  for (int i = 0; i < options.warmup; ++i)
    run(prepared, inputs, outputs, nullptr);

  RunEvents events(*driver_);
  std::vector<double> runs, executions;
  for (int i = 0; i < options.iterations; ++i) {
    run(prepared, inputs, outputs, &events);
    runs.push_back(events.end.millisecondsSince(events.start));
    executions.push_back(events.executeEnd.millisecondsSince(events.executeStart));
  }

  RunTimings timings;
  timings.mode = describeRunMode(prepared.schedule->mode);
  timings.run = summarizeTimings(std::move(runs));
  timings.execute = summarizeTimings(std::move(executions));
  if (options.deviceSteps) {
    // After the timed runs, which the caller's outputs come from: the steps
    // run alone may read arena bytes a later kernel has reused, which costs
    // the same time but leaves meaningless values behind.
    timings.deviceSteps = summarizeTimings(timeDeviceSteps(prepared, options.iterations));
    timings.deviceStepsHeld = gateHolds();
    for (const Segment &segment : prepared.schedule->segments)
      timings.deviceStepCount += segment.steps.size();
  }
  return timings;
}

} // namespace fusec::runtime::gpu
