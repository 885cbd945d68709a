//===- PlanFormat.h - The one definition of the model.plan file format ----===//
//
// Shared by the plan writer (compiler/) and the plan reader (runtime/). It
// holds no MLIR or LLVM types so the runtime can be built without them.
// docs/plan-format.md describes the manifest fields in prose.
//
// File layout (all integers little-endian):
//   [0,  8)   magic "FUSEPLAN"
//   [8, 12)   uint32 major version
//   [12,16)   uint32 minor version
//   [16,24)   uint64 manifest offset   (always kHeaderSize)
//   [24,32)   uint64 manifest size in bytes (UTF-8 JSON)
//   [32,40)   uint64 FNV-1a 64 checksum of the manifest bytes
//   [40,48)   uint64 total file size
//   [48,64)   zero padding
//   manifest JSON, then binary sections, each starting at a multiple of
//   kSectionAlignment. The manifest's "sections" array gives each section's
//   name, offset, size and checksum (FNV-1a 64, lowercase hex string).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_PLANFORMAT_H
#define FUSEC_RUNTIME_PLAN_PLANFORMAT_H

#include "support/Hash.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fusec::plan {

inline constexpr char kMagic[8] = {'F', 'U', 'S', 'E', 'P', 'L', 'A', 'N'};
/// A reader accepts any minor version of 2.x to its own major version: 7.5
/// added the quantized dtypes i8 and u8 and the QuantizeLinear and
/// DequantizeLinear ops, which a 7.4 reader rejects by name; 7.4
/// added tensor maps of rank 3 and 4 with traversal strides (a map's
/// `middle` dimensions and `element_strides`: the Hopper conv's input and
/// weights), whose `box` a 7.3 reader rejects; 7.3
/// added GPU plans over ranges (a launch's grid `ranges` and its
/// `range_arguments`, which Plan::specialize folds; a 7.2 reader rejects the
/// images of a plan with ranges); 7.2
/// added view buffers (an arena buffer's `view` of another, the slices of a
/// concatenation its operands' kernels write in place) and 7.1 dimension
/// ranges, which a 7.0 or 7.1 reader rejects (a view has no `offset`, a
/// range's code is no dimension it knows); 7.0
/// added TMA descriptors to launches (a launch's `tensor_maps`, which the
/// runtime encodes and passes after the other parameters), which an older
/// reader would ignore and launch wrong, hence the major version; 6.0
/// added cuDNN convolutions to the library variants (an entry holds a
/// `conv` instead of a `matmul`), which a 5.2 reader would reject field by
/// field rather than ignore, hence the major version; 5.2 added library
/// variants (a kernel's `library_variants`, `default_variant`
/// and `no_library_variant`), which a 5.1 reader ignores, running every
/// kernel's compiled variant 0; 5.1 added shape variants (`dims`, `shape_variants`), which a 5.0 reader
/// ignores, running the plan at its first variant's sizes; 5.0 added scalar
/// kernel arguments (a launch's `arguments`, one more
/// parameter after the batch) and 4.0 split-K launches, whose kernels take
/// two more pointers; an older reader would launch either wrong, hence the
/// major versions. 3.x and 4.x plans are 5.0 plans without them; 2.x kernels
/// carry one CUDA `image` (PTX and an optional CUBIN) instead of 3.0's
/// `images` keyed by format. A newer major version is rejected, and so is
/// 1.x, which predates element types (2.0).
inline constexpr uint32_t kMajorVersion = 7;
inline constexpr uint32_t kMinorVersion = 5;
inline constexpr uint32_t kOldestReadableMajorVersion = 2;
inline constexpr uint64_t kHeaderSize = 64;
inline constexpr uint64_t kSectionAlignment = 64;
/// Arena buffers start at multiples of this (bytes).
inline constexpr uint64_t kBufferAlignment = 64;

/// Kernel image formats fusec writes. A plan may carry images of formats a
/// runtime does not know; each GPU driver loads the formats it runs.
inline constexpr const char *kPtxImageFormat = "ptx";
inline constexpr const char *kCubinImageFormat = "cubin";

/// "major.minor" of this writer's plans, as the manifest's format_version.
inline std::string formatVersionString() { return std::to_string(kMajorVersion) + "." + std::to_string(kMinorVersion); }

/// The manifest field holding a plan's other shape variants (format 5.1):
/// the same model compiled for other sizes of its named dimensions. Each
/// entry holds every manifest field but the ones below, which all variants
/// share with the manifest itself (and so the plan's sections).
inline constexpr const char *kShapeVariantsField = "shape_variants";
inline constexpr const char *kSharedManifestFields[] = {"format_version", "compiler_version", "target",
                                                        "source_hash",    "batch_buckets",    "sections"};

/// Section names.
inline constexpr const char *kWeightsSection = "weights";
inline constexpr const char *kKernelImagesSection = "kernel_images";

/// Kernel kinds the runtime treats specially. A "copy" kernel (one Identity
/// op) is a device-to-device copy on a GPU; a "host" kernel always runs on
/// the CPU, between the captured kernel segments of a GPU run. Every other
/// kind is a compiled device kernel.
inline constexpr const char *kCopyKernelKind = "copy";
inline constexpr const char *kHostKernelKind = "host";

/// A dimension in a manifest shape is either a non-negative static size or
/// kBatchDim, the symbolic batch size chosen at run time.
inline constexpr int64_t kBatchDim = -1;
/// A plan with dimension ranges (format 7.1 `ranges`, DimensionRanges.h)
/// writes the `index`-th range's dimension as -2 - index.
inline constexpr int64_t rangeDimCode(size_t index) { return -2 - static_cast<int64_t>(index); }
/// The range a dimension code stands for, or nullopt for sizes and the batch.
inline std::optional<size_t> rangeIndexOf(int64_t dim) {
  if (dim > -2)
    return std::nullopt;
  return static_cast<size_t>(-2 - dim);
}

struct FileHeader {
  char magic[8];
  uint32_t major;
  uint32_t minor;
  uint64_t manifestOffset;
  uint64_t manifestSize;
  uint64_t manifestChecksum;
  uint64_t fileSize;
  uint8_t reserved[16];
};
static_assert(sizeof(FileHeader) == kHeaderSize, "plan header must be 64 bytes");

inline uint64_t alignTo(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

} // namespace fusec::plan

#endif // FUSEC_RUNTIME_PLAN_PLANFORMAT_H
