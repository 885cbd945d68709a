//===- Schedule.cpp - What a GPU run does, as plain data --------------------===//

#include "runtime/gpu/Schedule.h"

#include "runtime/Error.h"
#include "support/SplitK.h"

#include <algorithm>
#include <limits>

namespace fusec::runtime {

namespace {

/// CUDA's grid limits: x up to 2^31 - 1, y and z up to 65535.
constexpr int64_t kMaxGrid[3] = {std::numeric_limits<int32_t>::max(), 65535, 65535};

std::string kernelWhere(const KernelDesc &kernel) { return "kernel '" + kernel.name + "'"; }

IoTransfer ioTransfer(const Plan &plan, const WorkspaceLayout &layout, size_t index, const TensorDesc &tensor,
                      const RunMode &mode) {
  IoTransfer transfer;
  transfer.index = index;
  transfer.device = bufferAddress(plan, layout, tensor.buffer, mode.runBatch);
  const Shape &shape = tensor.shape;
  const uint64_t elementBytes = elementSize(tensor.dtype);
  auto batchDim = std::find(shape.begin(), shape.end(), plan::kBatchDim);
  if (batchDim == shape.end()) {
    transfer.hostBlockBytes = transfer.deviceBlockBytes = static_cast<uint64_t>(numElements(shape)) * elementBytes;
    return transfer;
  }
  const Shape outer(shape.begin(), batchDim);
  const Shape inner(batchDim + 1, shape.end());
  const uint64_t rowBytes = static_cast<uint64_t>(numElements(inner)) * elementBytes;
  transfer.blocks = static_cast<uint64_t>(numElements(outer));
  transfer.hostBlockBytes = rowBytes * static_cast<uint64_t>(mode.batch);
  transfer.deviceBlockBytes = rowBytes * static_cast<uint64_t>(mode.runBatch);
  return transfer;
}

LaunchStep launchStep(const Plan &plan, const WorkspaceLayout &layout, size_t index, const RunMode &mode,
                      size_t variant) {
  const KernelDesc &kernel = plan.kernels()[index];
  if (!kernel.launch)
    throw Error(kernelWhere(kernel) + " (kind '" + kernel.kind +
                "') has no launch geometry; compile the plan for a GPU "
                "(fusec --target=sm_XX) to run it on CUDA");
  LaunchStep step;
  step.kernel = index;
  for (size_t buffer : kernel.inputs)
    step.args.push_back(bufferAddress(plan, layout, buffer, mode.runBatch));
  for (size_t buffer : kernel.outputs)
    step.args.push_back(bufferAddress(plan, layout, buffer, mode.runBatch));
  step.batch = static_cast<int32_t>(mode.runBatch);
  step.splitPartials = DeviceAddress{Region::Workspace, layout.splitPartialsOffset};
  step.splitCounters = DeviceAddress{Region::Workspace, layout.splitCountersOffset};
  selectVariant(plan, step, variant, layout.smCount);
  return step;
}

CopyStep copyStep(const Plan &plan, const WorkspaceLayout &layout, size_t index, const RunMode &mode) {
  // The verifier guarantees one input and one output of the same shape.
  const KernelDesc &kernel = plan.kernels()[index];
  CopyStep step;
  step.kernel = index;
  step.source = bufferAddress(plan, layout, kernel.inputs[0], mode.runBatch);
  step.destination = bufferAddress(plan, layout, kernel.outputs[0], mode.runBatch);
  step.bytes = static_cast<uint64_t>(plan.buffers()[kernel.outputs[0]].byteSize().at(mode.runBatch));
  return step;
}

/// Stages every non-weight buffer the step reads or writes, once per buffer,
/// in host scratch memory starting at offset 0.
HostStep hostStep(const Plan &plan, const WorkspaceLayout &layout, size_t index, const RunMode &mode) {
  const KernelDesc &kernel = plan.kernels()[index];
  HostStep step;
  step.kernel = index;
  uint64_t scratchEnd = 0;
  auto stage = [&](size_t id) -> HostBuffer & {
    for (HostBuffer &staged : step.buffers)
      if (staged.buffer == id)
        return staged;
    HostBuffer staged;
    staged.buffer = id;
    staged.device = bufferAddress(plan, layout, id, mode.runBatch);
    staged.bytes = static_cast<uint64_t>(plan.buffers()[id].byteSize().at(mode.runBatch));
    staged.hostOffset = scratchEnd;
    scratchEnd = plan::alignTo(scratchEnd + staged.bytes, plan::kBufferAlignment);
    step.buffers.push_back(staged);
    return step.buffers.back();
  };
  for (size_t id : kernel.inputs)
    if (plan.buffers()[id].kind != BufferKind::Weight)
      stage(id).download = true;
  for (size_t id : kernel.outputs)
    stage(id).upload = true;
  return step;
}

uint64_t scratchBytes(const HostStep &step) {
  uint64_t end = 0;
  for (const HostBuffer &buffer : step.buffers)
    end = std::max(end, buffer.hostOffset + buffer.bytes);
  return end;
}

/// The scratch the split-capable kernel variants of `plan` need on a GPU of
/// `smCount` SMs at any batch (the most any one of them needs: kernels run
/// one at a time). A launch splits only while its tiles x slices fit in one
/// block per SM, so this does not grow with the batch.
struct SplitScratch {
  uint64_t partialBytes = 0;
  uint64_t counterBytes = 0;
};

SplitScratch splitScratch(const Plan &plan, int64_t smCount) {
  SplitScratch scratch;
  if (smCount < 2)
    return scratch;
  for (const KernelDesc &kernel : plan.kernels()) {
    if (!kernel.launch)
      continue;
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
      if (kernel.libraryOf(variant))
        continue;
      const LaunchDesc &launch = kernel.launchOf(variant);
      if (!launch.isSplit())
        continue;
      // splitKSlices splits only tiles x slices <= smCount blocks, at most
      // smCount / 2 tiles; partial floats are verified below 2^20.
      scratch.partialBytes =
          std::max(scratch.partialBytes,
                   static_cast<uint64_t>(smCount) * static_cast<uint64_t>(launch.splitPartialFloats) * sizeof(float));
      scratch.counterBytes = std::max(scratch.counterBytes, static_cast<uint64_t>(smCount / 2) * sizeof(uint32_t));
    }
  }
  return scratch;
}

} // namespace

