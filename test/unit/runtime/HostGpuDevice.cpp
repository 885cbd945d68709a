//===- HostGpuDevice.cpp - A CPU-hosted implementation of gpu::GpuDevice ----===//

#include "HostGpuDevice.h"

#include "HostLibraryCalls.h"

#include "runtime/BackendRegistry.h"
#include "runtime/cpu/KernelInterpreter.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace fusec::test {

using namespace fusec::runtime;
using gpu::DevicePtr;
using gpu::Where;

namespace {

struct StreamState;

/// One command on a stream: work, or a wait that blocks the stream until a
/// point of another stream (an event) or a host flag is reached.
struct Command {
  std::function<void()> work;
  StreamState *waitStream = nullptr;
  size_t waitPosition = 0;
  const volatile uint32_t *waitFlag = nullptr;
  uint32_t waitValue = 0;
};

struct GraphState {
  std::vector<Command> commands;
};

struct StreamState {
  std::vector<Command> commands;
  size_t executed = 0;
  /// The graph being captured, or null.
  std::unique_ptr<GraphState> capture;
};

struct EventState {
  StreamState *stream = nullptr;
  /// The stream's command count when last recorded.
  size_t position = 0;
  /// The virtual time its record executed at; negative before.
  double milliseconds = -1.0;
};

class HostGpuDevice;
thread_local const HostGpuDevice *enteredDevice = nullptr;

class HostKernels;

class HostGpuDevice final : public gpu::GpuDevice {
public:
  explicit HostGpuDevice(HostGpuOptions options) : options_(std::move(options)) {
    if (!options_.runner)
      options_.runner = interpretingKernelRunner();
  }

  ~HostGpuDevice() override {
    for (auto &[address, bytes] : device_)
      std::free(reinterpret_cast<void *>(address));
    for (auto &[address, bytes] : pinned_)
      std::free(reinterpret_cast<void *>(address));
  }

  std::string name() const override { return options_.name; }
  std::string describeDevice() const override { return "a CPU-hosted GPU double"; }
  int multiprocessorCount() const override { return options_.multiprocessors; }

  void *enter() const override {
    const HostGpuDevice *saved = enteredDevice;
    enteredDevice = this;
    return const_cast<HostGpuDevice *>(saved);
  }
  void leave(void *saved) const noexcept override { enteredDevice = static_cast<const HostGpuDevice *>(saved); }

  DevicePtr allocate(uint64_t bytes, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("allocate", where);
    if (bytes == 0)
      throw Error("host GPU driver: a 0-byte allocation " + where.str());
    const auto address = reinterpret_cast<DevicePtr>(allocateFilled(bytes));
    device_[address] = bytes;
    return address;
  }

  void free(DevicePtr address) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    noteEntered();
    if (device_.erase(address))
      std::free(reinterpret_cast<void *>(address));
  }

  void *allocateHost(size_t bytes, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("allocateHost", where);
    void *address = allocateFilled(bytes);
    pinned_[reinterpret_cast<uintptr_t>(address)] = bytes;
    return address;
  }

