//===- Plan.h - A loaded, validated model.plan ------------------------------===//
//
// The manifest parsed into plain structs (field meanings in
// docs/plan-format.md) together with the file bytes the sections live in.
// A Plan that was returned by load()/fromBytes() has passed every check of
// PlanContainer, PlanReader and PlanVerifier, so backends may index buffers,
// values and weights without further range checks.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLAN_H
#define FUSEC_RUNTIME_PLAN_PLAN_H

#include "runtime/ElementType.h"
#include "runtime/Tensor.h"
#include "runtime/plan/PlanContainer.h"

#include "runtime/plan/DimensionRanges.h"
#include "support/BatchLinear.h"
#include "support/ByteRange.h"
#include "support/LibraryConv.h"
#include "support/LibraryMatmul.h"
#include "support/TensorMapDesc.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime {

/// A graph input or output.
struct TensorDesc {
  std::string name;
  /// Equal to the bound buffer's (the verifier checks it).
  ElementType dtype = ElementType::F32;
  Shape shape;
  size_t buffer = 0;
};

enum class BufferKind { Input, Output, Weight, Arena };

/// The manifest spelling of a kind: "input", "output", "weight", "arena".
const char *bufferKindName(BufferKind kind);

/// "seq=128, width=64": named dimension sizes as messages and fusec --dim
/// spell them.
std::string formatDims(const std::map<std::string, int64_t> &dims);

/// A tensor that lives between kernels.
struct BufferDesc {
  size_t id = 0;
  std::string name;
  BufferKind kind = BufferKind::Arena;
  ElementType dtype = ElementType::F32;
  Shape shape;
  /// Weight buffers: byte offset into the weights section.
  uint64_t weightOffset = 0;
  /// Arena buffers: byte offset into the arena (for a view, of its first
  /// element, computed by the reader from its root's).
  BatchLinear arenaOffset;
  /// An arena buffer stored inside another one, its root: an alias of all
  /// its bytes (`alias`), or the elements
  /// [offset, offset + shape[axis]) along `axis` of the root, whose other
  /// dimensions are this buffer's (a concatenation's operands inside its
  /// result, docs/plan-format.md "Views"). Dimensions from `axis` on are
  /// static: the view's rows are `chunk` contiguous elements, `pitch`
  /// elements apart in the root, one row per index of the dimensions before
  /// `axis`.
  struct View {
    size_t of = 0;
    int64_t axis = 0;
    int64_t offset = 0;
    int64_t chunk = 0;
    int64_t pitch = 0;
    /// An alias: all of the root's bytes under this buffer's shape (a
    /// reshape in place); axis, offset, chunk and pitch are 0.
    bool alias = false;
  };
  std::optional<View> view;

  /// Bytes the buffer occupies at `batch`, as a function of the batch size.
  BatchLinear byteSize() const;
  /// Bytes from its first element to its last: byteSize(), or for a view
  /// whose rows are apart in its root, the rows and the gaps between them.
  BatchLinear spanBytes() const;
};

/// One op of a kernel body; operands and results index the kernel's values.
struct OpDesc {
  std::string op;
  std::string name;
  std::vector<size_t> operands;
  std::vector<size_t> results;
  nlohmann::json attrs = nlohmann::json::object();
};

/// How a device kernel is launched: block dimensions and a grid that grows
/// with the batch size.
struct LaunchDesc {
  std::array<int64_t, 3> block = {1, 1, 1};
  std::array<GridDim, 3> grid;
  /// Dynamic shared memory per block, in bytes (above 48 KiB the kernel is
  /// opted in when its module is loaded).
  int64_t sharedBytes = 0;
  /// Split-K (format 4.0): above 1, the kernel is split-capable: each launch
  /// runs grid.z = 1 to splitMaxSlices k-slices per output tile, which the
  /// runtime picks from the tiles, splitKTiles and the device's SMs
  /// (support/SplitK.h); the plan's grid z is 1. Such a kernel takes
  /// two more pointers after its buffers: the partial sums (blocks x
  /// splitPartialFloats floats) and one unsigned counter per output tile
  /// (grid.x x grid.y), zero before its first launch (the kernel leaves them
  /// zero).
  int64_t splitMaxSlices = 1;
  int64_t splitKTiles = 0;
  int64_t splitPartialFloats = 0;
  /// Scalar arguments (format 5.0): the sizes a shape-generic kernel reads
  /// at run time instead of compiling them in, and their precomputed
  /// divisors. Each is a 32-bit unsigned value; a kernel with any takes them
  /// after `batch`, as one parameter of `arguments.size()` unsigned ints
  /// (FusecArguments<N> of fusec_cuda_prelude.h).
  std::vector<uint32_t> arguments;
  /// TMA descriptors (format 7.0): the runtime encodes each for its
  /// buffer's address at the launch's batch and passes them by value, in
  /// order, after the scalar arguments (after `batch` when there are none).
  std::vector<TensorMapDesc> tensorMaps;
  /// In a plan with ranges (format 7.3): the ranges (their codes,
  /// plan::rangeDimCode) whose sizes multiply each grid dimension's work, and
  /// the arguments that hold a range's size, (position in `arguments`,
  /// code). Plan::specialize folds both into `grid` and `arguments`; a plan
  /// that runs has neither.
  std::array<std::vector<int64_t>, 3> gridRanges;
  std::vector<std::pair<size_t, int64_t>> rangeArguments;

