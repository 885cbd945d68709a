//===- PlaceConcats.cpp - Concatenations their producers write ------------===//
//
// A concat kernel reads every element of its operands and writes it again.
// When each operand is computed by a kernel that can store it straight into
// its slice of the concatenation's buffer, and each other reader of it can
// read it there, the copy is not needed: the operands become slice views of
// the result (ir/SliceViews.h) and the concat kernel is marked in place. The
// plan writer then gives the views bytes inside the result's buffer and
// emits no kernel for the concat.
//
// Kernels are visited last to first, so that a concatenation that is itself
// an operand of a later one (fuse-chain-concats nests DenseNet's) already
// knows the slice of the later one's buffer it is stored as, and places its
// own operands there.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/SliceViews.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace fusec {
#define GEN_PASS_DEF_PLACECONCATS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// The kernel's one concat, when that is all it computes (of its operands,
/// yielding the result).
ConcatOp onlyConcat(SuperkernelOp kernel) {
  if (kernel.getKind() != "data_movement" || kernel.getNumResults() != 1)
    return {};
  Block &body = kernel.getBody().front();
  auto concat = llvm::dyn_cast<ConcatOp>(body.front());
  if (!concat || concat->getNextNode() != body.getTerminator() ||
      body.getTerminator()->getOperand(0) != concat.getResult())
    return {};
  for (Value operand : concat->getOperands())
    if (!llvm::isa<BlockArgument>(operand))
      return {};
  return concat;
}

bool isReturned(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) { return llvm::isa<func::ReturnOp>(user); });
}

struct PlaceConcatsPass : fusec::impl::PlaceConcatsBase<PlaceConcatsPass> {
  using PlaceConcatsBase::PlaceConcatsBase;

  /// Whether `value` (operand of the concat kernel `concat`) can be stored
  /// as a slice view: computed by a kernel that can store it so, and read
  /// by kernels that can read it so.
  bool canPlace(Value value, SuperkernelOp concat, int64_t axis) const {
    auto producer = value.getDefiningOp<SuperkernelOp>();
    if (!producer || isReturned(value) || sliceViewOf(value))
      return false;
    if (!canStoreToSliceView(producer, target))
      return false;
    for (OpOperand &use : value.getUses()) {
      if (use.getOwner() == concat.getOperation())
        continue;
      auto reader = llvm::dyn_cast<SuperkernelOp>(use.getOwner());
      if (!reader || !canLoadFromSliceView(reader, use.getOperandNumber(), axis, target))
        return false;
    }
    return true;
  }

  void place(SuperkernelOp kernel) {
    ConcatOp concat = onlyConcat(kernel);
    if (!concat)
      return;
    Value result = kernel.getResult(0);
    auto type = llvm::cast<RankedTensorType>(result.getType());
    const int64_t axis = static_cast<int64_t>(concat.getAxis());
    for (int64_t d = axis; d < type.getRank(); ++d)
      if (ShapedType::isDynamic(type.getDimSize(d)))
        return;
    if (isReturned(result))
      return;
    SliceView base{axis, 0, type.getDimSize(axis)};
    if (std::optional<SliceView> outer = sliceViewOf(result)) {
      if (outer->axis != axis)
        return;
      base = *outer;
    }
    SmallVector<Value> operands;
    llvm::SmallPtrSet<Value, 8> seen;
    for (Value operand : concat->getOperands()) {
      Value outside = kernel.getOperand(llvm::cast<BlockArgument>(operand).getArgNumber());
      if (!seen.insert(outside).second || !canPlace(outside, kernel, axis))
        return;
      operands.push_back(outside);
    }
    int64_t offset = base.offset;
    for (Value operand : operands) {
      auto producer = operand.getDefiningOp<SuperkernelOp>();
      setSliceView(producer, llvm::cast<OpResult>(operand).getResultNumber(), {axis, offset, base.extent});
      offset += llvm::cast<RankedTensorType>(operand.getType()).getDimSize(axis);
    }
    kernel->setAttr(kInPlaceAttr, UnitAttr::get(kernel.getContext()));
    ++numInPlace;
  }

  void runOnOperation() override {
    SmallVector<SuperkernelOp> kernels;
    getOperation().walk([&](SuperkernelOp kernel) { kernels.push_back(kernel); });
    for (SuperkernelOp kernel : llvm::reverse(kernels))
      place(kernel);
  }
};

} // namespace
