//===- LibraryCall.h - The library call that computes a fused kernel -*- C++ -*-===//
//
// One entry point for the pass that adds library variants and the plan
// writer that writes them: a conv superkernel is asked of cuDNN
// (ir/LibraryConv.h), a gemm one of cuBLASLt (ir/LibraryMatmul.h).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_IR_LIBRARYCALL_H
#define FUSEC_IR_LIBRARYCALL_H

#include "ir/FuseOps.h"

#include "support/LibraryConv.h"
#include "support/LibraryMatmul.h"

#include <optional>
#include <string>

namespace fusec::fuse {

/// The library and its call when one computes the kernel (exactly one of
/// `matmul` and `conv` set), else the reason none does.
struct LibraryCallMatch {
  std::string library;
  std::optional<LibraryMatmul> matmul;
  std::optional<LibraryConv> conv;
  std::string reason;

  bool matched() const { return matmul || conv; }
  /// The call's compute mode, and whether its operands are 16-bit.
  LibraryMatmul::Compute compute() const { return matmul ? matmul->compute : conv->compute; }
};

/// The library call computing `kernel`, a superkernel whose core is a
/// convolution or a matrix product.
LibraryCallMatch matchLibraryCall(SuperkernelOp kernel);

} // namespace fusec::fuse

#endif // FUSEC_IR_LIBRARYCALL_H