  bool isSplit() const { return splitMaxSlices > 1; }
};

/// A byte range inside the kernel_images section.
struct ImageRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// One compiled form of a device kernel, loaded by the drivers that run
/// `format`: "ptx" (text, NUL-terminated or not, for the virtual
/// architecture `target`, "sm_90"), "cubin" (a binary for exactly `target`),
/// or a format this runtime does not know (kept, never loaded).
struct KernelImage {
  std::string format;
  std::string target;
  /// The kernel's function in the image.
  std::string entry;
  ImageRange range;
};

/// A kernel's computation as a call into a vendor library (format 5.2
/// `library_variants`): the library's name and what to compute, a matrix
/// product for cuBLASLt (kCublasLtLibrary) or, from format 5.3, a
/// convolution for cuDNN (kCudnnLibrary). Exactly one of the two is set.
struct LibraryCall {
  std::string library;
  std::optional<LibraryMatmul> matmul;
  std::optional<LibraryConv> conv;
};

/// Another form of a device kernel: the same computation instantiated with
/// another config (tile) and launched its own way, or run by a vendor
/// library. The runtime may time the variants and run the fastest
/// (fuserun --tune).
struct KernelVariant {
  /// The #fuse.config it instantiates, as fusec printed it; a library
  /// variant's is the library's name.
  std::string config;
  /// A compiled variant's launch and images (at most one per (format,
  /// target)); a library variant has neither.
  LaunchDesc launch;
  std::vector<KernelImage> images;
  /// Set for a library variant.
  std::optional<LibraryCall> library;
};

/// One launch. Values [0, inputs.size()) are the kernel inputs in order; the
/// others are op results. yields[i] is the value written to outputs[i].
/// values[i] is value i's shape and valueTypes[i] its element type.
/// Device kernels of GPU plans carry `launch` and at least one image; "copy"
/// and "host" kernels never do (plan::kCopyKernelKind, plan::kHostKernelKind).
struct KernelDesc {
  std::string name;
  std::string kind;
  std::vector<size_t> inputs;
  std::vector<size_t> outputs;
  std::vector<Shape> values;
  std::vector<ElementType> valueTypes;
  std::vector<OpDesc> ops;
  std::vector<size_t> yields;
  std::optional<LaunchDesc> launch;
  /// At most one per (format, target).
  std::vector<KernelImage> images;
  /// The #fuse.config of `launch` and `images` ("" if none was recorded).
  std::string config;
  /// Other forms: variant i (1-based) is variants[i - 1]; variant 0 is
  /// `config`, `launch` and `images`. The compiled variants come first, then
  /// the library variants (format 5.2).
  std::vector<KernelVariant> variants;
  /// The variant a session runs unless tuning or the caller chooses another
  /// (format 5.2 `default_variant`; 0 in older plans): the compiler's choice.
  size_t defaultVariant = 0;
  /// Why a conv/GEMM kernel has no library variant (format 5.2
  /// `no_library_variant`; "" if it has one or the compiler did not say).
  std::string noLibraryVariant;

  /// 1 + variants.size().
  size_t variantCount() const { return 1 + variants.size(); }
  /// Variant `variant`'s launch (a device kernel's: `launch` is set).
  const LaunchDesc &launchOf(size_t variant) const { return variant == 0 ? *launch : variants[variant - 1].launch; }
  const std::vector<KernelImage> &imagesOf(size_t variant) const {
    return variant == 0 ? images : variants[variant - 1].images;
  }
  const std::string &configOf(size_t variant) const { return variant == 0 ? config : variants[variant - 1].config; }

  /// Variant `variant`'s library call, or nullptr for a compiled variant.
  const LibraryCall *libraryOf(size_t variant) const {
    return variant == 0 || !variants[variant - 1].library ? nullptr : &*variants[variant - 1].library;
  }
  bool hasLibraryVariant() const {
    for (const KernelVariant &variant : variants)
      if (variant.library)
        return true;
    return false;
  }

  bool isHostStep() const { return kind == plan::kHostKernelKind; }
  /// Variant `variant`'s first image of `format` (of `target` unless
  /// empty), or nullptr.
  const KernelImage *findImage(const std::string &format, const std::string &target = "", size_t variant = 0) const {
    for (const KernelImage &image : imagesOf(variant))
      if (image.format == format && (target.empty() || image.target == target))
        return &image;
    return nullptr;
  }
  bool isCopy() const { return kind == plan::kCopyKernelKind; }
};

struct ArenaDesc {
  BatchLinear size;
  /// Peak bytes of simultaneously live intermediates.
  BatchLinear lowerBound;
};