  void freeHost(void *address) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    noteEntered();
    if (pinned_.erase(reinterpret_cast<uintptr_t>(address)))
      std::free(address);
  }

  std::unique_ptr<gpu::DeviceExecutable> loadKernels(const Plan &plan, const DeviceOptions &options) const override;

  gpu::Stream createStream(Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("createStream", where);
    streams_.push_back(std::make_unique<StreamState>());
    return streams_.back().get();
  }

  void destroyStream(gpu::Stream stream) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    noteEntered();
    for (auto it = streams_.begin(); it != streams_.end(); ++it) {
      StreamState *state = it->get();
      if (state != stream)
        continue;
      // As on a GPU, the work already enqueued still completes.
      try {
        drain(*state, "while destroying a stream");
      } catch (const Error &) { // NOLINT(bugprone-empty-catch)
        // Nobody to tell: a destroyed stream's failures are lost on a GPU too.
      }
      for (auto &other : streams_)
        for (Command &command : other->commands)
          if (command.waitStream == state)
            command.waitStream = nullptr;
      for (EventState *event : events_)
        if (event->stream == state)
          event->stream = nullptr;
      streams_.erase(it);
      return;
    }
  }

  void synchronize(gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    StreamState &state = find(stream, where);
    if (state.capture)
      throw Error("host GPU driver: synchronizing a stream that is being captured " + where.str());
    ++counters_.hostSynchronizations;
    drain(state, where);
  }

  bool finished(gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    StreamState &state = find(stream, where);
    if (state.capture)
      throw Error("host GPU driver: querying a stream that is being captured " + where.str());
    return advance(state);
  }

  void copyHostToDevice(DevicePtr destination, const void *source, size_t bytes, gpu::Stream stream,
                        Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("copyHostToDevice", where);
    requireDevice(destination, bytes, "the destination of a host-to-device copy", where);
    enqueue(stream, where, [=] { std::memcpy(reinterpret_cast<void *>(destination), source, bytes); });
  }

  void copyDeviceToHost(void *destination, DevicePtr source, size_t bytes, gpu::Stream stream,
                        Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("copyDeviceToHost", where);
    requireDevice(source, bytes, "the source of a device-to-host copy", where);
    enqueue(stream, where, [=] { std::memcpy(destination, reinterpret_cast<const void *>(source), bytes); });
  }

  void copyDeviceToDevice(DevicePtr destination, DevicePtr source, size_t bytes, gpu::Stream stream,
                          Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("copyDeviceToDevice", where);
    requireDevice(destination, bytes, "the destination of a device-to-device copy", where);
    requireDevice(source, bytes, "the source of a device-to-device copy", where);
    enqueue(stream, where, [=] {
      std::memmove(reinterpret_cast<void *>(destination), reinterpret_cast<const void *>(source), bytes);
    });
  }

  void zero(DevicePtr destination, size_t bytes, gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("zero", where);
    requireDevice(destination, bytes, "the destination of a zeroing", where);
    enqueue(stream, where, [=] { std::memset(reinterpret_cast<void *>(destination), 0, bytes); });
  }

  void waitForHostFlag(gpu::Stream stream, const volatile uint32_t *flag, uint32_t value, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("waitForHostFlag", where);
    if (!pinned_.count(reinterpret_cast<uintptr_t>(flag)))
      throw Error("host GPU driver: a stream waits on a flag outside pinned memory " + where.str());
    Command wait;
    wait.waitFlag = flag;
    wait.waitValue = value;
    enqueueCommand(stream, where, std::move(wait));
  }

  void beginCapture(gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("beginCapture", where);
    StreamState &state = find(stream, where);
    if (state.capture)
      throw Error("host GPU driver: the stream is already being captured " + where.str());
    state.capture = std::make_unique<GraphState>();
  }

  gpu::Graph endCapture(gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    StreamState &state = find(stream, where);
    if (!state.capture)
      throw Error("host GPU driver: ending a capture that never began " + where.str());
    ++counters_.captures;
    ++counters_.liveGraphs;
    return state.capture.release();
  }

  void abandonCapture(gpu::Stream stream) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    for (auto &state : streams_)
      if (state.get() == stream)
        state->capture.reset();
  }

  void launchGraph(gpu::Graph graph, gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("launchGraph", where);
    ++counters_.graphLaunches;
    for (const Command &command : static_cast<const GraphState *>(graph)->commands)
      enqueueCommand(stream, where, command);
  }

  void destroyGraph(gpu::Graph graph) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    noteEntered();
    --counters_.liveGraphs;
    delete static_cast<GraphState *>(graph);
  }

  gpu::Event createEvent(Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("createEvent", where);
    ++counters_.liveEvents;
    auto *event = new EventState();
    events_.insert(event);
    return event;
  }

  void destroyEvent(gpu::Event event) const noexcept override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    noteEntered();
    --counters_.liveEvents;
    events_.erase(static_cast<EventState *>(event));
    delete static_cast<EventState *>(event);
  }

  void recordEvent(gpu::Event event, gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("recordEvent", where);
    auto *state = static_cast<EventState *>(event);
    StreamState &target = find(stream, where);
    if (target.capture)
      throw Error("host GPU driver: the double records no events into graphs " + where.str());
    state->stream = &target;
    state->milliseconds = -1.0;
    enqueue(stream, where, [this, state] { state->milliseconds = clockMs_; });
    state->position = target.commands.size();
  }

  void waitEvent(gpu::Stream stream, gpu::Event event, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    requireEntered("waitEvent", where);
    const auto *state = static_cast<const EventState *>(event);
    if (!state->stream)
      return; // never recorded: nothing to wait for
    Command wait;
    wait.waitStream = state->stream;
    wait.waitPosition = state->position;
    enqueueCommand(stream, where, std::move(wait));
  }

  double elapsedMilliseconds(gpu::Event start, gpu::Event end, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    const auto *from = static_cast<const EventState *>(start);
    const auto *to = static_cast<const EventState *>(end);
    if (from->milliseconds < 0 || to->milliseconds < 0)
      throw Error("host GPU driver: timing an event that has not completed " + where.str());
    return to->milliseconds - from->milliseconds;
  }

  HostGpuCounters counters() const {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    HostGpuCounters counters = counters_;
    counters.liveAllocations = device_.size() + pinned_.size();
    counters.liveStreams = streams_.size();
    return counters;
  }

  void countLaunch() const { ++counters_.kernelLaunches; }
  const HostKernelRunner &runner() const { return *options_.runner; }
  const HostGpuOptions &options() const { return options_; }
  /// The virtual milliseconds a launch of `step` takes beyond the 1 µs
  /// every command takes.
  double extraLaunchMilliseconds(const Plan &plan, const LaunchStep &step) const {
    return options_.launchMicroseconds ? (options_.launchMicroseconds(plan, step) - 1.0) / 1000.0 : 0.0;
  }
  /// Runs under drain(), which holds the mutex.
  void advanceClock(double milliseconds) const { clockMs_ += milliseconds; }

  /// Enqueues `work` on `stream` (or into its capture).
  void enqueue(gpu::Stream stream, Where where, std::function<void()> work) const {
    Command command;
    command.work = std::move(work);
    enqueueCommand(stream, where, std::move(command));
  }

  /// Throws unless [address, address + bytes) lies in one live allocation.
  void requireDevice(DevicePtr address, size_t bytes, const char *what, Where where) const {
    auto it = device_.upper_bound(address);
    if (it != device_.begin()) {
      --it;
      if (address >= it->first && address + bytes <= it->first + it->second)
        return;
    }
    throw Error("host GPU driver: " + std::string(what) + " (" + std::to_string(bytes) +
                " bytes) is not inside one live device allocation " + where.str());
  }

  void requireEntered(const char *call, Where where) const {
    if (enteredDevice != this)
      throw Error(std::string("host GPU driver: ") + call + " called without entering the device " + where.str());
  }

  std::recursive_mutex &mutex() const { return mutex_; }

