//===- PlanVerifier.cpp - Cross-check a parsed plan manifest ----------------===//

#include "runtime/plan/PlanVerifier.h"

#include "runtime/Error.h"
#include "runtime/plan/LibraryCallVerifier.h"
#include "runtime/plan/OpAttributeVerifier.h"
#include "runtime/plan/OpTypeVerifier.h"
#include "runtime/plan/SliceWrites.h"
#include "runtime/plan/TensorMapVerifier.h"
#include "support/CheckedMath.h"
#include "support/IndexedBatch.h"

#include <algorithm>
#include <set>

namespace fusec::runtime {

namespace {

/// Sizes beyond this (4 PiB) are corrupt data; bounding them keeps the
/// arithmetic below free of overflow.
constexpr int64_t kMaxBytes = kMaxTensorBytes;
/// Split-K bounds: far above what fusec writes (16 slices, 128 x 128 tiles),
/// low enough that the workspace arithmetic cannot overflow.
constexpr int64_t kMaxSplitSlices = 64;
constexpr int64_t kMaxSplitPartialFloats = int64_t{1} << 20;
constexpr int64_t kMaxSplitKTiles = int64_t{1} << 31;
/// Scalar kernel arguments: fusec writes about twenty at most (an attention
/// kernel over rank-4 views: its lengths and each view's offset and
/// strides); a kernel's parameters must fit CUDA's 4 KiB with its pointers.
constexpr size_t kMaxKernelArguments = 64;

std::string formatBytes(const BatchLinear &bytes) {
  return std::to_string(bytes.perBatch) + "*batch + " + std::to_string(bytes.fixed);
}

class ManifestVerifier {
public:
  ManifestVerifier(const PlanManifest &manifest, const SectionSizes &sections, const std::string &sourceName)
      : manifest_(manifest), weightsSectionSize_(sections.weights), imagesSectionSize_(sections.kernelImages),
        sourceName_(sourceName) {}

  void verify() {
    verifyBatchBuckets();
    verifyArenaSize();
    for (const BufferDesc &buffer : manifest_.buffers)
      verifyBuffer(buffer);
    for (const BufferDesc &buffer : manifest_.buffers)
      if (buffer.view && buffer.view->alias)
        verifyAlias(buffer);
    verifyGraphTensors(manifest_.inputs, "input", BufferKind::Input);
    verifyGraphTensors(manifest_.outputs, "output", BufferKind::Output);
    verifyKernels();
    verifyArenaLiveness();
  }

private:
  [[noreturn]] void fail(const std::string &reason) const { throw Error(sourceName_ + ": " + reason); }

  std::string describe(const BufferDesc &buffer) const {
    return std::string(bufferKindName(buffer.kind)) + " buffer " + std::to_string(buffer.id) + " '" + buffer.name + "'";
  }

  /// Dimensions are sizes or kBatchDim. Buffer sizes must be linear in the
  /// batch size, so a buffer shape has at most one batch dimension.
  /// Every tensor also fits kMaxTensorBytes at the largest batch bucket, the
  /// batch the plan was compiled for (larger batches are checked against the
  /// session's batch limit when a run is requested).
  void verifyShape(const Shape &shape, const std::string &what, bool isBuffer) const {
    for (int64_t dim : shape)
      if (dim < plan::kBatchDim)
        fail(what + " has an invalid dimension " + std::to_string(dim) + " in shape " + formatShape(shape));
    if (!checkedTensorBytes(shape, largestBucket()))
      fail(what + " shape " + formatShape(shape) + " is implausibly large (more than " +
           std::to_string(kMaxTensorBytes) + " bytes at batch " + std::to_string(largestBucket()) + ")");
    if (isBuffer && std::count(shape.begin(), shape.end(), plan::kBatchDim) > 1)
      fail(what + " has more than one batch dimension in shape " + formatShape(shape));
  }

  void verifyBatchBuckets() const {
    for (int64_t bucket : manifest_.batchBuckets) {
      if (bucket < 1)
        fail("batch bucket " + std::to_string(bucket) + " is not positive");
      if (bucket > kLargestIndexedBatch)
        fail("batch bucket " + std::to_string(bucket) + " is above " + std::to_string(kLargestIndexedBatch) +
             ", the batch generated kernels index");
    }
  }

