//===- ModelTests.cpp - Shared models end to end on the CPU backend -------===//
//
// Each model is compiled in-process (unfused: every rule off; then fused with
// each strategy, and channels-last), run on the CPU reference backend at every reference batch
// size, and compared with PyTorch's outputs within the tolerance in its
// meta.json. Every fused plan must also match the unfused plan.
//
//===----------------------------------------------------------------------===//
#include "ModelReference.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "runtime/Session.h"

#include <catch2/catch.hpp>

using namespace fusec;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";
/// Models exported by PyTorch 2.x's default exporter (dynamo, opset 20,
/// external data; scripts/export-pytorch-models.py).
const std::string kPytorchModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch";

struct Configuration {
  std::string name;
  FusionOptions fusion;
};

/// The unfused reference first: every rule off, every op its own kernel.
/// Then each strategy, and the default one and no fusion with images kept
/// channels-last (fusec --layout=nhwc).
std::vector<Configuration> configurations() {
  std::vector<Configuration> configs(6);
  configs[0].name = "unfused";
  configs[0].fusion.strategy = "none";
  configs[0].fusion.disabled = fusionRuleNames();
  for (auto [config, strategy] : {std::pair{&configs[1], "greedy"}, {&configs[2], "dp"}, {&configs[3], "none"}}) {
    config->name = strategy;
    config->fusion.strategy = strategy;
  }
  for (auto [config, strategy] : {std::pair{&configs[4], "greedy"}, {&configs[5], "none"}}) {
    config->name = std::string(strategy) + ", nhwc";
    config->fusion.strategy = strategy;
    config->fusion.layout = "nhwc";
  }
  return configs;
}

std::shared_ptr<const runtime::Plan> compile(const std::string &path, const FusionOptions &fusion,
                                             const std::map<std::string, std::pair<int64_t, int64_t>> &ranges = {}) {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = path;
  options.fusion = fusion;
  for (const auto &[name, bounds] : ranges) {
    options.dimensionSizes[name] = {import::DimensionSize::range(bounds.first, bounds.second, bounds.second)};
    options.plan.target = "cpu"; // ranges compile for the CPU target only, for now
  }
  auto bytes = compileToPlan(*context, options);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(bytes));
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, path));
}

void checkModel(const std::string &name, const std::string &modelsDir = kModelsDir) {
  test::ModelReference model = test::loadModelReference(modelsDir + "/" + name);
  // Keyed by the run: its batch and the sizes of its ranges.
  std::map<std::pair<int64_t, std::map<std::string, int64_t>>, std::map<std::string, runtime::Tensor>> unfusedOutputs;
  for (const Configuration &config : configurations()) {
    INFO("configuration " << config.name);
    auto plan = compile(model.onnxPath, config.fusion, model.ranges);
    runtime::Session session(plan, runtime::Device::Cpu);
    for (const test::ReferenceBatch &batch : model.batches) {
      auto outputs = session.run(batch.batch, batch.inputs);
      // One plan ran every size: the session specialized it for this run.
      if (!batch.dims.empty())
        CHECK(session.dims() == batch.dims);
      const auto run = std::make_pair(batch.batch, batch.dims);
      for (const auto &[outputName, expected] : batch.outputs) {
        INFO(name << " (" << config.name << ", " << plan->kernels().size() << " kernels) batch " << batch.batch
                  << (batch.dims.empty() ? std::string() : " at " + runtime::formatDims(batch.dims)) << " output '"
                  << outputName << "'");
        REQUIRE(outputs.count(outputName));
        std::string report;
        if (!test::allClose(outputs[outputName], expected, model.rtol, model.atol, report))
          FAIL_CHECK("vs the reference (PyTorch, or ONNX Runtime for QDQ models): " << report);
        if (config.name == "unfused")
          unfusedOutputs[run][outputName] = outputs[outputName];
        else if (!test::allClose(outputs[outputName], unfusedOutputs[run][outputName], model.rtol, model.atol, report))
          FAIL_CHECK("vs the unfused plan: " << report);
      }
    }
  }
}

} // namespace

TEST_CASE("the shared model folder holds the seven reference models", "[models]") {
  CHECK(test::listModels(kModelsDir) == std::vector<std::string>{"conv_bn_relu", "mlp", "multi_consumer", "pad_conv",
                                                                 "residual_block", "three_part", "tiny_resnet"});
}

