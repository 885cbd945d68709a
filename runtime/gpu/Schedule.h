//===- Schedule.h - What a GPU run does, as plain data ----------------------===//
//
// Everything the CUDA backend needs to know about one run (which kernels,
// with which grid and block, on which device addresses, which copies, where
// the host steps split the kernels into separately captured segments) is
// computed here from the plan alone, before any CUDA call. The CUDA layer
// only turns a Schedule into graph nodes or launches, so all of the
// bookkeeping is unit-tested on machines without a GPU.
//
// Device memory is two regions: the weights (the plan's weights section,
// uploaded once, same offsets) and one workspace holding the arena followed
// by a static buffer for every graph input and output, sized for a capacity
// batch (the largest bucket).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_SCHEDULE_H
#define FUSEC_RUNTIME_GPU_SCHEDULE_H

#include "runtime/plan/Plan.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace fusec::runtime {

/// The buckets used when a plan lists none.
inline const std::vector<int64_t> kDefaultBatchBuckets = {1, 2, 4, 8, 16};

/// The plan's batch buckets, sorted and without duplicates; the defaults if
/// it lists none.
std::vector<int64_t> batchBuckets(const Plan &plan);

/// How a run at `batch` executes.
struct RunMode {
  /// The batch the caller asked for.
  int64_t batch = 1;
  /// The batch the kernels run at: the smallest bucket >= batch when graphed
  /// (the rows in between are zero padding), else `batch` itself.
  int64_t runBatch = 1;
  /// Replays the bucket's CUDA graphs; false means plain launches.
  bool graphed = false;

  bool operator==(const RunMode &other) const;
};

/// Graphed at the smallest bucket >= batch; plain launches at `batch` when
/// graphs are off or the batch is above the largest bucket.
RunMode chooseRunMode(const std::vector<int64_t> &buckets, int64_t batch, bool useGraphs);

/// "bucket 4, graph", "batch 40, no graph": how a run is described in
/// messages and timing output.
std::string describeRunMode(const RunMode &mode);

struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  bool operator==(const Dim3 &other) const;
};

/// A device kernel's grid at `batch` (for its variant `variant`). Throws
/// Error naming the kernel if a dimension exceeds CUDA's limits (x < 2^31,
/// y and z <= 65535).
Dim3 gridAt(const KernelDesc &kernel, int64_t batch, size_t variant = 0);
/// A device kernel's block (for its variant `variant`).
Dim3 blockOf(const KernelDesc &kernel, size_t variant = 0);

enum class Region { Weights, Workspace };

struct DeviceAddress {
  Region region = Region::Workspace;
  uint64_t offset = 0;

  bool operator==(const DeviceAddress &other) const;
};

/// Static input and output buffers start at multiples of this, the
/// alignment cuMemAlloc gives, so kernels may use vector loads on them.
inline constexpr uint64_t kWorkspaceAlignment = 256;

/// The workspace for runs at batches up to `capacityBatch`: the arena at
/// offset 0, then every input and output buffer.
struct WorkspaceLayout {
  int64_t capacityBatch = 1;
  uint64_t bytes = 0;
  /// Offsets of input and output buffers, indexed by buffer id (0 for
  /// other kinds).
  std::vector<uint64_t> ioOffsets;
  /// The device's SMs, which the split-K rule splits for (0: none known;
  /// split-capable kernels then run unsplit).
  int64_t smCount = 0;
  /// Split-K kernels' scratch, shared by all of them (kernels run one after
  /// another): partial sums, and tile counters that must be zeroed when the
  /// workspace is allocated (the kernels leave them zero). 0 bytes when no
  /// kernel variant splits.
  uint64_t splitPartialsOffset = 0;
  uint64_t splitCountersOffset = 0;
  uint64_t splitCountersBytes = 0;
};

/// `smCount`: the device's SMs (0: split-capable kernels run unsplit).
WorkspaceLayout layoutWorkspace(const Plan &plan, int64_t capacityBatch, int64_t smCount = 0);

/// Where buffer `id` lives when kernels run at `runBatch` (<= the layout's
/// capacity).
DeviceAddress bufferAddress(const Plan &plan, const WorkspaceLayout &layout, size_t id, int64_t runBatch);

