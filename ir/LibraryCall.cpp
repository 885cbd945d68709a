//===- LibraryCall.cpp - The library call that computes a fused kernel ----===//

#include "ir/LibraryCall.h"

#include "ir/LibraryConv.h"
#include "ir/LibraryMatmul.h"

namespace fusec::fuse {

LibraryCallMatch matchLibraryCall(SuperkernelOp kernel) {
  LibraryCallMatch match;
  bool hasConv = false;
  for (mlir::Operation &op : kernel.getBody().front())
    hasConv |= llvm::isa<ConvOp>(op);
  if (hasConv) {
    LibraryConvMatch conv = matchLibraryConv(kernel);
    match.library = kCudnnLibrary;
    match.conv = conv.conv;
    match.reason = conv.reason;
  } else {
    LibraryMatmulMatch matmul = matchLibraryMatmul(kernel);
    match.library = kCublasLtLibrary;
    match.matmul = matmul.matmul;
    match.reason = matmul.reason;
  }
  return match;
}

} // namespace fusec::fuse