#define FUSEC_MODEL_TEST(NAME)                                                                                         \
  TEST_CASE("model " #NAME " matches PyTorch, unfused and with every strategy", "[models]") { checkModel(#NAME); }
FUSEC_MODEL_TEST(conv_bn_relu)
FUSEC_MODEL_TEST(mlp)
FUSEC_MODEL_TEST(multi_consumer)
FUSEC_MODEL_TEST(pad_conv)
FUSEC_MODEL_TEST(residual_block)
FUSEC_MODEL_TEST(three_part)
FUSEC_MODEL_TEST(tiny_resnet)
#undef FUSEC_MODEL_TEST

/// Quantized models written by ONNX Runtime's static quantization
/// (scripts/generate-quantized-models.py): QDQ, and its operator format
/// (QLinearConv, QLinearMatMul); its outputs are the references.
const std::string kQuantizedModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/quantized";

TEST_CASE("quantized models match ONNX Runtime, unfused and with every strategy", "[models][quantized]") {
  const std::vector<std::string> names = test::listModels(kQuantizedModelsDir);
  CHECK(names == std::vector<std::string>{"qdq_convnet", "qdq_ffn", "qop_convs", "qop_matmuls"});
  for (const std::string &name : names) {
    INFO(name);
    checkModel(name, kQuantizedModelsDir);
  }
}

/// Models exported with a dynamic sequence length too
/// (scripts/export-pytorch-models.py --ranges-out).
const std::string kPytorchRangesDir = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch_ranges";

TEST_CASE("models with a dynamic sequence length run every length of a range from one plan, as PyTorch does",
          "[models][pytorch][ranges]") {
  const std::vector<std::string> names = test::listModels(kPytorchRangesDir);
  CHECK(names ==
        std::vector<std::string>{"bert_classifier", "encoder_post", "encoder_pre", "gpt_block", "mha_padding_mask"});
  for (const std::string &name : names) {
    INFO(name);
    checkModel(name, kPytorchRangesDir);
  }
}

TEST_CASE("models exported by PyTorch's default exporter match PyTorch, unfused and with every strategy",
          "[models][pytorch]") {
  const std::vector<std::string> names = test::listModels(kPytorchModelsDir);
  CHECK(names == std::vector<std::string>{"bert_classifier", "convnext_tiny", "decoder", "densenet_tiny",
                                          "encoder_post", "encoder_post_ts14", "encoder_pre", "encoder_pre_ts17",
                                          "gelu_mlp", "gpt_block", "mha_padding_mask", "mobilenet_v2", "tiny_resnet",
                                          "vit_tiny"});
  for (const std::string &name : names) {
    INFO(name);
    checkModel(name, kPytorchModelsDir);
  }
}

// The kernel counts of docs/fusion.md's fusion-quality table, pinned: a change
// that adds kernels to a plan fails here, and one that removes some updates
// the table (and this list) on purpose. Greedy, default options, NCHW and
// NHWC; the ideal each architecture needs is in the table.
TEST_CASE("the kernel counts of the PyTorch exports are those of the fusion-quality table", "[models][pytorch]") {
  const std::map<std::string, std::pair<size_t, size_t>> kernels = {
      {"bert_classifier", {17, 17}}, {"convnext_tiny", {32, 16}},    {"decoder", {24, 24}},
      {"densenet_tiny", {16, 16}},   {"encoder_post", {14, 14}},     {"encoder_post_ts14", {14, 14}},
      {"encoder_pre", {14, 14}},     {"encoder_pre_ts17", {14, 14}}, {"gelu_mlp", {4, 4}},
      {"gpt_block", {7, 7}},         {"mha_padding_mask", {3, 3}},   {"mobilenet_v2", {54, 56}},
      {"tiny_resnet", {9, 9}},       {"vit_tiny", {18, 18}}};
  const std::vector<std::string> names = test::listModels(kPytorchModelsDir);
  for (const std::string &name : names) {
    INFO(name);
    REQUIRE(kernels.count(name));
    for (const char *layout : {"nchw", "nhwc"}) {
      INFO(layout);
      FusionOptions fusion;
      fusion.layout = layout;
      auto plan = compile(test::loadModelReference(kPytorchModelsDir + "/" + name).onnxPath, fusion);
      const auto &[nchw, nhwc] = kernels.at(name);
      CHECK(plan->kernels().size() == (std::string(layout) == "nchw" ? nchw : nhwc));
    }
  }
}
