//===- AttentionModelTest.cpp - Self-attention and encoder layers, end to end ===//
//
// A multi-head self-attention block as a fusec JSON graph: x [batch, S, 32],
// Q/K/V projections with constant weights, Reshape + Transpose to 4 heads of
// 8 (K transposed straight to [batch, 4, 8, S]), MatMul(Q, Kt), Div by
// sqrt(8), optionally a constant causal mask, Softmax, MatMul with V,
// Transpose + Reshape back and the output projection. The default pipeline
// must form one attention kernel that reads the heads and writes them back
// through views (no copy kernel), and its plan (CPU backend) and its
// kernels (emulation) must match the plan of the same graph compiled with
// --fusion-strategy=none, for two sequence lengths and two batch sizes.
//
// A whole encoder layer (fused QKV projection split at run time, residual
// adds, LayerNorms, a GELU feed-forward; post- and pre-norm, with and
// without a causal Where mask) must fuse to 7 kernels of known contents
// and match its unfused plan the same way. With --precision=fp16 or bf16
// and heads of 16, the layer's attention kernel runs the tensor-core loop
// on views of the 16-bit QKV projection and matches its plan on the CPU
// backend.
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"
#include "KernelEmulation.h"

#include "../../models/ModelReference.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "runtime/Session.h"
#include "tools/fuserun/RandomInputs.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

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