std::vector<int64_t> batchBuckets(const Plan &plan) {
  std::vector<int64_t> buckets = plan.manifest().batchBuckets;
  if (buckets.empty())
    return kDefaultBatchBuckets;
  std::sort(buckets.begin(), buckets.end());
  buckets.erase(std::unique(buckets.begin(), buckets.end()), buckets.end());
  return buckets;
}

bool RunMode::operator==(const RunMode &other) const {
  return batch == other.batch && runBatch == other.runBatch && graphed == other.graphed;
}

RunMode chooseRunMode(const std::vector<int64_t> &buckets, int64_t batch, bool useGraphs) {
  if (useGraphs)
    for (int64_t bucket : buckets)
      if (bucket >= batch)
        return RunMode{batch, bucket, true};
  return RunMode{batch, batch, false};
}

std::string describeRunMode(const RunMode &mode) {
  if (mode.graphed)
    return "bucket " + std::to_string(mode.runBatch) + ", graph";
  return "batch " + std::to_string(mode.runBatch) + ", no graph";
}

bool Dim3::operator==(const Dim3 &other) const { return x == other.x && y == other.y && z == other.z; }

bool DeviceAddress::operator==(const DeviceAddress &other) const {
  return region == other.region && offset == other.offset;
}

Dim3 gridAt(const KernelDesc &kernel, int64_t batch, size_t variant) {
  static const char *const kAxes[3] = {"x", "y", "z"};
  uint32_t dims[3];
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t dim = kernel.launchOf(variant).grid[axis].at(batch);
    if (dim > kMaxGrid[axis])
      throw Error(kernelWhere(kernel) + " needs a grid " + kAxes[axis] + " dimension of " + std::to_string(dim) +
                  " at batch " + std::to_string(batch) + ", above CUDA's limit of " + std::to_string(kMaxGrid[axis]));
    dims[axis] = static_cast<uint32_t>(dim);
  }
  return Dim3{dims[0], dims[1], dims[2]};
}

Dim3 blockOf(const KernelDesc &kernel, size_t variant) {
  // The verifier bounded every block dimension by 1024.
  const auto &block = kernel.launchOf(variant).block;
  return Dim3{static_cast<uint32_t>(block[0]), static_cast<uint32_t>(block[1]), static_cast<uint32_t>(block[2])};
}

