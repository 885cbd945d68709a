//===- PlanVerifier.cpp - Cross-check a parsed plan manifest ----------------===//

#include "runtime/plan/PlanVerifier.h"

#include "runtime/Error.h"

#include <algorithm>
#include <set>

namespace fusec::runtime {

namespace {

/// Sizes beyond this (4 PiB) are corrupt data; bounding them keeps the
/// arithmetic below free of overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 52;

std::string formatBytes(const BatchLinear &bytes) {
  return std::to_string(bytes.perBatch) + "*batch + " +
         std::to_string(bytes.fixed);
}

class ManifestVerifier {
public:
  ManifestVerifier(const PlanManifest &manifest,
                   std::optional<uint64_t> weightsSectionSize,
                   const std::string &sourceName)
      : manifest_(manifest), weightsSectionSize_(weightsSectionSize),
        sourceName_(sourceName) {}

  void verify() {
    verifyBatchBuckets();
    verifyArenaSize();
    for (const BufferDesc &buffer : manifest_.buffers)
      verifyBuffer(buffer);
    verifyGraphTensors(manifest_.inputs, "input", BufferKind::Input);
    verifyGraphTensors(manifest_.outputs, "output", BufferKind::Output);
    verifyKernels();
  }

private:
  [[noreturn]] void fail(const std::string &reason) const {
    throw Error(sourceName_ + ": " + reason);
  }

  std::string describe(const BufferDesc &buffer) const {
    return std::string(bufferKindName(buffer.kind)) + " buffer " +
           std::to_string(buffer.id) + " '" + buffer.name + "'";
  }

  /// Dimensions are sizes or kBatchDim. Buffer sizes must be linear in the
  /// batch size, so a buffer shape has at most one batch dimension.
  void verifyShape(const Shape &shape, const std::string &what,
                   bool isBuffer) const {
    for (int64_t dim : shape)
      if (dim < plan::kBatchDim)
        fail(what + " has an invalid dimension " + std::to_string(dim) +
             " in shape " + formatShape(shape));
    int64_t elements = 1;
    for (int64_t dim : shape) {
      if (dim == plan::kBatchDim || dim == 0)
        continue;
      if (elements > kMaxBytes / dim)
        fail(what + " shape " + formatShape(shape) + " is implausibly large");
      elements *= dim;
    }
    if (isBuffer &&
        std::count(shape.begin(), shape.end(), plan::kBatchDim) > 1)
      fail(what + " has more than one batch dimension in shape " +
           formatShape(shape));
  }

  void verifyBatchBuckets() const {
    for (int64_t bucket : manifest_.batchBuckets)
      if (bucket < 1)
        fail("batch bucket " + std::to_string(bucket) + " is not positive");
  }

  void verifyArenaSize() const {
    const ArenaDesc &arena = manifest_.arena;
    for (int64_t bytes : {arena.size.perBatch, arena.size.fixed,
                          arena.lowerBound.perBatch, arena.lowerBound.fixed})
      if (bytes < 0 || bytes > kMaxBytes)
        fail("arena sizes must be non-negative and plausible (size " +
           formatBytes(arena.size) + ", lower bound " +
             formatBytes(arena.lowerBound) + ")");
  }

  void verifyBuffer(const BufferDesc &buffer) const {
    verifyShape(buffer.shape, describe(buffer), /*isBuffer=*/true);
    if (buffer.kind == BufferKind::Weight)
      verifyWeight(buffer);
    if (buffer.kind == BufferKind::Arena)
      verifyArenaBuffer(buffer);
  }

  void verifyWeight(const BufferDesc &buffer) const {
    if (hasBatchDim(buffer.shape))
      fail(describe(buffer) + " must have a static shape, not " +
           formatShape(buffer.shape));
    if (!weightsSectionSize_)
      fail(describe(buffer) + " needs a '" +
           std::string(plan::kWeightsSection) +
           "' section, but the plan has none");
    const uint64_t bytes = static_cast<uint64_t>(buffer.byteSize().fixed);
    if (buffer.weightOffset % sizeof(float) != 0)
      fail(describe(buffer) + " offset " +
           std::to_string(buffer.weightOffset) +
           " is not a multiple of 4 bytes");
    if (buffer.weightOffset > *weightsSectionSize_ ||
        bytes > *weightsSectionSize_ - buffer.weightOffset)
      fail(describe(buffer) + " (offset " +
           std::to_string(buffer.weightOffset) + ", " + std::to_string(bytes) +
           " bytes) runs past the end of the weights section (" +
           std::to_string(*weightsSectionSize_) + " bytes)");
  }

  /// The offset and the arena size are both linear in the batch size, so the
  /// buffer fits at every batch >= 1 iff it fits at batch 1 and does not grow
  /// faster than the arena.
  void verifyArenaBuffer(const BufferDesc &buffer) const {
    const BatchLinear &offset = buffer.arenaOffset;
    const BatchLinear size = buffer.byteSize();
    const BatchLinear &arena = manifest_.arena.size;
    if (offset.perBatch < 0 || offset.fixed < 0 ||
        offset.perBatch > kMaxBytes || offset.fixed > kMaxBytes ||
        offset.perBatch % plan::kBufferAlignment != 0 ||
        offset.fixed % plan::kBufferAlignment != 0)
      fail(describe(buffer) + " offset " + formatBytes(offset) +
           " must be made of non-negative, plausible multiples of " +
           std::to_string(plan::kBufferAlignment) + " bytes");
    const BatchLinear end{offset.perBatch + size.perBatch,
                          offset.fixed + size.fixed};
    if (end.at(1) > arena.at(1))
      fail(describe(buffer) + " (bytes [" + std::to_string(offset.at(1)) +
           ", " + std::to_string(end.at(1)) +
           ") at batch 1) lies beyond the arena (" +
           std::to_string(arena.at(1)) + " bytes at batch 1)");
    if (end.perBatch > arena.perBatch)
      fail(describe(buffer) + " ends at " + formatBytes(end) +
           " bytes, which outgrows the arena of " + formatBytes(arena) +
           " bytes at larger batch sizes");
  }