/// A device kernel launch. `args` are the kernel's input buffers, then its
/// output buffers; a split-K variant (`split`) takes `splitPartials` and
/// `splitCounters` after them; the kernel's last parameter is `batch`.
struct LaunchStep {
  size_t kernel = 0;
  /// Which of the kernel's compiled forms runs (KernelDesc::variants; 0:
  /// the compiler's choice). grid, block and sharedBytes are its.
  size_t variant = 0;
  Dim3 grid;
  Dim3 block;
  /// Dynamic shared memory per block.
  uint32_t sharedBytes = 0;
  std::vector<DeviceAddress> args;
  int32_t batch = 1;
  /// Whether the variant that runs is split-capable: it then takes the two
  /// scratch pointers after `args` (the layout's, for every variant), and
  /// grid.z is its k-slices at this batch (1: unsplit).
  bool split = false;
  DeviceAddress splitPartials;
  DeviceAddress splitCounters;
  /// The variant's scalar arguments (LaunchDesc::arguments), passed after
  /// `batch` as one parameter when there are any.
  std::vector<uint32_t> arguments;
  /// The variant's TMA descriptors (LaunchDesc::tensorMaps): the driver
  /// encodes each for its buffer in `args` at `batch` and passes them last.
  std::vector<TensorMapDesc> tensorMaps;

  /// The pointer parameters the variant takes: args, then the split's two.
  size_t pointerCount() const { return args.size() + (split ? 2 : 0); }
};

/// A "copy" kernel: a device-to-device memcpy.
struct CopyStep {
  size_t kernel = 0;
  DeviceAddress source;
  DeviceAddress destination;
  uint64_t bytes = 0;
};

using DeviceStep = std::variant<LaunchStep, CopyStep>;

/// Device steps that run back to back: one CUDA graph when graphed.
struct Segment {
  std::vector<DeviceStep> steps;
};

/// A buffer a host step touches, staged in host scratch memory at
/// `hostOffset`. Weights are not staged: the host reads them from the plan.
struct HostBuffer {
  size_t buffer = 0;
  DeviceAddress device;
  uint64_t bytes = 0;
  uint64_t hostOffset = 0;
  /// Read by the step: copied from the device before it runs.
  bool download = false;
  /// Written by the step: copied to the device after it runs.
  bool upload = false;
};

/// A "host" kernel, run on the CPU at the run batch.
struct HostStep {
  size_t kernel = 0;
  std::vector<HostBuffer> buffers;
};

/// One graph input or output moved between caller memory (at the requested
/// batch) and its static device buffer (at the run batch). A tensor is
/// `blocks` blocks (the dimensions before the batch dimension); each block
/// holds hostBlockBytes in caller memory and deviceBlockBytes on the device,
/// the difference being padding rows, zeroed before inputs are used.
struct IoTransfer {
  size_t index = 0;
  DeviceAddress device;
  uint64_t blocks = 1;
  uint64_t hostBlockBytes = 0;
  uint64_t deviceBlockBytes = 0;
};

struct Schedule {
  RunMode mode;
  /// One per plan input / output, in plan order.
  std::vector<IoTransfer> inputs;
  std::vector<IoTransfer> outputs;
  /// segments.size() == hostSteps.size() + 1: hostSteps[i] runs after
  /// segments[i]. A segment may be empty (host steps back to back, or one at
  /// either end).
  std::vector<Segment> segments;
  std::vector<HostStep> hostSteps;
  /// Host scratch memory the host steps need (the largest step's).
  uint64_t hostScratchBytes = 0;
};

/// Which variant of each kernel runs, by kernel index; kernels past its end
/// (all of them when it is empty) run variant 0.
using VariantChoice = std::vector<size_t>;

/// Makes `step` launch its kernel's variant `variant` (< variantCount()):
/// its grid at step.batch (with the k-slices of a split-capable variant on a
/// GPU of `smCount` SMs in grid.z), its block and shared memory.
void selectVariant(const Plan &plan, LaunchStep &step, size_t variant, int64_t smCount);

/// The schedule of a run in `mode` on a workspace laid out by `layout`
/// (whose capacity must be >= mode.runBatch), launching the variants
/// `variants` names. Throws Error if a device kernel has no launch geometry
/// or a grid exceeds CUDA's limits.
Schedule buildSchedule(const Plan &plan, const WorkspaceLayout &layout, const RunMode &mode,
                       const VariantChoice &variants = {});

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_GPU_SCHEDULE_H
