//===- LibraryCall.cpp - The library call that computes a fused kernel ----===//

#include "ir/LibraryCall.h"

#include "ir/LibraryConv.h"
#include "ir/LibraryMatmul.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"

namespace fusec::fuse {

LibraryCallMatch matchLibraryCall(SuperkernelOp kernel) {
  LibraryCallMatch match;
  // A library call stores a contiguous result and reads contiguous
  // operands (fuse-place-concats decides the views before the variants).
  for (mlir::Value result : kernel.getResults())
    if (sliceViewOf(result)) {
      match.reason = "stores its result into a concatenation in place";
      return match;
    }
  for (mlir::Value operand : kernel.getOperands())
    if (sliceViewOf(operand)) {
      match.reason = "reads a slice of a concatenation in place";
      return match;
    }
  // A library call's sizes are fixed in the plan, but for the batch.
  llvm::SmallVector<mlir::Type> types(kernel->getOperandTypes());
  llvm::append_range(types, kernel->getResultTypes());
  for (mlir::Type type : types)
    if (llvm::SmallVector<std::string> ranges = namedSymbolsOf(type); !ranges.empty()) {
      match.reason = "its dimension '" + ranges.front() + "' runs over a range, and a library call's sizes are fixed";
      return match;
    }
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