private:
  void *allocateFilled(size_t bytes) const {
    constexpr size_t kAlignment = 256;
    void *address = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!address)
      throw Error("host GPU driver: out of host memory");
    std::memset(address, options_.fill, bytes);
    return address;
  }

  void noteEntered() const noexcept {
    if (enteredDevice != this)
      ++counters_.callsOutsideDevice;
  }

  StreamState &find(gpu::Stream stream, Where where) const {
    for (auto &state : streams_)
      if (state.get() == stream)
        return *state;
    throw Error("host GPU driver: not a live stream " + where.str());
  }

  void enqueueCommand(gpu::Stream stream, Where where, Command command) const {
    StreamState &state = find(stream, where);
    if (state.capture)
      state.capture->commands.push_back(std::move(command));
    else
      state.commands.push_back(std::move(command));
  }

  static bool runnable(const Command &command) {
    if (command.waitStream && command.waitStream->executed < command.waitPosition)
      return false;
    if (command.waitFlag && *command.waitFlag < command.waitValue)
      return false;
    return true;
  }

  /// Runs pending commands of every stream, one per stream in turn (the
  /// first stream rotating each round), until `target` has none left.
  void drain(StreamState &target, Where where) const {
    if (!advance(target))
      throw Error("host GPU driver: the stream can never finish: it waits on an event or a host flag that "
                  "nothing left to run will reach " +
                  where.str());
  }

  /// drain(), but stops where nothing can move: whether `target` finished.
  bool advance(StreamState &target) const {
    size_t round = 0;
    while (target.executed < target.commands.size()) {
      bool progressed = false;
      const size_t count = streams_.size();
      for (size_t i = 0; i < count; ++i) {
        StreamState &stream = *streams_[(round + i) % count];
        if (stream.executed == stream.commands.size() || !runnable(stream.commands[stream.executed]))
          continue;
        // The command stays in place: events refer to positions.
        const Command &command = stream.commands[stream.executed];
        clockMs_ += 0.001;
        if (command.work)
          command.work();
        ++stream.executed;
        progressed = true;
      }
      if (!progressed)
        return false;
      ++round;
    }
    return true;
  }

  HostGpuOptions options_;
  mutable std::recursive_mutex mutex_;
  mutable std::map<uintptr_t, size_t> device_, pinned_;
  mutable std::vector<std::unique_ptr<StreamState>> streams_;
  mutable std::set<EventState *> events_;
  mutable HostGpuCounters counters_;
  mutable double clockMs_ = 0.0;
};

