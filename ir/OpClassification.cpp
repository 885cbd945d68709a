//===- OpClassification.cpp - What kind of kernel an op needs -------------===//
#include "ir/OpClassification.h"
#include "ir/FuseOps.h"

#include "llvm/ADT/TypeSwitch.h"

namespace fusec::fuse {

OpClass classifyOp(mlir::Operation *op) {
  return llvm::TypeSwitch<mlir::Operation *, OpClass>(op)
      .Case<ConvOp>([](auto) { return OpClass::Conv; })
      .Case<GemmOp, MatMulOp>([](auto) { return OpClass::Gemm; })
      .Case<ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, GeluOp, ClipOp, AddOp, SubOp, MulOp,
            DivOp, PowOp, BatchNormOp>([](auto) { return OpClass::Elementwise; })
      .Case<SoftmaxOp, LayerNormOp, ReduceMeanOp, GlobalAveragePoolOp>(
          [](auto) { return OpClass::Reduction; })
      .Case<MaxPoolOp, AveragePoolOp>([](auto) { return OpClass::Pool; })
      .Case<PadOp, ReshapeOp, FlattenOp, TransposeOp, ConcatOp>(
          [](auto) { return OpClass::DataMovement; })
      .Default([](auto) { return OpClass::Other; });
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
  case OpClass::Other:
    return "other";
  }
  llvm_unreachable("unknown op class");
}

} // namespace fusec::fuse
