//===- OutlineSuperkernels.cpp - One fuse.superkernel per group -----------===//
#include "passes/FusionGraph.h"
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/NodeNames.h"
#include "ir/OpClassification.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace fusec {
#define GEN_PASS_DEF_OUTLINESUPERKERNELS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// True for a view an attention kernel reads or writes through: addressing,
/// not computation, so it does not name the kernel.
bool isAddressing(Operation *op) {
  auto rule = op->getAttrOfType<StringAttr>(fusec::kFusedByAttr);
  return rule && rule.getValue() == "attention-views";
}

/// "conv_bn_add_relu__layer1_0_conv2": what the kernel computes (folded ops
/// included) and its first member's node name, so profiler traces map back to
/// the model. The pass prefixes "sk<index>_" in execution order.
std::string kernelName(ArrayRef<Operation *> members) {
  std::string what;
  Operation *first = nullptr;
  for (Operation *op : members) {
    if (isAddressing(op))
      continue;
    first = first ? first : op;
    SmallVector<StringRef> parts;
    auto folded = op->getAttrOfType<ArrayAttr>(fusec::kFoldedAttr);
    if (folded)
      for (auto name : folded.getAsValueRange<StringAttr>())
        if (name == "pad")
          parts.push_back(name);
    parts.push_back(op->getName().stripDialect());
    if (folded)
      for (auto name : folded.getAsValueRange<StringAttr>())
        if (name != "pad")
          parts.push_back(name);
    for (StringRef part : parts)
      what += (what.empty() ? "" : "_") + part.str();
  }
  if (what.size() > 48)
    what = what.substr(0, 48);
  std::string node = identifierFrom(firstNodeName((first ? first : members.front())->getLoc()));
  return what + (node.empty() ? "" : "__" + node);
}

struct OutlineSuperkernelsPass : fusec::impl::OutlineSuperkernelsBase<OutlineSuperkernelsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Block &body = func.getBody().front();
    // Groups in order of their first member; ungrouped ops are groups of one.
    llvm::MapVector<int64_t, SmallVector<Operation *>> groups;
    int64_t ungrouped = -1;
    for (Operation &op : body) {
      if (llvm::isa<ConstantOp, func::ReturnOp, SuperkernelOp>(op))
        continue;
      auto id = op.getAttrOfType<IntegerAttr>(fusec::kGroupAttr);
      groups[id ? id.getInt() : ungrouped--].push_back(&op);
    }
    SmallVector<SuperkernelOp> created;
    for (auto &entry : groups)
      created.push_back(outline(entry.second));
    if (!sortTopologically(&body)) {
      func.emitError() << "outlining created a cycle between superkernels";
      return signalPassFailure();
    }
    // Number the new kernels in execution order; superkernels that were
    // already in the input keep their names.
    llvm::SmallPtrSet<Operation *, 16> isNew;
    for (SuperkernelOp superkernel : created)
      isNew.insert(superkernel);
    llvm::StringSet<> taken;
    for (auto superkernel : body.getOps<SuperkernelOp>())
      if (!isNew.contains(superkernel))
        taken.insert(superkernel.getSymName());
    unsigned index = 0;
    for (auto superkernel : body.getOps<SuperkernelOp>()) {
      if (!isNew.contains(superkernel)) {
        ++index;
        continue;
      }
      std::string name;
      do
        name = "sk" + std::to_string(index++) + "_" + superkernel.getSymName().str();
      while (taken.contains(name));
      taken.insert(name);
      superkernel.setSymName(name);
    }
  }

  SuperkernelOp outline(ArrayRef<Operation *> members) {
    llvm::SmallPtrSet<Operation *, 8> inGroup(members.begin(), members.end());
    llvm::SetVector<Value> inputs;
    SmallVector<Value> outputs;
    for (Operation *op : members) {
      for (Value operand : op->getOperands())
        if (!inGroup.contains(operand.getDefiningOp()))
          inputs.insert(operand);
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) { return !inGroup.contains(user); }))
          outputs.push_back(result);
    }
    Operation *core = kernelCore(members);

    Operation *last = members.back();
    OpBuilder builder(last->getContext());
    builder.setInsertionPointAfter(last);
    SmallVector<Location> locs;
    for (Operation *op : members)
      locs.push_back(op->getLoc());
    Location loc = builder.getFusedLoc(locs);
    StringRef kind = core ? kernelKindName(classifyOp(core)) : "elementwise";
    auto superkernel = builder.create<SuperkernelOp>(
        loc, ValueRange(outputs).getTypes(), inputs.getArrayRef(), builder.getStringAttr(kernelName(members)),
        builder.getStringAttr(kind), members.front()->getAttrOfType<DictionaryAttr>(fusec::kKernelCostAttr),
        /*config=*/nullptr, /*variants=*/nullptr, /*library=*/nullptr, /*library_default=*/nullptr,
        /*no_library=*/nullptr);

    Block *block = builder.createBlock(&superkernel.getBody());
    IRMapping mapping;
    for (Value input : inputs)
      mapping.map(input, block->addArgument(input.getType(), input.getLoc()));
    for (Operation *op : members) {
      Operation *clone = builder.clone(*op, mapping);
      clone->removeAttr(fusec::kGroupAttr);
      clone->removeAttr(fusec::kKernelCostAttr);
    }
    SmallVector<Value> yielded;
    for (Value output : outputs)
      yielded.push_back(mapping.lookup(output));
    builder.create<YieldOp>(loc, yielded);

    for (auto [output, result] : llvm::zip(outputs, superkernel.getResults()))
      output.replaceUsesWithIf(result, [&](OpOperand &use) { return !inGroup.contains(use.getOwner()); });
    for (Operation *op : llvm::reverse(members))
      op->erase();
    ++numSuperkernels;
    return superkernel;
  }
};

} // namespace