class HostKernels final : public gpu::DeviceExecutable {
public:
  HostKernels(const HostGpuDevice &driver, const Plan &plan) : driver_(driver), plan_(plan) {
    for (const KernelDesc &kernel : plan.kernels()) {
      if (kernel.isCopy() || kernel.isHostStep())
        continue;
      // The driver takes the PTX format: it needs the image and its entry,
      // though it runs the kernel through its runner.
      const KernelImage *ptx = kernel.findImage(plan::kPtxImageFormat);
      if (!ptx || plan.imageBytes(ptx->range).size == 0)
        throw Error("host GPU driver: kernel '" + kernel.name + "' has no PTX image to load");
    }
  }

  bool runsLibraryVariant(size_t kernel, size_t variant) const override {
    return driver_.options().runsLibraryVariants && plan_.kernels()[kernel].libraryOf(variant);
  }

  void launch(const LaunchStep &step, const DevicePtr *args, gpu::Stream stream, Where where) const override {
    std::lock_guard<std::recursive_mutex> lock(driver_.mutex());
    driver_.requireEntered("launch", where);
    const KernelDesc &kernel = plan_.kernels()[step.kernel];
    std::vector<size_t> ids = kernel.inputs;
    ids.insert(ids.end(), kernel.outputs.begin(), kernel.outputs.end());
    if (ids.size() != step.args.size())
      throw Error("host GPU driver: kernel '" + kernel.name + "' takes " + std::to_string(ids.size()) +
                  " buffers, the launch passes " + std::to_string(step.args.size()) + " " + where.str());
    std::vector<void *> pointers;
    std::vector<size_t> bytes;
    for (size_t i = 0; i < ids.size(); ++i) {
      // A view's rows lie apart in its root's bytes: it spans the gaps.
      const auto size = static_cast<size_t>(plan_.buffers()[ids[i]].spanBytes().at(step.batch));
      driver_.requireDevice(args[i], size, ("argument " + std::to_string(i) + " of a launch").c_str(), where);
      pointers.push_back(reinterpret_cast<void *>(args[i]));
      bytes.push_back(size);
    }
    if (step.variant >= kernel.variantCount())
      throw Error("host GPU driver: kernel '" + kernel.name + "' has no variant " + std::to_string(step.variant) + " " +
                  where.str());
    if (step.split != kernel.launchOf(step.variant).isSplit())
      throw Error("host GPU driver: kernel '" + kernel.name + "' variant " + std::to_string(step.variant) +
                  (step.split ? " does not split K, the launch passes split-K scratch "
                              : " splits K, the launch "
                                "passes no scratch ") +
                  where.str());
    if (step.split && step.grid.z > uint32_t(kernel.launchOf(step.variant).splitMaxSlices))
      throw Error("host GPU driver: kernel '" + kernel.name + "' is launched with " + std::to_string(step.grid.z) +
                  " k-slices, above its " + std::to_string(kernel.launchOf(step.variant).splitMaxSlices) + " " +
                  where.str());
    if (step.split) {
      // The partial sums of every block, and a counter per output tile; an
      // unsplit launch (grid.z 1) touches neither, and its tiles may be more
      // than the scratch holds.
      const bool splits = step.grid.z > 1;
      const size_t tiles = size_t(step.grid.x) * step.grid.y;
      const size_t sizes[2] = {
          tiles * step.grid.z * static_cast<size_t>(kernel.launchOf(step.variant).splitPartialFloats) * sizeof(float),
          tiles * sizeof(uint32_t)};
      for (size_t i = 0; i < 2; ++i) {
        const DevicePtr address = args[ids.size() + i];
        if (splits)
          driver_.requireDevice(address, sizes[i], i == 0 ? "the split-K partial sums" : "the split-K tile counters",
                                where);
        pointers.push_back(reinterpret_cast<void *>(address));
        bytes.push_back(splits ? sizes[i] : 0);
      }
    }
    driver_.countLaunch();
    const HostKernelRunner &runner = driver_.runner();
    const Plan &plan = plan_;
    const HostGpuDevice &driver = driver_;
    const double extra = driver_.extraLaunchMilliseconds(plan, step);
    if (const LibraryCall *call = kernel.libraryOf(step.variant)) {
      if (!runsLibraryVariant(step.kernel, step.variant))
        throw Error("host GPU driver: kernel '" + kernel.name + "' variant " + std::to_string(step.variant) +
                    " is a library variant, which this driver does not run " + where.str());
      std::vector<ElementType> types;
      for (size_t id : ids)
        types.push_back(plan_.buffers()[id].dtype);
      driver_.enqueue(stream, where, [&driver, call, step, pointers, types, extra] {
        driver.advanceClock(extra);
        runLibraryCall(*call, step.batch, pointers, types);
      });
      return;
    }
    driver_.enqueue(stream, where, [&runner, &plan, &driver, step, pointers, bytes, extra] {
      driver.advanceClock(extra);
      runner.run(plan, step, pointers, bytes);
    });
  }

private:
  const HostGpuDevice &driver_;
  const Plan &plan_;
};

