//===- CudaBackend.cpp - Run a plan on an NVIDIA GPU through the driver API -===//

#include "runtime/cuda/CudaBackend.h"

#include "runtime/cuda/Event.h"
#include "runtime/cuda/HostSteps.h"
#include "runtime/cuda/StreamGate.h"

#include <algorithm>
#include <deque>

namespace fusec::runtime::cuda {

namespace {

/// Refuses a plan without GPU kernels before touching the driver, then
/// loads it.
std::shared_ptr<const DriverApi> loadDriverFor(const Plan &plan, const DeviceOptions &options) {
  if (const KernelDesc *kernel = firstKernelWithoutImage(plan))
    throw Error("cannot run plan '" + plan.sourceName() + "' on CUDA: kernel '" + kernel->name +
                "' has no GPU image (the plan was compiled for target '" + plan.manifest().target +
                "'; compile it with fusec --target=sm_XX)");
  return DriverApi::load(options.cudaDriver);
}

std::string workspaceName(int64_t batch) { return "the workspace for batch " + std::to_string(batch); }

} // namespace

const KernelDesc *firstKernelWithoutImage(const Plan &plan) {
  for (const KernelDesc &kernel : plan.kernels())
    if (!kernel.isCopy() && !kernel.isHostStep() && !kernel.image)
      return &kernel;
  return nullptr;
}

struct CudaBackend::RunEvents {
  explicit RunEvents(const CudaContext &context)
      : start(context), executeStart(context), executeEnd(context), end(context) {}

  Event start, executeStart, executeEnd, end;
};

CudaBackend::CudaBackend(std::shared_ptr<const Plan> plan, const DeviceOptions &options)
    : plan_(std::move(plan)), options_(options), buckets_(batchBuckets(*plan_)),
      context_(loadDriverFor(*plan_, options_), options_.cudaDevice), constructing_(std::in_place, context_),
      modules_(context_, *plan_), weights_(DeviceWeights::acquire(context_, plan_)),
      layout_(layoutWorkspace(*plan_, buckets_.back())),
      workspace_(context_, layout_.bytes, workspaceName(buckets_.back())), graphs_(context_), staging_(context_) {
  if (options_.useGraphs && options_.prebuildGraphs)
    for (int64_t bucket : buckets_)
      prepare(bucket);
  constructing_.reset();
}

CudaBackend::~CudaBackend() {
  // The members free device objects next; they belong to this context,
  // which may not be current on the destroying thread. constructing_ is
  // destroyed after them and puts the caller's context back.
  try {
    constructing_.emplace(context_);
  } catch (const Error &) { // NOLINT(bugprone-empty-catch)
    // Nothing to report to: teardown goes on regardless (as in ~CudaContext).
  }
}

CudaBackend::Prepared CudaBackend::prepare(int64_t batch) {
  const RunMode mode = chooseRunMode(buckets_, batch, options_.useGraphs);
  if (mode.runBatch > layout_.capacityBatch) {
    // Above the largest bucket (never graphed): a workspace of its own,
    // replaced by a larger one when needed. The old one goes first, so the
    // two never hold device memory together.
    if (mode.runBatch > overflowLayout_.capacityBatch || !overflow_.bytes()) {
      // A run enqueued on device buffers may still use the old one.
      context_.synchronize("before growing the workspace for batches above the largest bucket");
      overflowSchedule_.reset();
      overflow_ = DeviceBuffer();
      overflowLayout_ = layoutWorkspace(*plan_, mode.runBatch);
      overflow_ = DeviceBuffer(context_, overflowLayout_.bytes, workspaceName(mode.runBatch));
    }
    if (!overflowSchedule_ || !(overflowSchedule_->mode == mode))
      overflowSchedule_ = buildSchedule(*plan_, overflowLayout_, mode);
    return Prepared{&*overflowSchedule_, DeviceRegions{weights_->address(), overflow_.address()}, nullptr};
  }

  // Keyed by the requested batch: batches sharing a bucket share its graphs
  // but copy different numbers of rows in and out.
  auto cached = schedules_.find(batch);
  if (cached == schedules_.end())
    cached = schedules_.emplace(batch, buildSchedule(*plan_, layout_, mode)).first;
  Prepared prepared{&cached->second, DeviceRegions{weights_->address(), workspace_.address()}, nullptr};
  if (mode.graphed)
    prepared.graphs = &graphs_.graphs(cached->second, [&](const Segment &segment) {
      enqueueSegment(context_, modules_, *plan_, segment, prepared.regions, mode);
    });
  return prepared;
}

void CudaBackend::reserveHostScratch(const Schedule &schedule) {
  if (hostScratch_.bytes() >= schedule.hostScratchBytes)
    return;
  // An earlier run's uploads from the scratch memory may still be queued.
  context_.synchronize("before growing the host steps' buffers");
  hostScratch_ = PinnedBuffer(); // the old one goes first
  hostScratch_ = PinnedBuffer(context_, static_cast<size_t>(schedule.hostScratchBytes), "the host steps' buffers");
}

void CudaBackend::enqueueExecution(const Prepared &prepared) {
  const Schedule &schedule = *prepared.schedule;
  const DriverApi &cu = context_.api();
  for (size_t i = 0; i < schedule.segments.size(); ++i) {
    if (!prepared.graphs)
      enqueueSegment(context_, modules_, *plan_, schedule.segments[i], prepared.regions, schedule.mode);
    else if (CUgraphExec exec = (*prepared.graphs)[i])
      if (CUresult result = cu.graphLaunch(exec, context_.stream()); result != kCudaSuccess)
        cu.fail(result, "cuGraphLaunch",
                "for segment " + std::to_string(i) + " (" + describeRunMode(schedule.mode) + ")");
    if (i < schedule.hostSteps.size())
      runHostStep(context_, *plan_, schedule.hostSteps[i], prepared.regions, schedule.mode, hostScratch_.data());
  }
}

void CudaBackend::run(const Prepared &prepared, const std::vector<const void *> &inputs,
                      const std::vector<void *> &outputs, RunEvents *events) {
  const Schedule &schedule = *prepared.schedule;
  const DriverApi &cu = context_.api();
  reserveHostScratch(schedule);

  const std::vector<const void *> stagedInputs = staging_.stageInputs(schedule, inputs);
  const std::vector<void *> stagedOutputs = staging_.outputSlots(schedule);
  if (events)
    events->start.record();
  enqueueInputs(context_, *plan_, schedule, prepared.regions, stagedInputs);
  if (events)
    events->executeStart.record();
  enqueueExecution(prepared);
  if (events)
    events->executeEnd.record();
  enqueueOutputs(context_, *plan_, schedule, prepared.regions, stagedOutputs);
  if (events)
    events->end.record();
  // Also where a kernel's asynchronous failure (a bad address, say) shows.
  if (CUresult result = cu.streamSynchronize(context_.stream()); result != kCudaSuccess)
    cu.fail(result, "cuStreamSynchronize", "at the end of a run (" + describeRunMode(schedule.mode) + ")");
  staging_.unstageOutputs(schedule, outputs);
}

void CudaBackend::execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) {
  ScopedCurrentContext current(context_);
  run(prepare(batch), inputs, outputs, nullptr);
}

