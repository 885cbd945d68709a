//===- CopyKernelReasons.cpp - Why a copy kernel stays --------------------===//
#include "compiler/CopyKernelReasons.h"

#include "ir/SliceViews.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace fusec {
namespace {

/// The kernel input a body block argument stands for.
Value kernelInput(fuse::SuperkernelOp kernel, Value value) {
  auto argument = llvm::dyn_cast<BlockArgument>(value);
  return argument ? kernel.getInputs()[argument.getArgNumber()] : Value();
}

/// What each kind of consumer reads, and why it cannot read this copy's
/// input in place instead.
std::string consumerReason(fuse::SuperkernelOp consumer) {
  const std::string name = consumer.getSymName().str(), kind = consumer.getKind().str();
  if (kind == "conv" || kind == "gemm")
    return "its consumer " + name + " (" + kind +
           ") reads this operand dense: the conv and GEMM templates load no permuted or gathered operand (a GEMM "
           "reads A as rows of another tensor, operand-views; a conv a channel slice of a concatenation)";
  if (kind == "attention")
    return "its consumer " + name +
           " (attention) reads Q, K and V through views with contiguous rows only, and this is not one "
           "(ir/StridedView.h)";
  return "its consumer " + name + " (" + kind +
         ") reads its operands dense or broadcast: generated element-wise, reduction and pooling kernels load no "
         "permuted or sliced operand";
}

} // namespace

std::string copyKernelReason(fuse::SuperkernelOp kernel) {
  if (kernel.getKind() != "data_movement" || fuse::isInPlace(kernel) || fuse::isAlias(kernel))
    return "";
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (llvm::isa<fuse::GatherOp, fuse::GatherElementsOp>(op)) {
      Value indices = kernelInput(kernel, op.getOperand(1));
      if (!indices || !indices.getDefiningOp<fuse::ConstantOp>())
        return "it selects elements by indices known at run time (an embedding lookup): what it reads depends on "
               "the data, so no consumer can load it as an addressing pattern";
    }
    if (llvm::isa<fuse::PadOp>(op))
      return "it writes padding values (only a zero pad of a conv's spatial axes folds into the conv: "
             "fold-pad-into-conv)";
    if (llvm::isa<fuse::ResizeOp>(op))
      return "it interpolates: each element is computed from several inputs";
    if (llvm::isa<fuse::ConcatOp>(op))
      return "a concatenation not made in place: an operand is a graph input, a constant or read twice, or its "
             "producer cannot store into a slice for this target (concat-in-place)";
  }
  for (Value result : kernel.getResults())
    for (Operation *user : result.getUsers()) {
      if (llvm::isa<func::ReturnOp>(user))
        return "its result is a graph output, which is stored dense";
      if (auto consumer = llvm::dyn_cast<fuse::SuperkernelOp>(user))
        return consumerReason(consumer);
    }
  for (Value input : kernel.getInputs())
    if (llvm::isa<BlockArgument>(input))
      return "it reads a graph input, which no kernel aliases (reshape-in-place)";
  return "no consumer reads its input in place";
}

} // namespace fusec