std::unique_ptr<gpu::DeviceExecutable> HostGpuDevice::loadKernels(const Plan &plan, const DeviceOptions &) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  requireEntered("loadKernels", "while loading the plan's kernels");
  return std::make_unique<HostKernels>(*this, plan);
}

class InterpretingRunner final : public HostKernelRunner {
public:
  void run(const Plan &plan, const LaunchStep &step, const std::vector<void *> &args,
           const std::vector<size_t> &) const override {
    const KernelDesc &kernel = plan.kernels()[step.kernel];
    std::vector<void *> buffers(plan.buffers().size(), nullptr);
    size_t next = 0;
    for (size_t id : kernel.inputs)
      buffers[id] = args[next++];
    for (size_t id : kernel.outputs)
      buffers[id] = args[next++];
    cpu::interpretKernel(kernel, step.batch, buffers, plan.buffers());
  }
};

} // namespace

std::shared_ptr<const HostKernelRunner> interpretingKernelRunner() { return std::make_shared<InterpretingRunner>(); }

std::shared_ptr<gpu::GpuDevice> makeHostGpuDevice(const HostGpuOptions &options) {
  return std::make_shared<HostGpuDevice>(options);
}

HostGpuCounters hostGpuCounters(const gpu::GpuDevice &driver) {
  return dynamic_cast<const HostGpuDevice &>(driver).counters();
}

std::shared_ptr<gpu::GpuDevice> registerHostGpuBackend() {
  static const std::shared_ptr<gpu::GpuDevice> driver = [] {
    std::shared_ptr<gpu::GpuDevice> shared = makeHostGpuDevice();
    registerGpuBackend("host-gpu", [shared](const DeviceOptions &) { return shared; });
    return shared;
  }();
  return driver;
}

} // namespace fusec::test
