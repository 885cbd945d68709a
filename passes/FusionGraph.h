//===- FusionGraph.h - Ops partitioned into candidate kernels --*- C++ -*-===//
//
// The planner's working state: every compute op of a function belongs to one
// group (a future kernel). Strategies ask which merges are legal and what
// they save, and merge groups; the result is written back as `fuse.group`
// attributes for OutlineSuperkernels.
//
// Legality rules (each has a name, reported when it rejects a merge):
//   cycle            - the merge would make a group both feed and consume another
//   one-core         - at most one conv/gemm/pool/reduction/data-movement op per kernel
//   no-prologue      - conv, gemm and pool inputs are read by their templates: only
//                      reductions take fused elementwise producers
//   data-movement    - pad/reshape/transpose/concat kernels stay alone, and an
//                      attention kernel that stores through views takes no epilogue
//   outlined         - a fuse.superkernel already in the input stays as it is
//   kernel-size      - at most kMaxKernelOps ops per kernel (register pressure,
//                      compile time, and linear planning time)
//   iteration-space  - fused elementwise ops compute the shape of the kernel's
//                      core output (epilogue), core input (prologue) or, without
//                      a core, one common shape
// Intermediate values read outside their group, or returned, are written to
// memory by the group (materialized); nothing is dropped or duplicated.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PASSES_FUSIONGRAPH_H
#define FUSEC_PASSES_FUSIONGRAPH_H

#include "passes/FusionAttributes.h"
#include "passes/cost/CostModel.h"

#include "ir/OpClassification.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>
#include <vector>

namespace fusec {

/// The most ops one kernel computes.
inline constexpr size_t kMaxKernelOps = 64;

struct FusionGroup {
  int id = 0;
  /// Members in program order.
  std::vector<mlir::Operation *> ops;
  /// The op that decides the kernel template, if any (conv, gemm, ...).
  mlir::Operation *core = nullptr;
  bool alive = true;
  /// Bumped on every merge, so queued candidates can tell they are stale.
  unsigned version = 0;
  size_t firstIndex = 0, lastIndex = 0;
};

struct Legality {
  bool legal = true;
  std::string rule;
  std::string detail;
  static Legality ok() { return {}; }
  static Legality reject(std::string rule, std::string detail) { return {false, std::move(rule), std::move(detail)}; }
};

/// A merge the planner did not make, for the fusion report.
struct RejectedFusion {
  std::string first, second;
  /// "illegal" or "unprofitable".
  std::string reason;
  std::string rule;
  std::string detail;
  double fusedUs = 0, unfusedUs = 0;
};

class FusionGraph {
public:
  /// `disabledRules` names rules (elementwise-fusion, epilogue-fusion,
  /// reduction-fusion, sibling-fusion) whose merges are rejected.
  FusionGraph(mlir::func::FuncOp func, const CostModel &costModel, std::vector<std::string> disabledRules = {});

  const std::vector<FusionGroup> &groups() const { return groupList; }
  const FusionGroup &group(int id) const { return groupList[id]; }
  int groupOf(mlir::Operation *op) const;

  /// Groups that feed `id` / that `id` feeds (distinct, sorted).
  std::vector<int> producers(int id) const;
  std::vector<int> consumers(int id) const;
  /// Pairs of groups that read a common value without depending on each other
  /// directly (candidates for sibling fusion), each pair once, first < second.
  std::vector<std::pair<int, int>> siblingPairs() const;
  /// Groups that read a value `id` also reads, excluding `id` (sorted).
  std::vector<int> siblingsOf(int id) const;

  Legality checkMerge(int a, int b) const;
  /// The kind rules (all but `cycle`) for `producer`'s ops feeding `consumer`'s.
  Legality checkKinds(const FusionGroup &producer, const FusionGroup &consumer) const;
  CostEstimate cost(int id) const;
  CostEstimate mergedCost(int a, int b) const;
  /// Cost of the ops of `ids` as one kernel.
  CostEstimate costOf(llvm::ArrayRef<int> ids) const;
  /// Every op of the group as its own kernel.
  CostEstimate unfusedCost(int id) const;
  /// Time saved by merging (positive: profitable).
  double benefit(int a, int b) const;

  /// Merges b into a (or a into b, whichever is larger); returns the survivor.
  int merge(int a, int b);
  /// Records why a and b stay apart.
  void reject(int a, int b, const Legality &why);
  void rejectUnprofitable(int a, int b);
  const std::vector<RejectedFusion> &rejections() const { return rejected; }

  /// True for the group of a fuse.superkernel that was already outlined.
  bool isOutlined(int id) const;

  /// A readable name for a group: its members' node names.
  std::string describe(int id) const;

  /// Writes `fuse.group` on every op for OutlineSuperkernels.
  void commit();

  const CostModel &getCostModel() const { return costModel; }

private:
  bool reaches(int from, int to, int excluded) const;
  /// The rule a merge of `producer` into `consumer` applies (or siblings).
  std::string ruleFor(const FusionGroup &producer, const FusionGroup &consumer, bool siblings) const;

  // Op accessors are not const; the graph never changes the function.
  mutable mlir::func::FuncOp func;
  const CostModel &costModel;
  std::vector<std::string> disabledRules;
  std::vector<FusionGroup> groupList;
  llvm::DenseMap<mlir::Operation *, int> groupOfOp;
  llvm::DenseMap<mlir::Operation *, size_t> indexOfOp;
  std::vector<RejectedFusion> rejected;
  /// cost(id) per group, valid while the group's version is unchanged; the
  /// planner asks for the same groups' costs many times between merges.
  struct CachedCost {
    unsigned version = ~0u;
    CostEstimate cost;
  };
  mutable std::vector<CachedCost> costCache;
};

} // namespace fusec

#endif // FUSEC_PASSES_FUSIONGRAPH_H