void CudaBackend::executeOnDevice(int64_t batch, const std::vector<const void *> &inputs,
                                  const std::vector<void *> &outputs, void *stream) {
  ScopedCurrentContext current(context_);
  const Prepared prepared = prepare(batch);
  const Schedule &schedule = *prepared.schedule;
  auto *caller = static_cast<CUstream>(stream);
  if (caller) {
    if (!callerReady_) {
      callerReady_.emplace(context_);
      runDone_.emplace(context_);
    }
    callerReady_->recordOn(caller);
    callerReady_->makeWait(context_.stream());
  }
  reserveHostScratch(schedule);
  enqueueInputs(context_, *plan_, schedule, prepared.regions, inputs, CallerMemory::Device);
  enqueueExecution(prepared);
  enqueueOutputs(context_, *plan_, schedule, prepared.regions, outputs, CallerMemory::Device);
  if (!caller) {
    context_.synchronize("at the end of a run on device buffers (" + describeRunMode(schedule.mode) + ")");
    return;
  }
  runDone_->record();
  runDone_->makeWait(caller);
}

std::vector<double> CudaBackend::timeDeviceSteps(const Prepared &prepared, int iterations) {
  std::vector<const DeviceStep *> steps;
  for (const Segment &segment : prepared.schedule->segments)
    for (const DeviceStep &step : segment.steps)
      steps.push_back(&step);
  const std::vector<StepChunk> chunks = chunkSteps(steps.size(), kMaxStepsBehindGate);
  std::deque<Event> starts, ends;
  for (size_t i = 0; i < std::min(steps.size(), kMaxStepsBehindGate); ++i) {
    starts.emplace_back(context_);
    ends.emplace_back(context_);
  }
  StreamGate gate(context_);
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
        starts[i - chunk.begin].record();
        enqueueStep(context_, modules_, *plan_, *steps[i], prepared.regions, prepared.schedule->mode);
        ends[i - chunk.begin].record();
      }
      gate.open();
      context_.synchronize(where);
      for (size_t i = chunk.begin; i < chunk.end; ++i)
        sum += ends[i - chunk.begin].millisecondsSince(starts[i - chunk.begin]);
    }
    sums.push_back(sum);
  }
  return sums;
}

RunTimings CudaBackend::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                             const TimingOptions &options) {
  ScopedCurrentContext current(context_);
  const Prepared prepared = prepare(batch);
  for (int i = 0; i < options.warmup; ++i)
    run(prepared, inputs, outputs, nullptr);

  RunEvents events(context_);
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
    for (const Segment &segment : prepared.schedule->segments)
      timings.deviceStepCount += segment.steps.size();
  }
  return timings;
}

} // namespace fusec::runtime::cuda
