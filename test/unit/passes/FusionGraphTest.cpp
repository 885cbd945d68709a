//===- FusionGraphTest.cpp - Legality and strategies on small graphs ------===//
#include "TestIR.h"

#include "passes/FusionGraph.h"
#include "passes/strategies/Strategy.h"

#include <functional>
#include <limits>

using namespace fusec;

namespace {

RooflineCostModel h200() {
  auto profile = loadDeviceProfile("h200");
  REQUIRE(bool(profile));
  return RooflineCostModel(*profile);
}

int groupNamed(const FusionGraph &graph, mlir::func::FuncOp func, llvm::StringRef name) {
  int found = -1;
  func.walk([&](mlir::Operation *op) {
    if (auto loc = llvm::dyn_cast<mlir::NameLoc>(op->getLoc()))
      if (loc.getName() == name)
        found = graph.groupOf(op);
  });
  REQUIRE(found >= 0);
  return found;
}

double totalCost(const FusionGraph &graph) {
  double total = 0;
  for (const FusionGroup &group : graph.groups())
    if (group.alive)
      total += graph.cost(group.id).timeUs;
  return total;
}

// a feeds b directly and through c: fusing a with b alone would need c both
// after and before the fused kernel.
const char *kDiamond = R"mlir(
func.func @main(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("a")
  %s = fuse.softmax %a {axis = 1} : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("c")
  %b = fuse.add %a, %s : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32> loc("b")
  return %b : tensor<?x64xf32>
}
)mlir";

// e1 -> softmax -> e2 -> softmax -> e3: e2 may join either reduction.
const char *kChain = R"mlir(
func.func @main(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %0 = fuse.relu %x : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("e1")
  %1 = fuse.softmax %0 {axis = 1} : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("r1")
  %2 = fuse.sigmoid %1 : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("e2")
  %3 = fuse.softmax %2 {axis = 1} : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("r2")
  %4 = fuse.tanh %3 : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("e3")
  %5 = fuse.relu %4 : (tensor<?x256xf32>) -> tensor<?x256xf32> loc("e4")
  return %5 : tensor<?x256xf32>
}
)mlir";

} // namespace

TEST_CASE("a merge that would create a cycle is rejected by the cycle rule", "[fusion]") {
  auto context = createContext();
  auto module = test::parseIR(*context, kDiamond);
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();
  FusionGraph graph(func, model);
  int a = groupNamed(graph, func, "a"), b = groupNamed(graph, func, "b");
  Legality legality = graph.checkMerge(a, b);
  CHECK_FALSE(legality.legal);
  CHECK(legality.rule == "cycle");
  // a -> c is legal (a reduction takes an elementwise prologue).
  CHECK(graph.checkMerge(a, groupNamed(graph, func, "c")).legal);
}

TEST_CASE("two reductions never share a kernel", "[fusion]") {
  auto context = createContext();
  auto module = test::parseIR(*context, kChain);
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();
  FusionGraph graph(func, model);
  int r1 = groupNamed(graph, func, "r1"), e2 = groupNamed(graph, func, "e2");
  int r2 = groupNamed(graph, func, "r2");
  int merged = graph.merge(r1, e2);
  Legality legality = graph.checkMerge(merged, r2);
  CHECK_FALSE(legality.legal);
  CHECK(legality.rule == "one-core");
}

TEST_CASE("disabled rules reject their merges", "[fusion]") {
  auto context = createContext();
  auto module = test::parseIR(*context, kChain);
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();
  FusionGraph graph(func, model, {"elementwise-fusion"});
  Legality legality = graph.checkMerge(groupNamed(graph, func, "e3"), groupNamed(graph, func, "e4"));
  CHECK_FALSE(legality.legal);
  CHECK(legality.rule == "disabled");
}

