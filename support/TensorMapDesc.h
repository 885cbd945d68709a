//===- TensorMapDesc.h - A TMA descriptor a kernel launch passes -*- C++ -*-===//
//
// Hopper kernels (codegen/include/fusec_gemm_sm90.h) read their operands
// through TMA, which needs a CUtensorMap: the tensor's address, sizes and
// strides, the box one copy moves and the shared-memory swizzle, encoded on
// the host by the driver (cuTensorMapEncodeTiled). Addresses are the
// runtime's, so the plan describes each map and the runtime encodes it for
// the buffer's address at each launch (once per graph capture when graphed)
// and passes it by value after the kernel's other parameters.
//
// fusec's maps view a dense row-major tensor of 16-bit elements: `columns`
// contiguous elements innermost, then the `middle` dimensions (none for a
// matrix; an NHWC image's width and height; a conv weight's taps), then
// `rows` outermost (linear in the batch). Boxes have 64 columns (the
// 128-byte swizzle's span), or 8 without swizzle, and traverse each outer dimension with a stride
// (`elementStrides`, a strided conv's step); elements outside the tensor
// read as zeros. Shared by the plan writer (compiler/) and reader
// (runtime/), and encoded in one place (`encodingAt`) for the driver and the
// emulation alike.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_TENSORMAPDESC_H
#define FUSEC_SUPPORT_TENSORMAPDESC_H

#include "support/BatchLinear.h"

#include <cstdint>
#include <vector>

namespace fusec {

struct TensorMapDesc {
  static constexpr uint32_t kMaxRank = 4;

  /// The tensor's buffer: a position in the kernel's buffers (inputs, then
  /// outputs).
  uint32_t buffer = 0;
  /// bf16 elements rather than f16.
  bool bf16 = false;
  /// The outermost dimension, at the launch's batch.
  BatchLinear rows;
  /// The innermost dimension: contiguous elements, a multiple of 8 (TMA
  /// strides are multiples of 16 bytes).
  int64_t columns = 0;
  /// The dimensions between columns and rows, innermost first; each
  /// dimension's stride is the product of those inside it.
  std::vector<int64_t> middle;
  /// The box one copy traverses, one size per dimension, innermost first:
  /// 64 columns (8 without swizzle), then up to 256 along each other
  /// dimension.
  std::vector<uint32_t> box = {64, 64};
  /// The shared-memory swizzle: 128 (bytes, the span of a 64-column box),
  /// or 0, none: a box 8 columns (16 bytes) wide landing as the unswizzled
  /// K-major layout's core matrices (the Hopper conv's 8-channel taps).
  uint32_t swizzleBytes = kSwizzleBytes;
  /// The traversal stride of each dimension (innermost first, the first 1),
  /// in [1, 8]; empty: all 1. With a stride s a box of b loads ceil(b / s)
  /// elements, s apart.
  std::vector<uint32_t> elementStrides;

  static constexpr int64_t kElementBytes = 2;
  static constexpr uint32_t kSwizzleBytes = 128;

  /// A rank-2 map: `rows` of `columns`, boxes of 64 columns by `boxRows`.
  static TensorMapDesc matrix(uint32_t buffer, bool bf16, BatchLinear rows, int64_t columns, uint32_t boxRows) {
    TensorMapDesc map;
    map.buffer = buffer;
    map.bf16 = bf16;
    map.rows = rows;
    map.columns = columns;
    map.box = {64, boxRows};
    return map;
  }

  uint32_t rank() const { return uint32_t(2 + middle.size()); }
  uint32_t elementStride(uint32_t d) const { return elementStrides.empty() ? 1 : elementStrides[d]; }
  /// The elements a box holds along dimension `d`.
  uint32_t boxElements(uint32_t d) const { return (box[d] + elementStride(d) - 1) / elementStride(d); }
  /// The bytes one box brings to shared memory (out-of-bounds elements
  /// included): what its copy completes on the mbarrier.
  int64_t boxBytes() const {
    int64_t bytes = kElementBytes;
    for (uint32_t d = 0; d < rank(); ++d)
      bytes *= boxElements(d);
    return bytes;
  }

  /// cuTensorMapEncodeTiled's arguments for this map at `batch`.
  struct Encoding {
    uint32_t rank = 0;
    uint64_t dims[kMaxRank] = {};
    uint64_t strides[kMaxRank - 1] = {}; // bytes, dimensions 1..rank-1
    uint32_t box[kMaxRank] = {};
    uint32_t elementStrides[kMaxRank] = {};
  };
  Encoding encodingAt(int64_t batch) const {
    Encoding encoding;
    encoding.rank = rank();
    uint64_t stride = uint64_t(kElementBytes);
    for (uint32_t d = 0; d < encoding.rank; ++d) {
      encoding.dims[d] = uint64_t(d == 0 ? columns : d == encoding.rank - 1 ? rows.at(batch) : middle[d - 1]);
      if (d > 0)
        encoding.strides[d - 1] = stride;
      stride *= encoding.dims[d];
      encoding.box[d] = box[d];
      encoding.elementStrides[d] = elementStride(d);
    }
    return encoding;
  }

  friend bool operator==(const TensorMapDesc &a, const TensorMapDesc &b) {
    return a.buffer == b.buffer && a.bf16 == b.bf16 && a.rows == b.rows && a.columns == b.columns &&
           a.middle == b.middle && a.box == b.box && a.swizzleBytes == b.swizzleBytes &&
           a.elementStrides == b.elementStrides;
  }
};

} // namespace fusec

#endif // FUSEC_SUPPORT_TENSORMAPDESC_H