/// Everything the manifest says, in the manifest's order except `buffers`,
/// which is indexed by buffer id.
struct PlanManifest {
  std::string formatVersion;
  std::string compilerVersion;
  std::string target;
  std::string sourceHash;
  std::vector<int64_t> batchBuckets;
  /// The sizes of the named input dimensions (ONNX dim_params, fusec --dim)
  /// the plan was compiled for (format 5.1; empty if it names none).
  std::map<std::string, int64_t> dims;
  /// The named dimensions the plan runs over a range (format 7.1
  /// `ranges`; fusec --dim seq=1:512). Shapes write range i's dimension as
  /// plan::rangeDimCode(i).
  std::vector<DimensionRange> ranges;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<BufferDesc> buffers;
  ArenaDesc arena;
  std::vector<KernelDesc> kernels;
};

class Plan {
public:
  /// Reads and validates the plan file at `path`; throws Error naming the file
  /// and the reason if it is unreadable or invalid.
  static Plan load(const std::string &path);
  /// Validates an in-memory plan; `sourceName` names it in error messages.
  static Plan fromBytes(std::vector<uint8_t> bytes, std::string sourceName);
  /// Runs every check fromBytes() runs, without copying the bytes; throws
  /// Error like it. The compiler calls this on every plan it writes.
  static void verifyBytes(const uint8_t *data, size_t size, const std::string &sourceName);
  /// Runs every check of verifyBytes except the sections' checksums, on an
  /// encoded plan whose sections stay where its writer holds them (the
  /// writer computed those checksums from the very bytes it writes).
  static void verifyEncoded(const plan::EncodedPlan &plan, const std::string &sourceName);

  const std::string &sourceName() const { return sourceName_; }
  /// The plan's bytes as loaded: written to a file, they are the same plan
  /// (for a shape variant, the whole plan it belongs to, every variant).
  ByteRange bytes() const { return bytes_; }
  const PlanManifest &manifest() const { return manifest_; }
  const std::vector<TensorDesc> &inputs() const { return manifest_.inputs; }
  const std::vector<TensorDesc> &outputs() const { return manifest_.outputs; }
  const std::vector<BufferDesc> &buffers() const { return manifest_.buffers; }
  const std::vector<KernelDesc> &kernels() const { return manifest_.kernels; }
  const ArenaDesc &arena() const { return manifest_.arena; }
  const std::vector<plan::SectionRef> &sections() const { return sections_; }
  /// The sizes of the named dimensions this plan was compiled for.
  const std::map<std::string, int64_t> &dims() const { return manifest_.dims; }
  /// The named dimensions this plan runs over a range (empty for most).
  const std::vector<DimensionRange> &ranges() const { return manifest_.ranges; }
  /// This plan at one size of each range (`sizes` names every range): a
  /// plan without ranges, verified, that shares this one's bytes. Throws
  /// Error for a missing, unknown or out-of-range size.
  Plan specialize(const std::map<std::string, int64_t> &sizes) const;
  /// specialize() at the sizes `dims` gives the ranges, each range's opt
  /// where it gives none; `dims` may also repeat the plan's fixed sizes.
  Plan specializeAt(const std::map<std::string, int64_t> &dims) const;
  /// The same model compiled for other sizes of its named dimensions
  /// (format 5.1 `shape_variants`; fusec --dim seq=64,128): complete plans
  /// that share this one's bytes and sections, whose inputs and outputs have
  /// the same names, element types and ranks. Empty for a variant itself.
  const std::vector<Plan> &shapeVariants() const { return shapeVariants_; }
  /// Every variant's dims, this plan's first ({{}} for a plan naming none).
  std::vector<std::map<std::string, int64_t>> shapeVariantDims() const;
  /// This plan or the shape variant compiled for exactly `dims`; nullptr
  /// if it has none.
  const Plan *findShapeVariant(const std::map<std::string, int64_t> &dims) const;
  /// Every variant's sizes for messages: "seq=64; seq=128" ("no named
  /// dimensions" for a plan that names none).
  std::string describeShapeVariants() const;

  /// The bytes of section `name`, or an empty range if the plan has none.
  ByteRange sectionBytes(const std::string &name) const;
  /// The data of a weight buffer (inside the weights section), in its
  /// element type's storage format.
  const void *weightData(const BufferDesc &buffer) const;
  /// The bytes of a range of the kernel_images section.
  ByteRange imageBytes(const ImageRange &range) const;

private:
  Plan(std::string sourceName, std::shared_ptr<const void> storage, ByteRange bytes,
       std::vector<plan::SectionRef> sections, PlanManifest manifest, std::vector<PlanManifest> shapeVariants);

  std::string sourceName_;
  /// Owns what `bytes_` views: the mapped file (load) or the buffer
  /// (fromBytes); shared by copies of the plan, which never write to it.
  std::shared_ptr<const void> storage_;
  ByteRange bytes_;
  std::vector<plan::SectionRef> sections_;
  PlanManifest manifest_;
  std::vector<Plan> shapeVariants_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_PLAN_H
