//===- OpClassification.cpp - What kind of kernel an op needs -------------===//
#include "ir/OpClassification.h"
#include "ir/FuseOps.h"

namespace fusec::fuse {

OpClass classifyOp(mlir::Operation *op) {
  if (auto facts = llvm::dyn_cast<OpFactsInterface>(op))
    return facts.getKernelClass();
  return OpClass::Other;
}

TemplateFusion templateFusion(OpClass coreClass) {
  TemplateFusion fusion;
  fusion.prologue = coreClass == OpClass::Reduction || coreClass == OpClass::Elementwise;
  fusion.epilogue = coreClass != OpClass::DataMovement && coreClass != OpClass::Other;
  return fusion;
}

mlir::Operation *kernelCore(llvm::ArrayRef<mlir::Operation *> ops) {
  mlir::Operation *firstMove = nullptr, *core = nullptr;
  for (mlir::Operation *op : ops) {
    OpClass opClass = classifyOp(op);
    if (opClass == OpClass::DataMovement && !firstMove)
      firstMove = op;
    else if (opClass != OpClass::DataMovement && opClass != OpClass::Elementwise && opClass != OpClass::Other) {
      // A depthwise conv computing a LayerNorm's input is that norm's
      // prologue (rule conv-into-norm): the norm decides the template.
      if (core && !(classifyOp(core) == OpClass::Conv && opClass == OpClass::Reduction))
        return core;
      core = op;
    }
  }
  return core ? core : firstMove;
}

llvm::StringRef kernelKindName(OpClass opClass) {
  switch (opClass) {
  case OpClass::Conv:
    return "conv";
  case OpClass::Gemm:
    return "gemm";
  case OpClass::Elementwise:
    return "elementwise";
  case OpClass::Reduction:
    return "reduction";
  case OpClass::Pool:
    return "pool";
  case OpClass::DataMovement:
    return "data_movement";
  case OpClass::Attention:
    return "attention";
  case OpClass::Other:
    return "other";
  }
  llvm_unreachable("unknown op class");
}

} // namespace fusec::fuse