/// The fusec JSON graph of `nodes`: input x [batch, seq, kEmbed], output y.
std::string graphText(int64_t seq, const json &constants, const json &nodes) {
  json graph = {{"format", "fusec-graph"},
                {"version", 1},
                {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", seq, kEmbed}}}}},
                {"outputs", {"y"}},
                {"constants", constants},
                {"nodes", nodes}};
  return graph.dump();
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
  return graphText(seq, constants, nodes);
}

/// A transformer encoder layer as torch exports nn.TransformerEncoderLayer
/// (batch_first, ReLU replaced by GELU in its erf form, x * 0.5 * (1 +
/// erf(x / sqrt 2))), with one fused QKV projection split at run time:
///   post-norm: y = LN2(h + FFN(h)), h = LN1(x + SA(x))
///   pre-norm:  y = h + FFN(LN2(h)), h = x + SA(LN1(x))
/// A causal layer masks with Where(constant upper triangle, scores, -inf),
/// as a GPT block does. `headCount` heads share the kEmbed features.
std::string encoderLayer(int64_t seq, bool preNorm, bool causal, int64_t headCount = kHeads) {
  const int64_t headDim = kEmbed / headCount;
  constexpr int64_t kFfn = 64;
  json constants = {{"w_qkv", weight(1, {kEmbed, 3 * kEmbed})},
                    {"b_qkv", weight(2, {3 * kEmbed})},
                    {"w_o", weight(3, {kEmbed, kEmbed})},
                    {"b_o", weight(4, {kEmbed})},
                    {"w_1", weight(5, {kEmbed, kFfn})},
                    {"b_1", weight(6, {kFfn})},
                    {"w_2", weight(7, {kFfn, kEmbed})},
                    {"b_2", weight(8, {kEmbed})},
                    {"ln1_scale", weight(9, {kEmbed})},
                    {"ln1_bias", weight(10, {kEmbed})},
                    {"ln2_scale", weight(11, {kEmbed})},
                    {"ln2_bias", weight(12, {kEmbed})},
                    {"root_d", {{"dtype", "f32"}, {"shape", json::array()}, {"data", {std::sqrt(double(headDim))}}}},
                    {"root_2", {{"dtype", "f32"}, {"shape", json::array()}, {"data", {std::sqrt(2.0)}}}},
                    {"half", {{"dtype", "f32"}, {"shape", json::array()}, {"data", {0.5}}}},
                    {"one", {{"dtype", "f32"}, {"shape", json::array()}, {"data", {1.0}}}}};
  json nodes = json::array();
  auto add = [&](const std::string &name, const std::string &op, const std::vector<std::string> &inputs,
                 const json &attrs = json::object()) { nodes.push_back(node(name, op, inputs, attrs)); };
  auto layerNorm = [&](const std::string &name, const std::string &input, const std::string &prefix) {
    add(name, "LayerNormalization", {input, prefix + "_scale", prefix + "_bias"}, {{"axis", -1}});
  };
  std::string attentionIn = "x";
  if (preNorm) {
    layerNorm("ln1", "x", "ln1");
    attentionIn = "ln1";
  }
  add("qkv_mm", "MatMul", {attentionIn, "w_qkv"});
  add("qkv", "Add", {"qkv_mm", "b_qkv"});
  nodes.push_back({{"name", "split"},
                   {"op", "Split"},
                   {"inputs", {"qkv"}},
                   {"outputs", {"q", "k", "v"}},
                   {"attrs", {{"axis", 2}, {"split", {kEmbed, kEmbed, kEmbed}}}}});
  const std::vector<int64_t> heads = {0, 0, headCount, headDim};
  for (const char *p : {"q", "k", "v"})
    add(std::string(p) + "_split", "Reshape", {p}, {{"shape", heads}});
  add("q_heads", "Transpose", {"q_split"}, {{"perm", {0, 2, 1, 3}}});
  add("k_heads_t", "Transpose", {"k_split"}, {{"perm", {0, 2, 3, 1}}});
  add("v_heads", "Transpose", {"v_split"}, {{"perm", {0, 2, 1, 3}}});
  add("scores", "MatMul", {"q_heads", "k_heads_t"});
  add("scaled", "Div", {"scores", "root_d"});
  std::string logits = "scaled";
  if (causal) {
    std::vector<int> future;
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < seq; ++j)
        future.push_back(j > i);
    constants["future"] = {{"dtype", "i1"}, {"shape", {seq, seq}}, {"data", future}};
    constants["minus_inf"] = {{"dtype", "f32"}, {"shape", json::array()}, {"data", {-1e30}}};
    add("masked", "Where", {"future", "minus_inf", "scaled"});
    logits = "masked";
  }
  add("probs", "Softmax", {logits}, {{"axis", 3}});
  add("context", "MatMul", {"probs", "v_heads"});
  add("context_t", "Transpose", {"context"}, {{"perm", {0, 2, 1, 3}}});
  add("merged", "Reshape", {"context_t"}, {{"shape", {0, 0, kEmbed}}});
  add("out_mm", "MatMul", {"merged", "w_o"});
  add("out_proj", "Add", {"out_mm", "b_o"});
  add("residual1", "Add", {"x", "out_proj"});
  std::string hidden = "residual1";
  if (!preNorm) {
    layerNorm("ln1", "residual1", "ln1");
    hidden = "ln1";
  }
  std::string ffnIn = hidden;
  if (preNorm) {
    layerNorm("ln2", hidden, "ln2");
    ffnIn = "ln2";
  }
  add("ffn1_mm", "MatMul", {ffnIn, "w_1"});
  add("ffn1", "Add", {"ffn1_mm", "b_1"});
  add("gelu_div", "Div", {"ffn1", "root_2"});
  add("gelu_erf", "Erf", {"gelu_div"});
  add("gelu_add", "Add", {"gelu_erf", "one"});
  add("gelu_mul", "Mul", {"ffn1", "gelu_add"});
  add("gelu", "Mul", {"gelu_mul", "half"});
  add("ffn2_mm", "MatMul", {"gelu", "w_2"});
  add("ffn2", "Add", {"ffn2_mm", "b_2"});
  add("residual2", "Add", {hidden, "ffn2"});
  std::string output = "residual2";
  if (!preNorm) {
    layerNorm("ln2", "residual2", "ln2");
    output = "ln2";
  }
  add("y", "Identity", {output});
  return graphText(seq, constants, nodes);
}

std::shared_ptr<const runtime::Plan> planOf(mlir::ModuleOp module) {
  auto bytes = buildPlan(module, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "attention_block"));
}

/// The fused plan on the CPU backend, and the fused module's kernels in
/// emulation, give the unfused plan's output at batch 1 and 3 (inputs drawn
/// with seed `seed` times the batch).
void matchesUnfused(mlir::ModuleOp fused, const std::shared_ptr<const runtime::Plan> &fusedPlan,
                    const std::shared_ptr<const runtime::Plan> &unfusedPlan, uint64_t seed) {
  runtime::Session fusedCpu(fusedPlan, runtime::Device::Cpu), unfusedCpu(unfusedPlan, runtime::Device::Cpu);
  for (int batch : {1, 3}) {
    auto inputs = runtime::makeRandomInputs(*unfusedPlan, batch, static_cast<uint64_t>(batch) * seed);
    const runtime::Tensor expected = unfusedCpu.run(batch, inputs).at("y");
    std::string report;
    INFO("batch " << batch);
    if (!test::allClose(fusedCpu.run(batch, inputs).at("y"), expected, 1e-3, 1e-4, report))
      FAIL_CHECK("fused plan on the CPU backend vs the unfused plan: " << report);
    if (!test::allClose(test::emulate(fused, inputs, batch).at("y"), expected, 1e-3, 1e-4, report))
      FAIL_CHECK("fused kernels in emulation vs the unfused plan: " << report);
  }
}

