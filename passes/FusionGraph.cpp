//===- FusionGraph.cpp - Ops partitioned into candidate kernels -----------===//
#include "passes/FusionGraph.h"

#include "ir/FuseOps.h"
#include "ir/NodeNames.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace mlir;

namespace fusec {

namespace {
bool isComputeOp(Operation &op) { return !llvm::isa<fuse::ConstantOp, func::ReturnOp>(op); }

/// Sorts `ids` and drops repeats.
template <typename T> std::vector<T> sortedUnique(std::vector<T> ids) {
  llvm::sort(ids);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

ArrayRef<int64_t> resultShape(Operation *op) {
  return llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape();
}
} // namespace

FusionGraph::FusionGraph(func::FuncOp func, const CostModel &costModel, std::vector<std::string> disabledRules)
    : func(func), costModel(costModel), disabledRules(std::move(disabledRules)) {
  llvm::DenseMap<int64_t, int> existing;
  size_t index = 0;
  for (Operation &op : func.getBody().front()) {
    if (!isComputeOp(op))
      continue;
    indexOfOp[&op] = index;
    int id;
    auto preformed = op.getAttrOfType<IntegerAttr>(kGroupAttr);
    auto it = preformed ? existing.find(preformed.getInt()) : existing.end();
    if (it != existing.end()) {
      id = it->second;
    } else {
      id = groupList.size();
      groupList.push_back({});
      groupList.back().id = id;
      groupList.back().firstIndex = index;
      if (preformed)
        existing[preformed.getInt()] = id;
    }
    FusionGroup &group = groupList[id];
    group.ops.push_back(&op);
    group.lastIndex = index;
    groupOfOp[&op] = id;
    ++index;
  }
  for (FusionGroup &group : groupList)
    group.core = fuse::kernelCore(group.ops);
}

int FusionGraph::groupOf(Operation *op) const {
  auto it = groupOfOp.find(op);
  return it == groupOfOp.end() ? -1 : it->second;
}

std::vector<int> FusionGraph::producers(int id) const {
  std::vector<int> result;
  for (Operation *op : groupList[id].ops)
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp()) {
        int other = groupOf(producer);
        if (other >= 0 && other != id)
          result.push_back(other);
      }
  return sortedUnique(std::move(result));
}

std::vector<int> FusionGraph::consumers(int id) const {
  std::vector<int> result;
  for (Operation *op : groupList[id].ops)
    for (Operation *user : op->getUsers()) {
      int other = groupOf(user);
      if (other >= 0 && other != id)
        result.push_back(other);
    }
  return sortedUnique(std::move(result));
}

std::vector<std::pair<int, int>> FusionGraph::siblingPairs() const {
  std::vector<std::pair<int, int>> pairs;
  auto visit = [&](Value value) {
    std::vector<int> readers;
    for (Operation *user : value.getUsers()) {
      int id = groupOf(user);
      if (id >= 0)
        readers.push_back(id);
    }
    readers = sortedUnique(std::move(readers));
    for (size_t i = 0; i < readers.size(); ++i)
      for (size_t j = i + 1; j < readers.size(); ++j)
        pairs.push_back({readers[i], readers[j]});
  };
  for (BlockArgument arg : func.getArguments())
    visit(arg);
  // Weights are not visited: sharing one is no reason to fuse.
  for (Operation &op : func.getBody().front())
    if (isComputeOp(op))
      for (Value result : op.getResults())
        visit(result);
  return sortedUnique(std::move(pairs));
}

std::vector<int> FusionGraph::siblingsOf(int id) const {
  std::vector<int> result;
  for (Operation *op : groupList[id].ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      // Computed inside the group, or a weight: sharing a weight saves no
      // activation traffic worth a merge.
      if (producer && (groupOf(producer) == id || llvm::isa<fuse::ConstantOp>(producer)))
        continue;
      for (Operation *user : operand.getUsers()) {
        int other = groupOf(user);
        if (other >= 0 && other != id)
          result.push_back(other);
      }
    }
  return sortedUnique(std::move(result));
}

bool FusionGraph::reaches(int from, int to, int excluded) const {
  // Any group on a path into `to` has an op before `to`'s last op, which
  // bounds the search.
  size_t limit = groupList[to].lastIndex;
  std::vector<int> stack;
  llvm::DenseSet<int> seen;
  for (int next : consumers(from))
    if (next != excluded)
      stack.push_back(next);
  while (!stack.empty()) {
    int current = stack.back();
    stack.pop_back();
    if (current == to)
      return true;
    if (groupList[current].firstIndex > limit || !seen.insert(current).second)
      continue;
    for (int next : consumers(current))
      stack.push_back(next);
  }
  return false;
}

std::string FusionGraph::ruleFor(const FusionGroup &producer, const FusionGroup &consumer, bool siblings) const {
  if (siblings)
    return "sibling-fusion";
  const FusionGroup &withCore = producer.core ? producer : consumer;
  if (!withCore.core)
    return "elementwise-fusion";
  auto opClass = fuse::classifyOp(withCore.core);
  if (opClass == fuse::OpClass::Conv || opClass == fuse::OpClass::Gemm || opClass == fuse::OpClass::Attention)
    return "epilogue-fusion";
  return "reduction-fusion";
}

bool FusionGraph::isOutlined(int id) const {
  return llvm::any_of(groupList[id].ops, [](Operation *op) { return llvm::isa<fuse::SuperkernelOp>(op); });
}

namespace {
/// Whether every op of `producer` feeds `consumer`'s core, directly or
/// through other ops of the two groups.
bool allFeedCore(const FusionGroup &producer, const FusionGroup &consumer) {
  llvm::SmallPtrSet<Operation *, 16> members(producer.ops.begin(), producer.ops.end());
  llvm::SmallPtrSet<Operation *, 16> inGroups(members), feeding;
  inGroups.insert(consumer.ops.begin(), consumer.ops.end());
  SmallVector<Value> worklist(consumer.core->getOperands().begin(), consumer.core->getOperands().end());
  size_t reached = 0;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || !inGroups.contains(op) || !feeding.insert(op).second)
      continue;
    reached += members.contains(op) ? 1 : 0;
    worklist.append(op->getOperands().begin(), op->getOperands().end());
  }
  return reached == members.size();
}
} // namespace

