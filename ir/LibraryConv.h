//===- LibraryConv.h - Which fused convolutions a vendor library computes -*- C++ -*-===//
//
// A conv superkernel whose body is one 2-D convolution (with its folded
// bias) followed by what cuDNN's fused convolution graphs compute (a bias
// per output channel, a residual of the output's shape, then ReLU, and
// casts) can run as one cuDNN call: a library variant beside its generated
// kernel (docs/fusion.md "Library variants"). As ir/LibraryMatmul.h for
// products, this answers in one place, for the pass that decides and the
// plan writer that writes the call, whether a kernel can and what the call
// is (support/LibraryConv.h), or why it cannot.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_LIBRARYCONV_H
#define FUSEC_IR_LIBRARYCONV_H

#include "ir/FuseOps.h"

#include "support/LibraryConv.h"

#include <optional>
#include <string>

namespace fusec::fuse {

/// `conv` when the kernel can run as a library convolution, else the reason
/// it cannot ("'max_pool' in the epilogue").
struct LibraryConvMatch {
  std::optional<LibraryConv> conv;
  std::string reason;
};

/// The library convolution computing `kernel` (a conv superkernel; its
/// #fuse.config, when set, gives the precision of an f32 convolution).
/// Operand positions are the kernel's operands, then its results, as the
/// plan lists a kernel's buffers.
LibraryConvMatch matchLibraryConv(SuperkernelOp kernel);

} // namespace fusec::fuse

#endif // FUSEC_IR_LIBRARYCONV_H
