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
// fusec's maps are 2-D views of a row-major matrix of 16-bit elements: rows
// (the outer dimension, linear in the batch) of `columns` contiguous
// elements, boxes of box[0] columns by box[1] rows with the 128-byte swizzle
// and zero fill outside the matrix. Shared by the plan writer (compiler/)
// and reader (runtime/).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_SUPPORT_TENSORMAPDESC_H
#define FUSEC_SUPPORT_TENSORMAPDESC_H

#include "support/BatchLinear.h"

#include <array>
#include <cstdint>

namespace fusec {

struct TensorMapDesc {
  /// The matrix's buffer: a position in the kernel's buffers (inputs, then
  /// outputs).
  uint32_t buffer = 0;
  /// bf16 elements rather than f16.
  bool bf16 = false;
  /// The outer dimension, at the launch's batch.
  BatchLinear rows;
  /// The inner dimension: contiguous elements per row (and the row stride),
  /// a multiple of 8 (TMA strides are multiples of 16 bytes).
  int64_t columns = 0;
  /// {columns, rows} one copy moves: 64 columns (the 128-byte swizzle span)
  /// by up to 256 rows.
  std::array<uint32_t, 2> box = {64, 64};

  static constexpr int64_t kElementBytes = 2;
  static constexpr uint32_t kSwizzleBytes = 128;

  friend bool operator==(const TensorMapDesc &a, const TensorMapDesc &b) {
    return a.buffer == b.buffer && a.bf16 == b.bf16 && a.rows == b.rows && a.columns == b.columns && a.box == b.box;
  }
};

} // namespace fusec

#endif // FUSEC_SUPPORT_TENSORMAPDESC_H