Legality FusionGraph::checkKinds(const FusionGroup &producer, const FusionGroup &consumer) const {
  for (const FusionGroup *group : {&producer, &consumer})
    if (llvm::any_of(group->ops, [](Operation *op) { return llvm::isa<fuse::SuperkernelOp>(op); }))
      return Legality::reject("outlined", "'" + describe(group->id) + "' is already a superkernel");
  std::string rule = ruleFor(producer, consumer, /*siblings=*/false);
  if (llvm::is_contained(disabledRules, rule))
    return Legality::reject("disabled", rule + " is disabled");
  if (producer.ops.size() + consumer.ops.size() > kMaxKernelOps)
    return Legality::reject("kernel-size", "a kernel computes at most " + std::to_string(kMaxKernelOps) + " ops");
  auto coreClass = [](const FusionGroup &group) { return fuse::classifyOp(group.core); };
  if (producer.core && consumer.core)
    return Legality::reject("one-core", "both '" + describe(producer.id) + "' and '" + describe(consumer.id) +
                                            "' have a conv/gemm/pool/reduction/data-movement op");
  for (const FusionGroup *group : {&producer, &consumer})
    if (group->core && !fuse::templateFusion(coreClass(*group)).epilogue) // data movement
      return Legality::reject("data-movement", "'" + describe(group->id) + "' moves data");
  // An attention kernel that stores its result through views
  // (attention-views) computes no tensor of its core's shape to add to.
  if (producer.core && llvm::any_of(producer.ops, [&](Operation *op) {
        return indexOfOp.lookup(op) > indexOfOp.lookup(producer.core) &&
               fuse::classifyOp(op) == fuse::OpClass::DataMovement;
      }))
    return Legality::reject("data-movement", "'" + describe(producer.id) + "' stores its result through a view");
  auto allHaveShape = [](const FusionGroup &group, ArrayRef<int64_t> shape) {
    return llvm::all_of(group.ops, [&](Operation *op) { return resultShape(op) == shape; });
  };
  if (consumer.core) {
    if (!fuse::templateFusion(coreClass(consumer)).prologue)
      return Legality::reject("no-prologue", "'" + describe(consumer.id) + "' reads its inputs through a template");
    // A norm computing its input with a conv (conv-into-norm) reads the
    // conv's operands as they are.
    if (llvm::any_of(consumer.ops, [](Operation *op) { return fuse::classifyOp(op) == fuse::OpClass::Conv; }))
      return Legality::reject("no-prologue", "'" + describe(consumer.id) + "' computes its input with a conv");
    auto input = llvm::cast<RankedTensorType>(consumer.core->getOperand(0).getType()).getShape();
    if (!allHaveShape(producer, input))
      return Legality::reject("iteration-space", "prologue shape differs from the reduction input");
    // The template evaluates what feeds its core at the input's coordinates
    // and everything else after it, at the output's: where the two differ
    // (a reduction that drops or keeps reduced axes), a producer op that
    // does not feed the core (a sibling fused beside the prologue) would be
    // evaluated at the wrong coordinates.
    if (resultShape(consumer.core) != input && !allFeedCore(producer, consumer))
      return Legality::reject("iteration-space", "'" + describe(producer.id) + "' has ops that do not feed '" +
                                                     describe(consumer.id) + "', whose output shape differs");
    return Legality::ok();
  }
  if (producer.core) {
    if (!allHaveShape(consumer, resultShape(producer.core)))
      return Legality::reject("iteration-space", "epilogue shape differs from the kernel output");
    return Legality::ok();
  }
  if (!allHaveShape(consumer, resultShape(producer.ops.front())) ||
      !allHaveShape(producer, resultShape(producer.ops.front())))
    return Legality::reject("iteration-space", "elementwise ops of different shapes");
  return Legality::ok();
}

