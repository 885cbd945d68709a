//===- FormDataMovementChains.cpp - One kernel per chain of data movement -===//
//
// Exporters spell a change of layout as several ops: a fused QKV projection
// becomes Split -> Reshape -> Transpose per head tensor, an attention output
// Transpose -> Reshape. Each is a kernel that reads and writes the whole
// tensor; chained, they are one kernel whose generated code maps every
// output element through the chain (codegen's emitDataMovement). The
// planner never merges data-movement groups, so the chains are formed here,
// as rule patterns, before it runs.
//
//===----------------------------------------------------------------------===//
#include "passes/FusionAttributes.h"
#include "passes/Passes.h"

#include "ir/FuseOps.h"
#include "ir/OpClassification.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace fusec {
#define GEN_PASS_DEF_FORMDATAMOVEMENTCHAINS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;

namespace {

bool movesData(Operation *op) { return fusec::fuse::classifyOp(op) == fusec::fuse::OpClass::DataMovement; }

struct FormDataMovementChainsPass : fusec::impl::FormDataMovementChainsBase<FormDataMovementChainsPass> {
  using FormDataMovementChainsBase::FormDataMovementChainsBase;

  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    int64_t nextGroup = fusec::nextFreeGroupId(body);
    const int64_t firstChain = nextGroup;

    // Members of each chain formed here, so that two chains meeting at a
    // Concat can become one.
    llvm::DenseMap<int64_t, SmallVector<Operation *>> members;
    auto chainOf = [&](Operation *op) -> int64_t {
      auto id = op->getAttrOfType<IntegerAttr>(fusec::kGroupAttr);
      return id ? id.getInt() : -1;
    };
    Builder builder(&getContext());
    auto join = [&](Operation *op, int64_t chain) {
      op->setAttr(fusec::kGroupAttr, builder.getI64IntegerAttr(chain));
      op->setAttr(fusec::kFusedByAttr, builder.getStringAttr("data-movement-chain"));
      members[chain].push_back(op);
    };
    for (Operation &op : body) {
      if (!movesData(&op) || op.getNumResults() != 1 || !op.getResult(0).hasOneUse())
        continue;
      // A Concat stored in place costs nothing; merged with its user, it
      // could not be (its operands would have no buffer to write into).
      if (concatsInPlace && llvm::isa<fusec::fuse::ConcatOp>(op))
        continue;
      Operation *user = *op.getResult(0).getUsers().begin();
      if (user->getBlock() != &body || !movesData(user))
        continue;
      int64_t producerChain = chainOf(&op), userChain = chainOf(user);
      // Groups that other rule patterns formed stay as they are.
      if ((producerChain >= 0 && producerChain < firstChain) || (userChain >= 0 && userChain < firstChain))
        continue;
      if (producerChain < 0 && userChain < 0) {
        join(&op, nextGroup);
        join(user, nextGroup++);
      } else if (producerChain < 0) {
        join(&op, userChain);
      } else if (userChain < 0) {
        join(user, producerChain);
      } else if (producerChain != userChain) {
        // Two chains meet at the user (Concat): one kernel for both. The
        // members move out first: join() writes into the map.
        SmallVector<Operation *> moved = std::move(members[producerChain]);
        members.erase(producerChain);
        for (Operation *member : moved)
          join(member, userChain);
      }
    }
    numChains += members.size();
    for (auto &entry : members)
      numChainedOps += entry.second.size();
  }
};

} // namespace