  int64_t largestBucket() const {
    if (manifest_.batchBuckets.empty())
      return 1;
    return *std::max_element(manifest_.batchBuckets.begin(), manifest_.batchBuckets.end());
  }

  void verifyArenaSize() const {
    const ArenaDesc &arena = manifest_.arena;
    for (int64_t bytes : {arena.size.perBatch, arena.size.fixed, arena.lowerBound.perBatch, arena.lowerBound.fixed})
      if (bytes < 0 || bytes > kMaxBytes)
        fail("arena sizes must be non-negative and plausible (size " + formatBytes(arena.size) + ", lower bound " +
             formatBytes(arena.lowerBound) + ")");
    const std::optional<int64_t> scaled = checkedMul(arena.size.perBatch, largestBucket());
    if (!scaled || !checkedAdd(*scaled, arena.size.fixed))
      fail("arena size " + formatBytes(arena.size) + " overflows at batch " + std::to_string(largestBucket()));
  }

  void verifyBuffer(const BufferDesc &buffer) const {
    verifyShape(buffer.shape, describe(buffer), /*isBuffer=*/true);
    if (buffer.kind == BufferKind::Weight)
      verifyWeight(buffer);
    // A view lies inside its root (the reader checked it), which is checked.
    if (buffer.kind == BufferKind::Arena && !buffer.view)
      verifyArenaBuffer(buffer);
  }

  void verifyWeight(const BufferDesc &buffer) const {
    if (hasBatchDim(buffer.shape))
      fail(describe(buffer) + " must have a static shape, not " + formatShape(buffer.shape));
    if (!weightsSectionSize_)
      fail(describe(buffer) + " needs a '" + std::string(plan::kWeightsSection) + "' section, but the plan has none");
    const uint64_t bytes = static_cast<uint64_t>(buffer.byteSize().fixed);
    const size_t alignment = elementSize(buffer.dtype);
    if (buffer.weightOffset % alignment != 0)
      fail(describe(buffer) + " offset " + std::to_string(buffer.weightOffset) + " is not a multiple of " +
           std::to_string(alignment) + " bytes (the size of its " + elementTypeName(buffer.dtype) + " elements)");
    if (buffer.weightOffset > *weightsSectionSize_ || bytes > *weightsSectionSize_ - buffer.weightOffset)
      fail(describe(buffer) + " (offset " + std::to_string(buffer.weightOffset) + ", " + std::to_string(bytes) +
           " bytes) runs past the end of the weights section (" + std::to_string(*weightsSectionSize_) + " bytes)");
  }

  /// The offset and the arena size are both linear in the batch size, so the
  /// buffer fits at every batch >= 1 iff it fits at batch 1 and does not grow
  /// faster than the arena.
  void verifyArenaBuffer(const BufferDesc &buffer) const {
    const BatchLinear &offset = buffer.arenaOffset;
    const BatchLinear size = buffer.byteSize();
    const BatchLinear &arena = manifest_.arena.size;
    if (offset.perBatch < 0 || offset.fixed < 0 || offset.perBatch > kMaxBytes || offset.fixed > kMaxBytes ||
        offset.perBatch % plan::kBufferAlignment != 0 || offset.fixed % plan::kBufferAlignment != 0)
      fail(describe(buffer) + " offset " + formatBytes(offset) +
           " must be made of non-negative, plausible multiples of " + std::to_string(plan::kBufferAlignment) +
           " bytes");
    const BatchLinear end{offset.perBatch + size.perBatch, offset.fixed + size.fixed};
    if (end.at(1) > arena.at(1))
      fail(describe(buffer) + " (bytes [" + std::to_string(offset.at(1)) + ", " + std::to_string(end.at(1)) +
           ") at batch 1) lies beyond the arena (" + std::to_string(arena.at(1)) + " bytes at batch 1)");
    if (end.perBatch > arena.perBatch)
      fail(describe(buffer) + " ends at " + formatBytes(end) + " bytes, which outgrows the arena of " +
           formatBytes(arena) + " bytes at larger batch sizes");
  }

