//===- OpClassification.cpp - What kind of kernel an op needs -------------===//
#include "ir/OpClassification.h"
#include "ir/FuseOps.h"

#include "llvm/ADT/DenseMap.h"

namespace fusec::fuse {

namespace {
template <typename... Ops> void classify(llvm::DenseMap<mlir::TypeID, OpClass> &table, OpClass opClass) {
  (table.try_emplace(mlir::TypeID::get<Ops>(), opClass), ...);
}

/// The planner classifies ops many times per candidate; one hash lookup on
/// the op's TypeID is much cheaper than a chain of isa<> checks.
const llvm::DenseMap<mlir::TypeID, OpClass> &classTable() {
  static const llvm::DenseMap<mlir::TypeID, OpClass> table = [] {
    llvm::DenseMap<mlir::TypeID, OpClass> t;
    classify<ConvOp>(t, OpClass::Conv);
    classify<GemmOp, MatMulOp>(t, OpClass::Gemm);
    classify<CastOp, ReluOp, SigmoidOp, TanhOp, ErfOp, SqrtOp, GeluOp, ClipOp, AddOp, SubOp, MulOp, DivOp, PowOp,
             BatchNormOp>(t, OpClass::Elementwise);
    classify<NegOp, ExpOp, LogOp, AbsOp, ReciprocalOp, LeakyReluOp, HardSigmoidOp, HardSwishOp, MinOp, MaxOp, ModOp,
             PReluOp>(t, OpClass::Elementwise);
    classify<FloorOp, CeilOp, RoundOp, SignOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp,
             AcoshOp, AtanhOp>(t, OpClass::Elementwise);
    classify<EqualOp, LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp, NotOp, AndOp, OrOp, XorOp, WhereOp, TriluOp>(
        t, OpClass::Elementwise);
    classify<SoftmaxOp, LayerNormOp, ReduceMeanOp, GlobalAveragePoolOp>(t, OpClass::Reduction);
    classify<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceSumSquareOp, ReduceL1Op, ReduceL2Op,
             ReduceLogSumOp, ArgMaxOp, ArgMinOp>(t, OpClass::Reduction);
    classify<MaxPoolOp, AveragePoolOp>(t, OpClass::Pool);
    classify<PadOp, ReshapeOp, FlattenOp, TransposeOp, ConcatOp, SliceOp, GatherOp, GatherElementsOp, ExpandOp,
             ResizeOp>(t, OpClass::DataMovement);
    classify<AttentionOp>(t, OpClass::Attention);
    return t;
  }();
  return table;
}
} // namespace

OpClass classifyOp(mlir::Operation *op) {
  auto it = classTable().find(op->getName().getTypeID());
  return it == classTable().end() ? OpClass::Other : it->second;
}

TemplateFusion templateFusion(OpClass coreClass) {
  TemplateFusion fusion;
  fusion.prologue = coreClass == OpClass::Reduction || coreClass == OpClass::Elementwise;
  fusion.epilogue = coreClass != OpClass::DataMovement && coreClass != OpClass::Other;
  return fusion;
}

mlir::Operation *kernelCore(llvm::ArrayRef<mlir::Operation *> ops) {
  mlir::Operation *firstMove = nullptr;
  for (mlir::Operation *op : ops) {
    OpClass opClass = classifyOp(op);
    if (opClass == OpClass::DataMovement && !firstMove)
      firstMove = op;
    else if (opClass != OpClass::DataMovement && opClass != OpClass::Elementwise && opClass != OpClass::Other)
      return op;
  }
  return firstMove;
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
