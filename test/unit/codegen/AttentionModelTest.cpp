//===- AttentionModelTest.cpp - A self-attention block, end to end --------===//
//
// A multi-head self-attention block as a fusec JSON graph: x [batch, S, 32],
// Q/K/V projections with constant weights, Reshape + Transpose to 4 heads of
// 8 (K transposed straight to [batch, 4, 8, S]), MatMul(Q, Kt), Div by
// sqrt(8), optionally a constant causal mask, Softmax, MatMul with V,
// Transpose + Reshape back and the output projection. The default pipeline
// must form one attention kernel, and its plan (CPU backend) and its
// kernels (emulation) must match the plan of the same graph compiled with
// --fusion-strategy=none, for two sequence lengths and two batch sizes.
//
//===----------------------------------------------------------------------===//
#include "KernelEmulation.h"

#include "../../models/ModelReference.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "compiler/import/JsonImporter.h"
#include "ir/FuseOps.h"
#include "runtime/RandomInputs.h"
#include "runtime/Session.h"

#include "mlir/Pass/PassManager.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <cmath>

using namespace fusec;
using nlohmann::json;

namespace {

constexpr int64_t kEmbed = 32, kHeads = 4, kHeadDim = 8;

/// Deterministic weights in [-0.5, 0.5).
json weight(int seed, const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<double> data;
  for (int64_t i = 0; i < count; ++i)
    data.push_back(std::fmod(std::fabs(std::sin(0.37 * double(i) + seed)) * 7.0, 1.0) - 0.5);
  return {{"dtype", "f32"}, {"shape", shape}, {"data", data}};
}

json node(const std::string &name, const std::string &op, const std::vector<std::string> &inputs,
          const json &attrs = json::object()) {
  return {{"name", name}, {"op", op}, {"inputs", inputs}, {"outputs", {name}}, {"attrs", attrs}};
}

std::string attentionBlock(int64_t seq, bool causal) {
  json constants = {{"wq", weight(1, {kEmbed, kEmbed})},
                    {"wk", weight(2, {kEmbed, kEmbed})},
                    {"wv", weight(3, {kEmbed, kEmbed})},
                    {"wo", weight(4, {kEmbed, kEmbed})},
                    {"root_d", {{"dtype", "f32"}, {"shape", json::array()}, {"data", {std::sqrt(double(kHeadDim))}}}}};
  json nodes = json::array();
  const std::vector<int64_t> split = {0, 0, kHeads, kHeadDim};
  for (const char *p : {"q", "k", "v"}) {
    nodes.push_back(node(std::string(p) + "_proj", "MatMul", {"x", std::string("w") + p}));
    nodes.push_back(node(std::string(p) + "_split", "Reshape", {std::string(p) + "_proj"}, {{"shape", split}}));
  }
  nodes.push_back(node("q_heads", "Transpose", {"q_split"}, {{"perm", {0, 2, 1, 3}}}));
  nodes.push_back(node("k_heads_t", "Transpose", {"k_split"}, {{"perm", {0, 2, 3, 1}}}));
  nodes.push_back(node("v_heads", "Transpose", {"v_split"}, {{"perm", {0, 2, 1, 3}}}));
  nodes.push_back(node("scores", "MatMul", {"q_heads", "k_heads_t"}));
  nodes.push_back(node("scaled", "Div", {"scores", "root_d"}));
  std::string logits = "scaled";
  if (causal) {
    std::vector<double> mask;
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < seq; ++j)
        mask.push_back(j <= i ? 0.0 : -1e9);
    constants["causal_mask"] = {{"dtype", "f32"}, {"shape", {seq, seq}}, {"data", mask}};
    nodes.push_back(node("masked", "Add", {"scaled", "causal_mask"}));
    logits = "masked";
  }
  nodes.push_back(node("probs", "Softmax", {logits}, {{"axis", 3}}));
  nodes.push_back(node("context", "MatMul", {"probs", "v_heads"}));
  nodes.push_back(node("context_t", "Transpose", {"context"}, {{"perm", {0, 2, 1, 3}}}));
  nodes.push_back(node("merged", "Reshape", {"context_t"}, {{"shape", {0, 0, kEmbed}}}));
  nodes.push_back(node("y", "MatMul", {"merged", "wo"}));
  json graph = {{"format", "fusec-graph"},
                {"version", 1},
                {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", seq, kEmbed}}}}},
                {"outputs", {"y"}},
                {"constants", constants},
                {"nodes", nodes}};
  return graph.dump();
}

mlir::OwningOpRef<mlir::ModuleOp> importAndFuse(mlir::MLIRContext &context, const std::string &text,
                                                const std::string &strategy) {
  DiagnosticCollector diagnostics(&context);
  auto module = import::importJsonModelFromBuffer(text, "attention_block.json", context);
  INFO(diagnostics.text());
  REQUIRE(module);
  mlir::PassManager pm(&context);
  FusionOptions options;
  options.strategy = strategy;
  buildFusionPipeline(pm, options);
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return module;
}

std::shared_ptr<const runtime::Plan> planOf(mlir::ModuleOp module) {
  auto bytes = buildPlan(module, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "attention_block"));
}

int attentionKernels(const runtime::Plan &plan) {
  int count = 0;
  for (const runtime::KernelDesc &kernel : plan.kernels())
    count += kernel.kind == "attention";
  return count;
}

void checkBlock(int64_t seq, bool causal) {
  INFO("S " << seq << (causal ? " causal" : ""));
  auto context = createContext();
  const std::string text = attentionBlock(seq, causal);
  auto fused = importAndFuse(*context, text, "greedy");
  auto unfused = importAndFuse(*context, text, "none");
  bool formedCausal = false;
  fused->walk([&](fuse::AttentionOp op) { formedCausal = op.getCausal() && !op.getMask(); });
  CHECK(formedCausal == causal);
  auto fusedPlan = planOf(*fused), unfusedPlan = planOf(*unfused);
  REQUIRE(attentionKernels(*fusedPlan) == 1);
  REQUIRE(attentionKernels(*unfusedPlan) == 0);
  runtime::Session fusedCpu(fusedPlan, runtime::Device::Cpu), unfusedCpu(unfusedPlan, runtime::Device::Cpu);
  for (int batch : {1, 3}) {
    auto inputs = runtime::makeRandomInputs(*unfusedPlan, batch, static_cast<uint64_t>(batch) * 5);
    const runtime::Tensor expected = unfusedCpu.run(batch, inputs).at("y");
    std::string report;
    INFO("batch " << batch);
    if (!test::allClose(fusedCpu.run(batch, inputs).at("y"), expected, 1e-3, 1e-4, report))
      FAIL_CHECK("fused plan on the CPU backend vs the unfused plan: " << report);
    if (!test::allClose(test::emulate(*fused, inputs, batch).at("y"), expected, 1e-3, 1e-4, report))
      FAIL_CHECK("fused kernels in emulation vs the unfused plan: " << report);
  }
}

} // namespace

TEST_CASE("emul: a self-attention block forms one attention kernel that matches the unfused plan",
          "[codegen][emul][attention][model]") {
  for (int64_t seq : {7, 33})
    for (bool causal : {false, true})
      checkBlock(seq, causal);
}