TEST_CASE("dynamic programming finds the cheapest segmentation of a chain", "[fusion]") {
  auto context = createContext();
  auto module = test::parseIR(*context, kChain);
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();

  // Brute force: every way to cut the 6-op chain into contiguous kernels.
  FusionGraph reference(func, model);
  std::vector<int> chain;
  for (const FusionGroup &group : reference.groups())
    chain.push_back(group.id);
  double best = std::numeric_limits<double>::infinity();
  for (unsigned cuts = 0; cuts < (1u << (chain.size() - 1)); ++cuts) {
    double total = 0;
    bool legal = true;
    size_t begin = 0;
    for (size_t i = 1; i <= chain.size() && legal; ++i) {
      if (i < chain.size() && !(cuts & (1u << (i - 1))))
        continue; // no cut between i-1 and i
      FusionGroup segment = reference.group(chain[begin]);
      std::vector<int> ids = {chain[begin]};
      for (size_t k = begin + 1; k < i && legal; ++k) {
        legal = reference.checkKinds(segment, reference.group(chain[k])).legal;
        segment.ops.insert(segment.ops.end(), reference.group(chain[k]).ops.begin(),
                           reference.group(chain[k]).ops.end());
        segment.core = segment.core ? segment.core : reference.group(chain[k]).core;
        ids.push_back(chain[k]);
      }
      total += reference.costOf(ids).timeUs;
      begin = i;
    }
    if (legal)
      best = std::min(best, total);
  }

  FusionGraph planned(func, model);
  createDynamicProgrammingStrategy()->run(planned);
  CHECK(totalCost(planned) == Approx(best).epsilon(1e-9));

  // Greedy is never better than the optimum.
  FusionGraph greedy(func, model);
  createGreedyStrategy()->run(greedy);
  CHECK(totalCost(greedy) >= best - 1e-9);
}

TEST_CASE("an intermediate read outside its kernel is written, not dropped", "[fusion]") {
  auto context = createContext();
  auto module = test::parseIR(*context, R"mlir(
func.func @main(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %a = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("a")
  %b = fuse.sigmoid %a : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("b")
  return %a, %b : tensor<?x64xf32>, tensor<?x64xf32>
}
)mlir");
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();
  FusionGraph graph(func, model);
  int a = groupNamed(graph, func, "a"), b = groupNamed(graph, func, "b");
  CostEstimate fused = graph.mergedCost(a, b);
  // Reads x once, writes both a (a graph output) and b.
  CHECK(fused.bytesRead == Approx(64 * 4));
  CHECK(fused.bytesWritten == Approx(2 * 64 * 4));
}

// e feeds the row reduction s; r, a sibling of e on the same input, is an
// output. Once e and r share a group, that group cannot be s's prologue: the
// reduction template evaluates what does not feed its core after it, at
// the reduced output's coordinates. A softmax keeps its input's shape, so
// there a sibling beside the prologue is fine.
TEST_CASE("a prologue group with ops that do not feed a shape-changing reduction is rejected", "[fusion]") {
  const char *ir = R"mlir(
func.func @main(%x: tensor<?x8x64xf32>) -> (tensor<?x8x64xf32>, tensor<?x8xf32>, tensor<?x8x64xf32>) {
  %e = fuse.exp %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("e")
  %r = fuse.relu %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("r")
  %s = fuse.reduce_sum %e {axes = array<i64: 2>, keepdims = false} : (tensor<?x8x64xf32>) -> tensor<?x8xf32> loc("s")
  %t = fuse.softmax %e {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("t")
  return %r, %s, %t : tensor<?x8x64xf32>, tensor<?x8xf32>, tensor<?x8x64xf32>
}
)mlir";
  auto context = createContext();
  auto module = test::parseIR(*context, ir);
  auto func = test::mainFunc(*module);
  RooflineCostModel model = h200();
  FusionGraph graph(func, model);
  const int e = groupNamed(graph, func, "e"), r = groupNamed(graph, func, "r");
  const int s = groupNamed(graph, func, "s"), t = groupNamed(graph, func, "t");
  CHECK(graph.checkMerge(e, s).legal);
  REQUIRE(graph.checkMerge(e, r).legal); // siblings
  const int siblings = graph.merge(e, r);
  Legality legality = graph.checkMerge(siblings, s);
  CHECK_FALSE(legality.legal);
  CHECK(legality.rule == "iteration-space");
  CHECK(legality.detail == "'e+r' has ops that do not feed 's', whose output shape differs");
  CHECK(graph.checkMerge(siblings, t).legal);
}