  /// An alias holds exactly its root's bytes, at every batch.
  void verifyAlias(const BufferDesc &buffer) const {
    const BufferDesc &root = manifest_.buffers[buffer.view->of];
    const BatchLinear bytes = buffer.byteSize(), rootBytes = root.byteSize();
    if (bytes.perBatch != rootBytes.perBatch || bytes.fixed != rootBytes.fixed)
      fail("alias " + describe(buffer) + " (" + formatShape(buffer.shape) +
           ") does not hold exactly the elements of its root '" + root.name + "' (" + formatShape(root.shape) + ")");
  }

  const BufferDesc &bufferAt(size_t id, const std::string &what) const {
    if (id >= manifest_.buffers.size())
      fail(what + " refers to buffer " + std::to_string(id) + ", which is out of range (the plan has " +
           std::to_string(manifest_.buffers.size()) + " buffers)");
    return manifest_.buffers[id];
  }

  void verifyGraphTensors(const std::vector<TensorDesc> &tensors, const std::string &role, BufferKind kind) const {
    std::set<std::string> names;
    std::set<size_t> bound;
    for (const TensorDesc &tensor : tensors) {
      const std::string what = role + " '" + tensor.name + "'";
      if (!names.insert(tensor.name).second)
        fail("duplicate " + what);
      verifyShape(tensor.shape, what, /*isBuffer=*/false);
      const BufferDesc &buffer = bufferAt(tensor.buffer, what);
      if (buffer.dtype != tensor.dtype)
        fail(what + " has dtype " + elementTypeName(tensor.dtype) + " but " + describe(buffer) + " has dtype " +
             elementTypeName(buffer.dtype));
      if (buffer.kind != kind)
        fail(what + " is bound to " + describe(buffer) + "; expected a buffer of kind '" + bufferKindName(kind) + "'");
      if (buffer.shape != tensor.shape)
        fail(what + " has shape " + formatShape(tensor.shape) + " but " + describe(buffer) + " has shape " +
             formatShape(buffer.shape));
      if (!bound.insert(tensor.buffer).second)
        fail(what + " shares " + describe(buffer) + " with another " + role);
    }
    for (const BufferDesc &buffer : manifest_.buffers)
      if (buffer.kind == kind && !bound.count(buffer.id))
        fail(describe(buffer) + " is not bound to any graph " + role);
  }

  void verifyKernels() const {
    // Which buffers hold data when each kernel starts: inputs and weights from
    // the beginning, the rest once a kernel has written them.
    std::vector<bool> ready(manifest_.buffers.size(), false);
    for (const BufferDesc &buffer : manifest_.buffers)
      ready[buffer.id] = buffer.kind == BufferKind::Input || buffer.kind == BufferKind::Weight;
    SliceWrites slices(manifest_.buffers, [&](const std::string &message) { fail(message); });
    auto isReady = [&](const BufferDesc &buffer) { return ready[buffer.id] || slices.covered(buffer); };

    for (const KernelDesc &kernel : manifest_.kernels) {
      verifyKernelBody(kernel);
      for (const OpDesc &op : kernel.ops) {
        verifyOpElementTypes(kernel, op, sourceName_);
        verifyOpAttributes(kernel, op, sourceName_);
      }
      const std::string where = "kernel '" + kernel.name + "'";
      // A host step stages each buffer as one contiguous range.
      if (kernel.isHostStep())
        for (const std::vector<size_t> *ids : {&kernel.inputs, &kernel.outputs})
          for (size_t id : *ids)
            if (id < manifest_.buffers.size() && manifest_.buffers[id].view)
              fail(where + " is a host step and accesses view buffer " + std::to_string(id) + " '" +
                   manifest_.buffers[id].name + "'; host steps read and write whole buffers only");
      for (size_t i = 0; i < kernel.inputs.size(); ++i) {
        const std::string what = where + " input " + std::to_string(i);
        const BufferDesc &buffer = bufferAt(kernel.inputs[i], what);
        if (!isReady(buffer))
          fail(what + " reads " + describe(buffer) +
               (slices.tracks(buffer) ? " before kernels have written all of it" : " before any kernel writes it"));
        expectSameShape(kernel.values[i], buffer, what);
        expectSameType(kernel, i, buffer, what);
      }
      for (size_t i = 0; i < kernel.outputs.size(); ++i) {
        const std::string what = where + " output " + std::to_string(i);
        const BufferDesc &buffer = bufferAt(kernel.outputs[i], what);
        if (buffer.kind != BufferKind::Arena && buffer.kind != BufferKind::Output)
          fail(what + " writes " + describe(buffer) + "; kernels may only write arena and output buffers");
        expectSameShape(kernel.values[kernel.yields[i]], buffer, what);
        expectSameType(kernel, kernel.yields[i], buffer, what);
        slices.write(buffer, what);
        ready[buffer.id] = true;
      }
      verifyKernelCode(kernel);
    }
    for (const TensorDesc &output : manifest_.outputs)
      if (!isReady(manifest_.buffers[output.buffer]))
        fail("output '" + output.name + "' is never written by a kernel");
  }