Legality FusionGraph::checkMerge(int a, int b) const {
  const FusionGroup &first = groupList[a], &second = groupList[b];
  auto feeds = [&](int from, int to) {
    auto next = consumers(from);
    return std::binary_search(next.begin(), next.end(), to);
  };
  bool aFeedsB = feeds(a, b), bFeedsA = feeds(b, a);
  if (aFeedsB && bFeedsA)
    return Legality::reject("cycle", "the groups feed each other");
  if (!aFeedsB && !bFeedsA) {
    if (isOutlined(a) || isOutlined(b))
      return Legality::reject("outlined", "a superkernel that is already outlined stays as it is");
    if (first.core || second.core)
      return Legality::reject("one-core", "only elementwise siblings fuse");
    if (llvm::is_contained(disabledRules, "sibling-fusion"))
      return Legality::reject("disabled", "sibling-fusion is disabled");
    if (first.ops.size() + second.ops.size() > kMaxKernelOps)
      return Legality::reject("kernel-size", "a kernel computes at most " + std::to_string(kMaxKernelOps) + " ops");
    if (reaches(a, b, -1) || reaches(b, a, -1))
      return Legality::reject("cycle", "one sibling depends on the other");
    return checkKinds(first, second);
  }
  int producer = aFeedsB ? a : b, consumer = aFeedsB ? b : a;
  if (reaches(producer, consumer, consumer))
    return Legality::reject("cycle",
                            "'" + describe(producer) + "' reaches '" + describe(consumer) + "' through another kernel");
  return checkKinds(groupList[producer], groupList[consumer]);
}

CostEstimate FusionGraph::costOf(ArrayRef<int> ids) const {
  std::vector<Operation *> ops;
  for (int id : ids)
    ops.insert(ops.end(), groupList[id].ops.begin(), groupList[id].ops.end());
  llvm::sort(ops, [&](Operation *x, Operation *y) { return indexOfOp.lookup(x) < indexOfOp.lookup(y); });
  return costModel.estimateKernel(ops, [&](Operation *op) { return llvm::is_contained(ids, groupOf(op)); });
}