void selectVariant(const Plan &plan, LaunchStep &step, size_t variant, int64_t smCount) {
  const KernelDesc &kernel = plan.kernels()[step.kernel];
  if (variant >= kernel.variantCount())
    throw Error("internal error: " + kernelWhere(kernel) + " has no variant " + std::to_string(variant));
  step.variant = variant;
  if (kernel.libraryOf(variant)) {
    // The library launches its own kernels: the step has only its buffers.
    step.grid = step.block = Dim3{};
    step.sharedBytes = 0;
    step.split = false;
    step.arguments.clear();
    step.tensorMaps.clear();
    return;
  }
  step.grid = gridAt(kernel, step.batch, variant);
  step.block = blockOf(kernel, variant);
  // Verified <= 227 KiB.
  step.sharedBytes = static_cast<uint32_t>(kernel.launchOf(variant).sharedBytes);
  const LaunchDesc &launch = kernel.launchOf(variant);
  step.split = launch.isSplit();
  step.arguments = launch.arguments;
  step.tensorMaps = launch.tensorMaps;
  if (step.split) // the plan's grid z is 1 (verified): the slices go there
    step.grid.z = static_cast<uint32_t>(
        splitKSlices(int64_t(step.grid.x) * step.grid.y, launch.splitKTiles, launch.splitMaxSlices, smCount));
}

WorkspaceLayout layoutWorkspace(const Plan &plan, int64_t capacityBatch, int64_t smCount) {
  WorkspaceLayout layout;
  layout.capacityBatch = capacityBatch;
  layout.smCount = smCount;
  layout.ioOffsets.assign(plan.buffers().size(), 0);
  uint64_t end = static_cast<uint64_t>(plan.arena().size.at(capacityBatch));
  for (const BufferDesc &buffer : plan.buffers()) {
    if (buffer.kind != BufferKind::Input && buffer.kind != BufferKind::Output)
      continue;
    layout.ioOffsets[buffer.id] = plan::alignTo(end, kWorkspaceAlignment);
    end = layout.ioOffsets[buffer.id] + static_cast<uint64_t>(buffer.byteSize().at(capacityBatch));
  }
  const SplitScratch scratch = splitScratch(plan, smCount);
  if (scratch.partialBytes > 0) {
    layout.splitPartialsOffset = plan::alignTo(end, kWorkspaceAlignment);
    layout.splitCountersOffset = plan::alignTo(layout.splitPartialsOffset + scratch.partialBytes, kWorkspaceAlignment);
    layout.splitCountersBytes = scratch.counterBytes;
    end = layout.splitCountersOffset + scratch.counterBytes;
  }
  layout.bytes = end;
  return layout;
}

DeviceAddress bufferAddress(const Plan &plan, const WorkspaceLayout &layout, size_t id, int64_t runBatch) {
  const BufferDesc &buffer = plan.buffers()[id];
  switch (buffer.kind) {
  case BufferKind::Weight:
    return DeviceAddress{Region::Weights, buffer.weightOffset};
  case BufferKind::Arena:
    return DeviceAddress{Region::Workspace, static_cast<uint64_t>(buffer.arenaOffset.at(runBatch))};
  case BufferKind::Input:
  case BufferKind::Output:
    break;
  }
  return DeviceAddress{Region::Workspace, layout.ioOffsets[id]};
}

Schedule buildSchedule(const Plan &plan, const WorkspaceLayout &layout, const RunMode &mode,
                       const VariantChoice &variants) {
  if (mode.runBatch > layout.capacityBatch)
    throw Error("internal error: a run at batch " + std::to_string(mode.runBatch) +
                " does not fit a workspace for batch " + std::to_string(layout.capacityBatch));
  if (mode.runBatch > std::numeric_limits<int32_t>::max())
    throw Error("batch " + std::to_string(mode.runBatch) + " is too large for a CUDA kernel's int batch parameter");

  Schedule schedule;
  schedule.mode = mode;
  for (size_t i = 0; i < plan.inputs().size(); ++i)
    schedule.inputs.push_back(ioTransfer(plan, layout, i, plan.inputs()[i], mode));
  for (size_t i = 0; i < plan.outputs().size(); ++i)
    schedule.outputs.push_back(ioTransfer(plan, layout, i, plan.outputs()[i], mode));

  schedule.segments.emplace_back();
  for (size_t k = 0; k < plan.kernels().size(); ++k) {
    const KernelDesc &kernel = plan.kernels()[k];
    if (kernel.isHostStep()) {
      schedule.hostSteps.push_back(hostStep(plan, layout, k, mode));
      schedule.hostScratchBytes = std::max(schedule.hostScratchBytes, scratchBytes(schedule.hostSteps.back()));
      schedule.segments.emplace_back();
    } else if (kernel.isCopy()) {
      schedule.segments.back().steps.push_back(copyStep(plan, layout, k, mode));
    } else {
      schedule.segments.back().steps.push_back(
          launchStep(plan, layout, k, mode, k < variants.size() ? variants[k] : 0));
    }
  }
  return schedule;
}

} // namespace fusec::runtime