  /// Arena buffers that are live at the same time (from the kernel that
  /// first writes one to the last kernel that reads it, both inclusive, as
  /// the memory planner places them) must not share a byte at any batch
  /// size. Offsets and ends are linear in the batch, so "a ends before b
  /// starts at every batch >= 1" holds iff it holds at batch 1 and b's
  /// offset grows at least as fast as a's end.
  void verifyArenaLiveness() const {
    struct Live {
      const BufferDesc *buffer;
      size_t first, last;
      BatchLinear begin, end;
    };
    const size_t unset = SIZE_MAX;
    std::vector<size_t> first(manifest_.buffers.size(), unset), last(manifest_.buffers.size(), unset);
    for (size_t step = 0; step < manifest_.kernels.size(); ++step) {
      const KernelDesc &kernel = manifest_.kernels[step];
      for (size_t id : kernel.outputs) {
        if (first[id] == unset)
          first[id] = step;
        last[id] = step;
      }
      for (size_t id : kernel.inputs)
        last[id] = step;
    }
    // A view's bytes are its root's: the root is live while any view is,
    // and only roots are compared.
    for (const BufferDesc &buffer : manifest_.buffers) {
      if (!buffer.view || first[buffer.id] == unset)
        continue;
      const size_t root = buffer.view->of;
      first[root] = first[root] == unset ? first[buffer.id] : std::min(first[root], first[buffer.id]);
      last[root] = last[root] == unset ? last[buffer.id] : std::max(last[root], last[buffer.id]);
    }
    std::vector<Live> live;
    for (const BufferDesc &buffer : manifest_.buffers) {
      const BatchLinear size = buffer.byteSize();
      if (buffer.kind != BufferKind::Arena || buffer.view || first[buffer.id] == unset ||
          (size.perBatch == 0 && size.fixed == 0))
        continue;
      const BatchLinear &offset = buffer.arenaOffset;
      live.push_back({&buffer, first[buffer.id], last[buffer.id], offset,
                      BatchLinear{offset.perBatch + size.perBatch, offset.fixed + size.fixed}});
    }
    auto alwaysAtMost = [](const BatchLinear &a, const BatchLinear &b) {
      return a.at(1) <= b.at(1) && a.perBatch <= b.perBatch;
    };
    for (size_t i = 0; i < live.size(); ++i)
      for (size_t j = i + 1; j < live.size(); ++j) {
        const Live &a = live[i], &b = live[j];
        if (a.last < b.first || b.last < a.first)
          continue;
        if (alwaysAtMost(a.end, b.begin) || alwaysAtMost(b.end, a.begin))
          continue;
        fail(describe(*a.buffer) + " (bytes " + formatBytes(a.begin) + " to " + formatBytes(a.end) +
             ", live in kernels " + std::to_string(a.first) + ".." + std::to_string(a.last) + ") overlaps " +
             describe(*b.buffer) + " (bytes " + formatBytes(b.begin) + " to " + formatBytes(b.end) +
             ", live in kernels " + std::to_string(b.first) + ".." + std::to_string(b.last) + ")");
      }
  }