int kernelsOfKindCount(const runtime::Plan &plan, const std::string &kind) {
  int count = 0;
  for (const runtime::KernelDesc &kernel : plan.kernels())
    count += kernel.kind == kind;
  return count;
}

void checkBlock(int64_t seq, bool causal) {
  INFO("S " << seq << (causal ? " causal" : ""));
  auto context = createContext();
  const std::string text = attentionBlock(seq, causal);
  auto fused = test::importJsonAndFuse(*context, text, "attention_block.json");
  auto unfused = test::importJsonAndFuse(*context, text, "attention_block.json", test::withStrategy("none"));
  bool formedCausal = false;
  fused->walk([&](fuse::AttentionOp op) { formedCausal = op.getCausal() && !op.getMask(); });
  CHECK(formedCausal == causal);
  auto fusedPlan = planOf(*fused), unfusedPlan = planOf(*unfused);
  REQUIRE(kernelsOfKindCount(*fusedPlan, "attention") == 1);
  REQUIRE(kernelsOfKindCount(*unfusedPlan, "attention") == 0);
  // The head split and merge are the attention kernel's views.
  CHECK(kernelsOfKindCount(*fusedPlan, "data_movement") == 0);
  matchesUnfused(*fused, fusedPlan, unfusedPlan, 5);
}

/// The op names of each kernel of `plan` of kind `kind`, in order.
std::vector<std::vector<std::string>> kernelsOfKind(const runtime::Plan &plan, const std::string &kind) {
  std::vector<std::vector<std::string>> result;
  for (const runtime::KernelDesc &kernel : plan.kernels()) {
    if (kernel.kind != kind)
      continue;
    result.emplace_back();
    for (const runtime::OpDesc &op : kernel.ops)
      result.back().push_back(op.op);
  }
  return result;
}

bool contains(const std::vector<std::string> &ops, const std::string &op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// The encoder layer graph `text` (read from `path`) fuses to its seven
/// kernels and matches its unfused plan.
void checkEncoderLayerGraph(const std::string &text, const std::string &path, bool causal) {
  auto context = createContext();
  auto fused = test::importJsonAndFuse(*context, text, path);
  auto unfused = test::importJsonAndFuse(*context, text, path, test::withStrategy("none"));
  auto fusedPlan = planOf(*fused), unfusedPlan = planOf(*unfused);

  // QKV GEMM (+ bias), one attention kernel that reads Q, K and V through
  // the head split's views and stores through the head merge's, output GEMM
  // with bias and residual, FFN GEMMs with GELU and with bias + residual,
  // two LayerNorms: no copy kernel.
  auto gemms = kernelsOfKind(*fusedPlan, "gemm");
  REQUIRE(gemms.size() == 4);
  CHECK(gemms[0] == std::vector<std::string>{"MatMul", "Add"});
  CHECK(gemms[1] == std::vector<std::string>{"MatMul", "Add", "Add"});
  CHECK(contains(gemms[2], "Erf"));
  CHECK(gemms[3] == std::vector<std::string>{"MatMul", "Add", "Add"});
  auto attention = kernelsOfKind(*fusedPlan, "attention");
  REQUIRE(attention.size() == 1);
  // Slice, Reshape and Transpose per head tensor, then Transpose, Reshape.
  CHECK(std::count(attention[0].begin(), attention[0].end(), "Slice") == 3);
  CHECK(std::count(attention[0].begin(), attention[0].end(), "Transpose") == 4);
  CHECK(std::count(attention[0].begin(), attention[0].end(), "Reshape") == 4);
  CHECK(kernelsOfKind(*fusedPlan, "reduction").size() == 2);
  CHECK(kernelsOfKind(*fusedPlan, "data_movement").empty());
  CHECK(fusedPlan->kernels().size() == 7);
  bool formedCausal = false;
  fused->walk([&](fuse::AttentionOp op) { formedCausal = op.getCausal() && !op.getMask(); });
  CHECK(formedCausal == causal);

  matchesUnfused(*fused, fusedPlan, unfusedPlan, 11);
}

void checkEncoderLayer(int64_t seq, bool preNorm, bool causal) {
  INFO("S " << seq << (preNorm ? " pre-norm" : " post-norm") << (causal ? " causal" : ""));
  checkEncoderLayerGraph(encoderLayer(seq, preNorm, causal), "attention_block.json", causal);
}

} // namespace