  const BufferDesc &bufferAt(size_t id, const std::string &what) const {
    if (id >= manifest_.buffers.size())
      fail(what + " refers to buffer " + std::to_string(id) +
           ", which is out of range (the plan has " +
           std::to_string(manifest_.buffers.size()) + " buffers)");
    return manifest_.buffers[id];
  }

  void verifyGraphTensors(const std::vector<TensorDesc> &tensors,
                          const std::string &role, BufferKind kind) const {
    std::set<std::string> names;
    std::set<size_t> bound;
    for (const TensorDesc &tensor : tensors) {
      const std::string what = role + " '" + tensor.name + "'";
      if (!names.insert(tensor.name).second)
        fail("duplicate " + what);
      if (tensor.dtype != "f32")
        fail(what + " has dtype '" + tensor.dtype +
             "'; only f32 is supported");
      verifyShape(tensor.shape, what, /*isBuffer=*/false);
      const BufferDesc &buffer = bufferAt(tensor.buffer, what);
      if (buffer.kind != kind)
        fail(what + " is bound to " + describe(buffer) +
             "; expected a buffer of kind '" + bufferKindName(kind) + "'");
      if (buffer.shape != tensor.shape)
        fail(what + " has shape " + formatShape(tensor.shape) + " but " +
             describe(buffer) + " has shape " + formatShape(buffer.shape));
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
      ready[buffer.id] = buffer.kind == BufferKind::Input ||
                         buffer.kind == BufferKind::Weight;

    for (const KernelDesc &kernel : manifest_.kernels) {
      verifyKernelBody(kernel);
      const std::string where = "kernel '" + kernel.name + "'";
      for (size_t i = 0; i < kernel.inputs.size(); ++i) {
        const std::string what = where + " input " + std::to_string(i);
        const BufferDesc &buffer = bufferAt(kernel.inputs[i], what);
        if (!ready[buffer.id])
          fail(what + " reads " + describe(buffer) +
               " before any kernel writes it");
        expectSameShape(kernel.values[i], buffer, what);
      }
      for (size_t i = 0; i < kernel.outputs.size(); ++i) {
        const std::string what = where + " output " + std::to_string(i);
        const BufferDesc &buffer = bufferAt(kernel.outputs[i], what);
        if (buffer.kind != BufferKind::Arena &&
            buffer.kind != BufferKind::Output)
          fail(what + " writes " + describe(buffer) +
               "; kernels may only write arena and output buffers");
        expectSameShape(kernel.values[kernel.yields[i]], buffer, what);
        ready[buffer.id] = true;
      }
    }
    for (const TensorDesc &output : manifest_.outputs)
      if (!ready[output.buffer])
        fail("output '" + output.name + "' is never written by a kernel");
  }

  void expectSameShape(const Shape &value, const BufferDesc &buffer,
                       const std::string &what) const {
    if (value != buffer.shape)
      fail(what + " has shape " + formatShape(value) + " but " +
           describe(buffer) + " has shape " + formatShape(buffer.shape));
  }

  /// Values are defined once, before use: the kernel inputs first, then each
  /// op's results in op order.
  void verifyKernelBody(const KernelDesc &kernel) const {
    const std::string where = "kernel '" + kernel.name + "'";
    const size_t numValues = kernel.values.size();
    const std::string range =
        " is out of range (the kernel has " + std::to_string(numValues) +
        " values)";
    if (numValues < kernel.inputs.size())
      fail(where + " has " + std::to_string(kernel.inputs.size()) +
           " inputs but only " + std::to_string(numValues) + " values");
    for (size_t i = 0; i < numValues; ++i)
      verifyShape(kernel.values[i],
                  where + " value " + std::to_string(i), /*isBuffer=*/false);

    std::vector<bool> defined(numValues, false);
    std::fill(defined.begin(), defined.begin() + kernel.inputs.size(), true);
    for (const OpDesc &op : kernel.ops) {
      const std::string opWhere =
          where + " op " + op.op + " '" + op.name + "'";
      for (size_t operand : op.operands) {
        if (operand >= numValues)
          fail(opWhere + " operand " + std::to_string(operand) + range);
        if (!defined[operand])
          fail(opWhere + " uses value " + std::to_string(operand) +
               " before it is defined");
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
        fail(where + " value " + std::to_string(i) +
             " is neither a kernel input nor an op result");
    if (kernel.yields.size() != kernel.outputs.size())
      fail(where + " yields " + std::to_string(kernel.yields.size()) +
           " values for " + std::to_string(kernel.outputs.size()) +
           " outputs");
    for (size_t value : kernel.yields)
      if (value >= numValues)
        fail(where + " yield " + std::to_string(value) + range);
  }

  const PlanManifest &manifest_;
  std::optional<uint64_t> weightsSectionSize_;
  const std::string &sourceName_;
};

} // namespace

void verifyManifest(const PlanManifest &manifest,
                    std::optional<uint64_t> weightsSectionSize,
                    const std::string &sourceName) {
  ManifestVerifier(manifest, weightsSectionSize, sourceName).verify();
}

} // namespace fusec::runtime