  void expectSameShape(const Shape &value, const BufferDesc &buffer, const std::string &what) const {
    if (value != buffer.shape)
      fail(what + " has shape " + formatShape(value) + " but " + describe(buffer) + " has shape " +
           formatShape(buffer.shape));
  }

  void expectSameType(const KernelDesc &kernel, size_t value, const BufferDesc &buffer, const std::string &what) const {
    if (kernel.valueTypes[value] != buffer.dtype)
      fail(what + " (value " + std::to_string(value) + ") has dtype " + elementTypeName(kernel.valueTypes[value]) +
           " but " + describe(buffer) + " has dtype " + elementTypeName(buffer.dtype));
  }

  /// Values are defined once, before use: the kernel inputs first, then each
  /// op's results in op order.
  void verifyKernelBody(const KernelDesc &kernel) const {
    const std::string where = "kernel '" + kernel.name + "'";
    const size_t numValues = kernel.values.size();
    const std::string range = " is out of range (the kernel has " + std::to_string(numValues) + " values)";
    if (kernel.valueTypes.size() != numValues)
      fail(where + " has " + std::to_string(numValues) + " value shapes but " +
           std::to_string(kernel.valueTypes.size()) + " value dtypes");
    if (numValues < kernel.inputs.size())
      fail(where + " has " + std::to_string(kernel.inputs.size()) + " inputs but only " + std::to_string(numValues) +
           " values");
    for (size_t i = 0; i < numValues; ++i)
      verifyShape(kernel.values[i], where + " value " + std::to_string(i), /*isBuffer=*/false);

    std::vector<bool> defined(numValues, false);
    std::fill(defined.begin(), defined.begin() + kernel.inputs.size(), true);
    for (const OpDesc &op : kernel.ops) {
      const std::string opWhere = where + " op " + op.op + " '" + op.name + "'";
      for (size_t operand : op.operands) {
        if (operand >= numValues)
          fail(opWhere + " operand " + std::to_string(operand) + range);
        if (!defined[operand])
          fail(opWhere + " uses value " + std::to_string(operand) + " before it is defined");
      }
      for (size_t result : op.results) {
        if (result >= numValues)
          fail(opWhere + " result " + std::to_string(result) + range);
        if (defined[result])
          fail(opWhere + " redefines value " + std::to_string(result));
        defined[result] = true;
      }
    }
    for (size_t i = kernel.inputs.size(); i < numValues; ++i)
      if (!defined[i])
        fail(where + " value " + std::to_string(i) + " is neither a kernel input nor an op result");
    if (kernel.yields.size() != kernel.outputs.size())
      fail(where + " yields " + std::to_string(kernel.yields.size()) + " values for " +
           std::to_string(kernel.outputs.size()) + " outputs");
    for (size_t value : kernel.yields)
      if (value >= numValues)
        fail(where + " yield " + std::to_string(value) + range);
  }

