//===- CompositeOpsEmulationTest.cpp - ONNX ops lowered at import, on a GPU plan ===//
//
// ThresholdedRelu, Shrink, IsNaN, IsInf, Hardmax, DepthToSpace, SpaceToDepth,
// Tile, OneHot, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss have no fuse
// op: the importer lowers them to comparisons, Where, ArgMax, Cast,
// GatherElements, LogSoftmax, reductions and data movement
// (compiler/import/OnnxCompositeOps.h). Random i64 targets lie in [0, 8),
// the 8 classes. The
// ONNX conformance tests check their values on the CPU backend at static
// shapes; here a JSON graph with a dynamic batch goes through the default
// pipeline, and the generated kernels (emulation) must match the CPU
// backend's plan of the same graph at batch 1 and 3. NaN and infinities
// come from Log and Div of the random inputs.
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"
#include "KernelEmulation.h"

#include "../../models/ModelReference.h"

#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "runtime/Session.h"
#include "tools/fuserun/RandomInputs.h"

#include <catch2/catch.hpp>

using namespace fusec;

namespace {

const char *const kGraph = R"json({
  "format": "fusec-graph",
  "version": 1,
  "inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", 8, 4, 6]},
             {"name": "target", "dtype": "i64", "shape": ["batch", 4, 6]}],
  "outputs": ["thresholded", "shrunk", "nan", "inf", "positive_inf", "hard", "space", "depth", "space_crd", "tiled",
              "nll", "nll_none", "sce", "log_prob", "one_hot"],
  "constants": {"zero": {"dtype": "f32", "shape": [], "data": [0]},
                "weight": {"dtype": "f32", "shape": [8], "data": [1, 0.5, 2, 1, 0.25, 3, 1, 1.5]}},
  "nodes": [
    {"name": "thresholded", "op": "ThresholdedRelu", "inputs": ["x"], "outputs": ["thresholded"], "attrs": {"alpha": 0.25}},
    {"name": "shrunk", "op": "Shrink", "inputs": ["x"], "outputs": ["shrunk"], "attrs": {"bias": 0.125, "lambd": 0.5}},
    {"name": "log", "op": "Log", "inputs": ["x"], "outputs": ["log"]},
    {"name": "nan", "op": "IsNaN", "inputs": ["log"], "outputs": ["nan"]},
    {"name": "over_zero", "op": "Div", "inputs": ["x", "zero"], "outputs": ["over_zero"]},
    {"name": "inf", "op": "IsInf", "inputs": ["over_zero"], "outputs": ["inf"]},
    {"name": "positive_inf", "op": "IsInf", "inputs": ["over_zero"], "outputs": ["positive_inf"],
     "attrs": {"detect_negative": 0}},
    {"name": "hard", "op": "Hardmax", "inputs": ["x"], "outputs": ["hard"], "attrs": {"axis": 1}},
    {"name": "space", "op": "DepthToSpace", "inputs": ["x"], "outputs": ["space"], "attrs": {"blocksize": 2}},
    {"name": "space_crd", "op": "DepthToSpace", "inputs": ["x"], "outputs": ["space_crd"],
     "attrs": {"blocksize": 2, "mode": "CRD"}},
    {"name": "depth", "op": "SpaceToDepth", "inputs": ["space"], "outputs": ["depth"], "attrs": {"blocksize": 2}},
    {"name": "tiled", "op": "Tile", "inputs": ["x"], "outputs": ["tiled"], "attrs": {"repeats": [1, 1, 2, 3]}},
    {"name": "nll", "op": "NegativeLogLikelihoodLoss", "inputs": ["x", "target", "weight"], "outputs": ["nll"],
     "attrs": {"ignore_index": 3}},
    {"name": "nll_none", "op": "NegativeLogLikelihoodLoss", "inputs": ["x", "target"], "outputs": ["nll_none"],
     "attrs": {"reduction": "none"}},
    {"name": "sce", "op": "SoftmaxCrossEntropyLoss", "inputs": ["x", "target"], "outputs": ["sce", "log_prob"],
     "attrs": {"reduction": "sum", "ignore_index": 5}},
    {"name": "one_hot", "op": "OneHot", "inputs": ["target"], "outputs": ["one_hot"],
     "attrs": {"depth": [6], "values": [-1, 2], "axis": 1}}
  ]
})json";

} // namespace

TEST_CASE("emul: ONNX ops lowered at import match the CPU backend with a dynamic batch", "[codegen][emul]") {
  auto context = createContext();
  auto fused = test::importJsonAndFuse(*context, kGraph, "composite.json");
  REQUIRE(fused);
  auto bytes = buildPlan(*fused, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "composite.plan"));
  runtime::Session cpu(plan, runtime::Device::Cpu);
  for (int64_t batch : {1, 3}) {
    const auto inputs = runtime::makeRandomInputs(*plan, batch, static_cast<uint64_t>(batch) + 11);
    const auto expected = cpu.run(batch, inputs);
    const auto actual = test::emulate(*fused, inputs, batch);
    for (const auto &[name, tensor] : expected) {
      INFO("batch " << batch << " output " << name);
      std::string report;
      if (!test::allClose(actual.at(name), tensor, 1e-5, 1e-6, report))
        FAIL_CHECK("emulated kernels vs the CPU backend: " << report);
    }
    // The values themselves: x/0 is +-inf everywhere, log(x) NaN where x < 0.
    const std::vector<double> x = inputs.at("x").toDoubles(), nan = expected.at("nan").toDoubles(),
                              inf = expected.at("inf").toDoubles(), positive = expected.at("positive_inf").toDoubles(),
                              space = expected.at("depth").toDoubles();
    for (size_t i = 0; i < x.size(); ++i) {
      CHECK(nan[i] == (x[i] < 0 ? 1.0 : 0.0));
      CHECK(inf[i] == (x[i] != 0 ? 1.0 : 0.0));
      CHECK(positive[i] == (x[i] > 0 ? 1.0 : 0.0));
      CHECK(space[i] == x[i]); // SpaceToDepth undoes DepthToSpace (DCR)
    }
    CHECK(expected.at("tiled").shape() == runtime::Shape{batch, 8, 8, 18});
    CHECK(expected.at("nll").shape() == runtime::Shape{});
    CHECK(expected.at("one_hot").shape() == runtime::Shape{batch, 6, 4, 6});
    CHECK(expected.at("nll_none").shape() == runtime::Shape{batch, 4, 6});
    // The unweighted, unreduced loss is -x[n, target, h, w].
    const std::vector<double> target = inputs.at("target").toDoubles(), none = expected.at("nll_none").toDoubles();
    for (size_t i = 0; i < target.size(); ++i) {
      const size_t n = i / 24, pixel = i % 24, picked = (n * 8 + size_t(target[i])) * 24 + pixel;
      CHECK(none[i] == -x[picked]);
    }
    // OneHot along axis 1 with depth 6: targets 6 and 7 are out of range.
    const std::vector<double> oneHot = expected.at("one_hot").toDoubles();
    for (size_t i = 0; i < target.size(); ++i)
      for (size_t c = 0; c < 6; ++c)
        CHECK(oneHot[((i / 24) * 6 + c) * 24 + i % 24] == (size_t(target[i]) == c ? 2.0 : -1.0));
    CHECK(expected.at("space").shape() == runtime::Shape{batch, 2, 8, 12});
  }
}