CostEstimate FusionGraph::cost(int id) const {
  if (costCache.size() < groupList.size())
    costCache.resize(groupList.size());
  CachedCost &cached = costCache[id];
  if (cached.version != groupList[id].version) {
    cached.cost = costOf({id});
    cached.version = groupList[id].version;
  }
  return cached.cost;
}
CostEstimate FusionGraph::mergedCost(int a, int b) const { return costOf({a, b}); }

CostEstimate FusionGraph::unfusedCost(int id) const {
  CostEstimate total;
  for (Operation *op : groupList[id].ops)
    total += costModel.estimateUnfused(op);
  return total;
}

double FusionGraph::benefit(int a, int b) const { return cost(a).timeUs + cost(b).timeUs - mergedCost(a, b).timeUs; }

int FusionGraph::merge(int a, int b) {
  // Name the rule on the ops that join, for the report.
  {
    auto next = consumers(a);
    bool aFeedsB = std::binary_search(next.begin(), next.end(), b);
    bool bFeedsA = !aFeedsB && llvm::is_contained(consumers(b), a);
    const FusionGroup &producer = groupList[bFeedsA ? b : a];
    const FusionGroup &consumer = groupList[bFeedsA ? a : b];
    std::string rule = ruleFor(producer, consumer, !aFeedsB && !bFeedsA);
    auto ruleAttr = StringAttr::get(func.getContext(), rule);
    const FusionGroup &joining = consumer.core && !producer.core ? producer : consumer;
    for (Operation *op : joining.ops)
      if (!op->hasAttr(kFusedByAttr))
        op->setAttr(kFusedByAttr, ruleAttr);
  }
  if (groupList[a].ops.size() < groupList[b].ops.size())
    std::swap(a, b);
  FusionGroup &survivor = groupList[a], &absorbed = groupList[b];
  std::vector<Operation *> ops;
  std::merge(survivor.ops.begin(), survivor.ops.end(), absorbed.ops.begin(), absorbed.ops.end(),
             std::back_inserter(ops),
             [&](Operation *x, Operation *y) { return indexOfOp.lookup(x) < indexOfOp.lookup(y); });
  for (Operation *op : absorbed.ops)
    groupOfOp[op] = a;
  survivor.ops = std::move(ops);
  survivor.core = fuse::kernelCore(survivor.ops);
  survivor.firstIndex = std::min(survivor.firstIndex, absorbed.firstIndex);
  survivor.lastIndex = std::max(survivor.lastIndex, absorbed.lastIndex);
  ++survivor.version;
  absorbed.alive = false;
  absorbed.ops.clear();
  ++absorbed.version;
  return a;
}

void FusionGraph::reject(int a, int b, const Legality &why) {
  rejected.push_back({describe(a), describe(b), "illegal", why.rule, why.detail, 0, 0});
}

void FusionGraph::rejectUnprofitable(int a, int b) {
  double fused = mergedCost(a, b).timeUs, unfused = cost(a).timeUs + cost(b).timeUs;
  rejected.push_back({describe(a), describe(b), "unprofitable", "cost-model", "fusing saves no time", fused, unfused});
}

std::string FusionGraph::describe(int id) const {
  std::string text;
  for (Operation *op : groupList[id].ops) {
    if (!text.empty())
      text += "+";
    std::string name = fuse::firstNodeName(op->getLoc());
    text += name.empty() ? op->getName().stripDialect().str() : name;
  }
  return text;
}

void FusionGraph::commit() {
  Builder builder(func.getContext());
  int next = 0;
  for (FusionGroup &group : groupList) {
    if (!group.alive || isOutlined(group.id))
      continue;
    for (Operation *op : group.ops)
      op->setAttr(kGroupAttr, builder.getI64IntegerAttr(next));
    ++next;
  }
}

} // namespace fusec
