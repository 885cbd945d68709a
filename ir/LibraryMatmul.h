//===- LibraryMatmul.h - Which fused GEMMs a vendor library computes -*- C++ -*-===//
//
// A gemm superkernel whose body is one matrix product followed by what a
// library epilogue does (a bias along the output's columns, a residual of
// the output's shape, then ReLU or tanh-GELU) can run as one cuBLASLt call:
// a library variant beside its generated kernel (docs/fusion.md "Library
// variants"). This answers, in one place for the pass that decides and the
// plan writer that writes the call, whether a kernel can and what the call
// is (support/LibraryMatmul.h), or why it cannot.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_LIBRARYMATMUL_H
#define FUSEC_IR_LIBRARYMATMUL_H

#include "ir/FuseOps.h"

#include "support/LibraryMatmul.h"

#include <optional>
#include <string>

namespace fusec::fuse {

/// `matmul` when the kernel can run as a library matmul, else the reason it
/// cannot ("the residual is added after the activation").
struct LibraryMatmulMatch {
  std::optional<LibraryMatmul> matmul;
  std::string reason;
};

/// The library matmul computing `kernel` (a conv or gemm superkernel; its
/// #fuse.config, when set, gives the precision of an f32 product). Operand
/// positions are the kernel's operands, then its results, as the plan lists
/// a kernel's buffers.
LibraryMatmulMatch matchLibraryMatmul(SuperkernelOp kernel);

} // namespace fusec::fuse

#endif // FUSEC_IR_LIBRARYMATMUL_H