  /// Copy and host kernels carry no code. Every other kernel is a device
  /// kernel: in a GPU plan (any target but "cpu") it has a launch geometry
  /// and at least one image, and in a CPU plan it may have both or neither.
  void verifyKernelCode(const KernelDesc &kernel) const {
    const std::string where = "kernel '" + kernel.name + "'";
    if (kernel.isCopy() || kernel.isHostStep()) {
      if (kernel.launch || !kernel.images.empty() || !kernel.variants.empty())
        fail(where + " of kind '" + kernel.kind + "' must have no 'launch', 'images' or 'variants'");
      if (kernel.isCopy())
        verifyCopy(kernel, where);
      return;
    }
    if (kernel.launch.has_value() == kernel.images.empty())
      fail(where + (kernel.launch ? " has a 'launch' but no 'images'" : " has 'images' but no 'launch'"));
    if (!kernel.launch) {
      if (manifest_.target != "cpu")
        fail(where +
             " has no 'launch' and 'images', which every device "
             "kernel of a plan for target '" +
             manifest_.target + "' needs");
      if (!kernel.variants.empty())
        fail(where + " has 'variants' but no 'launch' and 'images' of its own");
      return;
    }
    if (kernel.defaultVariant >= kernel.variantCount())
      fail(where + " has 'default_variant' " + std::to_string(kernel.defaultVariant) + ", but " +
           std::to_string(kernel.variantCount()) + " variants");
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
      const std::string what = variant == 0 ? where : where + " variant " + std::to_string(variant);
      for (size_t other = 0; other < variant; ++other)
        if (!kernel.configOf(other).empty() && kernel.configOf(other) == kernel.configOf(variant))
          fail(what + " repeats the config of " + (other == 0 ? "the kernel" : "variant " + std::to_string(other)) +
               ": " + kernel.configOf(variant));
      if (const LibraryCall *call = kernel.libraryOf(variant)) {
        if (std::string problem = checkLibraryCall(manifest_, kernel, *call, largestBucket()); !problem.empty())
          fail(what + " (library variant) " + problem);
        continue;
      }
      if (variant > 0 && kernel.imagesOf(variant).empty())
        fail(what + " has no 'images'");
      if (variant > 0 && kernel.configOf(variant).empty())
        fail(what + " needs a non-empty 'config'");
      verifyLaunch(kernel.launchOf(variant), what);
      for (const TensorMapDesc &map : kernel.launchOf(variant).tensorMaps)
        if (std::string problem = checkTensorMap(manifest_, kernel, map, largestBucket()); !problem.empty())
          fail(what + " " + problem);
      for (size_t i = 0; i < kernel.imagesOf(variant).size(); ++i)
        verifyImage(kernel.imagesOf(variant), i, what);
    }
  }

  /// A copy moves one buffer's bytes into another of the same size.
  void verifyCopy(const KernelDesc &kernel, const std::string &where) const {
    if (kernel.inputs.size() != 1 || kernel.outputs.size() != 1)
      fail(where + " of kind 'copy' must have one input and one output, not " + std::to_string(kernel.inputs.size()) +
           " and " + std::to_string(kernel.outputs.size()));
    const BufferDesc &from = manifest_.buffers[kernel.inputs[0]];
    const BufferDesc &to = manifest_.buffers[kernel.outputs[0]];
    if (from.shape != to.shape || from.dtype != to.dtype)
      fail(where + " copies " + describe(from) + " of shape " + formatShape(from.shape) + " and dtype " +
           elementTypeName(from.dtype) + " into " + describe(to) + " of shape " + formatShape(to.shape) +
           " and dtype " + elementTypeName(to.dtype));
  }