TEST_CASE("emul: a self-attention block forms one attention kernel that matches the unfused plan",
          "[codegen][emul][attention][model]") {
  for (int64_t seq : {7, 33})
    for (bool causal : {false, true})
      checkBlock(seq, causal);
}

TEST_CASE("emul: transformer encoder layers (post- and pre-norm, causal) fuse to 7 kernels that match the unfused "
          "plan",
          "[codegen][emul][attention][model]") {
  checkEncoderLayer(7, /*preNorm=*/false, /*causal=*/false);
  checkEncoderLayer(33, /*preNorm=*/true, /*causal=*/true);
  checkEncoderLayer(16, /*preNorm=*/true, /*causal=*/false);
}

TEST_CASE("emul: the bundled encoder layer example examples/encoder_layer.json at S = 128 fuses to 7 kernels that "
          "match the unfused plan",
          "[codegen][emul][attention][model]") {
  const std::string path = std::string(FUSEC_TEST_DATA_DIR) + "/../../examples/encoder_layer.json";
  std::ifstream file(path);
  REQUIRE(file);
  std::stringstream text;
  text << file.rdbuf();
  checkEncoderLayerGraph(text.str(), path, /*causal=*/false);
}

TEST_CASE("emul: fp16 and bf16 encoder layers with 16-wide heads run attention on the tensor cores",
          "[codegen][emul][attention][model][precision]") {
  // 2 heads of 16: Q, K and V are views of the fused QKV projection at
  // offsets 0, 32 and 64 with rows 96 apart, all 16-byte aligned in f16.
  for (const char *precision : {"fp16", "bf16"}) {
    INFO(precision);
    auto context = createContext();
    FusionOptions options;
    options.precision = precision;
    const std::string text = encoderLayer(33, /*preNorm=*/true, /*causal=*/true, /*headCount=*/2);
    auto fused = test::importJsonAndFuse(*context, text, "encoder_layer.json", options);
    std::string loop;
    fused->walk([&](fuse::SuperkernelOp superkernel) {
      if (superkernel.getKind() != "attention")
        return;
      auto kernel = codegen::emitKernel(superkernel);
      REQUIRE(mlir::succeeded(kernel));
      loop = kernel->source;
    });
    CHECK(loop.find("using Attention = FusecAttentionHalf<") != std::string::npos);
    CHECK(loop.find("  static constexpr int kHeadDim = 16;\n  static constexpr int kValueDim = 16;\n") !=
          std::string::npos);
    CHECK(loop.find("  static constexpr int kBlockN = 64;\n") != std::string::npos);
    CHECK(loop.find(std::string("  using Element = ") +
                    (std::string(precision) == "fp16" ? "fusec_f16" : "fusec_bf16") + ";\n") != std::string::npos);
    // The kernels in emulation against the same plan on the CPU backend:
    // 16-bit activations between kernels, f32 inside, different summation
    // orders and the probabilities rounded for P V.
    auto plan = planOf(*fused);
    runtime::Session cpu(plan, runtime::Device::Cpu);
    const double tolerance = std::string(precision) == "fp16" ? 1e-2 : 5e-2;
    for (int batch : {1, 3}) {
      INFO("batch " << batch);
      auto inputs = runtime::makeRandomInputs(*plan, batch, static_cast<uint64_t>(batch) * 7);
      std::string report;
      if (!test::allClose(test::emulate(*fused, inputs, batch).at("y"), cpu.run(batch, inputs).at("y"), tolerance,
                          tolerance, report))
        FAIL_CHECK("fused kernels in emulation vs the plan on the CPU backend: " << report);
    }
  }
}
