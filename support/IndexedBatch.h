//===- IndexedBatch.h - The largest batch generated kernels index -*- C++ -*-===//
//
// Generated kernels keep some index math in 32 bits (a GEMM's row index, a
// convolution's output pixel over the batch; docs/codegen.md, "Index math").
// The compiler admits a template only if that math holds at this batch, and
// the runtime refuses larger batches, so no run indexes past what its
// kernels were checked for. It is far above any batch bucket a plan is
// built for.
//
// Plain C++ with no dependencies: part of fusec_support.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SUPPORT_INDEXEDBATCH_H
#define FUSEC_RUNTIME_SUPPORT_INDEXEDBATCH_H

#include <cstdint>

namespace fusec {

/// The largest batch a plan runs at: its kernels' 32-bit index math is
/// checked at this batch.
inline constexpr int64_t kLargestIndexedBatch = int64_t(1) << 16;

} // namespace fusec

#endif // FUSEC_RUNTIME_SUPPORT_INDEXEDBATCH_H