  /// CUDA's limits on a block: x, y <= 1024, z <= 64, at most 1024 threads.
  /// Grid sizes depend on the batch and are checked when a run is scheduled.
  void verifyLaunch(const LaunchDesc &launch, const std::string &where) const {
    static const int64_t kMaxBlock[3] = {1024, 1024, 64};
    static const char *const kAxes[3] = {"x", "y", "z"};
    const std::string block = "[" + std::to_string(launch.block[0]) + ", " + std::to_string(launch.block[1]) + ", " +
                              std::to_string(launch.block[2]) + "]";
    int64_t threads = 1;
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t dim = launch.block[axis];
      if (dim < 1 || dim > kMaxBlock[axis])
        fail(where + " block " + block + ": " + kAxes[axis] + " must be in [1, " + std::to_string(kMaxBlock[axis]) +
             "]");
      threads *= dim;
    }
    if (threads > 1024)
      fail(where + " block " + block + " has " + std::to_string(threads) + " threads; CUDA allows at most 1024");
    // 227 KiB: the most any GPU gives one block (sm_90); a smaller device
    // refuses the opt-in when the module is loaded.
    if (launch.sharedBytes < 0 || launch.sharedBytes > int64_t{227} * 1024)
      fail(where + " asks for " + std::to_string(launch.sharedBytes) +
           " bytes of dynamic shared memory; a block can have 0 to 232448");
    for (int axis = 0; axis < 3; ++axis) {
      const GridDim &dim = launch.grid[axis];
      if (dim.divisor < 1 || dim.work.perBatch < 0 || dim.work.fixed < 0 || dim.work.perBatch > kMaxBytes ||
          dim.work.fixed > kMaxBytes || dim.divisor > kMaxBytes)
        fail(where + " grid " + kAxes[axis] + " (per_batch " + std::to_string(dim.work.perBatch) + ", fixed " +
             std::to_string(dim.work.fixed) + ", divisor " + std::to_string(dim.divisor) +
             ") needs a positive divisor and non-negative, plausible terms");
    }
    if (launch.splitMaxSlices != 1 || launch.splitKTiles != 0 || launch.splitPartialFloats != 0) {
      // The kernel reads its slice count from gridDim.z, which the runtime
      // sets: the plan's z is one block.
      const GridDim &z = launch.grid[2];
      if (launch.splitMaxSlices < 2 || launch.splitMaxSlices > kMaxSplitSlices)
        fail(where + " split_k allows " + std::to_string(launch.splitMaxSlices) + " slices; a split allows 2 to " +
             std::to_string(kMaxSplitSlices));
      if (launch.splitKTiles < launch.splitMaxSlices || launch.splitKTiles > kMaxSplitKTiles)
        fail(where + " split_k has " + std::to_string(launch.splitKTiles) +
             " k-tiles; it needs at least one per slice (" + std::to_string(launch.splitMaxSlices) + ") and at most " +
             std::to_string(kMaxSplitKTiles));
      if (launch.splitPartialFloats < 1 || launch.splitPartialFloats > kMaxSplitPartialFloats)
        fail(where + " split_k stores " + std::to_string(launch.splitPartialFloats) +
             " partial floats per block; a block stores 1 to " + std::to_string(kMaxSplitPartialFloats));
      if (z.work.perBatch != 0 || z.work.fixed > z.divisor)
        fail(where + " splits K, so its grid z must be one block (the runtime sets the slices there)");
    }
    if (launch.arguments.size() > kMaxKernelArguments)
      fail(where + " passes " + std::to_string(launch.arguments.size()) + " scalar arguments; a kernel takes at most " +
           std::to_string(kMaxKernelArguments));
    // Specializing a plan with ranges folds these away (DimensionRanges.h).
    for (const std::vector<int64_t> &ranges : launch.gridRanges)
      if (!ranges.empty())
        fail(where + " grows its grid with range code " + std::to_string(ranges.front()) +
             ", but the plan has no ranges");
    if (!launch.rangeArguments.empty())
      fail(where + " passes range code " + std::to_string(launch.rangeArguments.front().second) +
           " as an argument, but the plan has no ranges");
  }

  void verifyImage(const std::vector<KernelImage> &images, size_t index, const std::string &where) const {
    const KernelImage &image = images[index];
    if (image.format.empty() || image.target.empty() || image.entry.empty())
      fail(where + " image " + std::to_string(index) + " needs a non-empty 'format', 'target' and 'entry'");
    for (size_t other = 0; other < index; ++other)
      if (images[other].format == image.format && images[other].target == image.target)
        fail(where + " has two '" + image.format + "' images for target '" + image.target + "'");
    if (!imagesSectionSize_)
      fail(where + " has an image, but the plan has no '" + std::string(plan::kKernelImagesSection) + "' section");
    verifyImageRange(image.range, "'" + image.format + "'", where);
  }

  void verifyImageRange(const ImageRange &range, const std::string &what, const std::string &where) const {
    const uint64_t sectionSize = *imagesSectionSize_;
    if (range.size == 0 || range.offset > sectionSize || range.size > sectionSize - range.offset)
      fail(where + " " + what + " image (offset " + std::to_string(range.offset) + ", " + std::to_string(range.size) +
           " bytes) must be non-empty and lie inside the " + plan::kKernelImagesSection + " section (" +
           std::to_string(sectionSize) + " bytes)");
  }

  const PlanManifest &manifest_;
  std::optional<uint64_t> weightsSectionSize_;
  std::optional<uint64_t> imagesSectionSize_;
  const std::string &sourceName_;
};

} // namespace

void verifyManifest(const PlanManifest &manifest, const SectionSizes &sections, const std::string &sourceName) {
  ManifestVerifier(manifest, sections, sourceName).verify();
}

} // namespace fusec::runtime
