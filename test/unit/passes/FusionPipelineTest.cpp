//===- FusionPipelineTest.cpp - Kernel counts that are facts --------------===//
#include "bench/ModelGenerators.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "ir/FuseOps.h"

#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <utility>
#include <vector>

using namespace fusec;

namespace {

std::vector<fuse::SuperkernelOp> runFusion(mlir::MLIRContext &context, mlir::ModuleOp module,
                                           const std::string &strategy) {
  mlir::PassManager pm(&context);
  FusionOptions options;
  options.strategy = strategy;
  buildFusionPipeline(pm, options);
  REQUIRE(mlir::succeeded(pm.run(module)));
  std::vector<fuse::SuperkernelOp> kernels;
  module.walk([&](fuse::SuperkernelOp op) { kernels.push_back(op); });
  return kernels;
}

size_t countFusedModelKernels(const std::string &model, const std::string &strategy) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  auto module = importModel(std::string(FUSEC_TEST_DATA_DIR) + "/models/" + model + "/model.onnx", *context);
  REQUIRE(module);
  return runFusion(*context, *module, strategy).size();
}

} // namespace

TEST_CASE("shared models fuse into the expected number of kernels", "[fusion]") {
  // Every model under test/data/models, with what its kernels are.
  const std::vector<std::pair<const char *, size_t>> expected = {
      {"conv_bn_relu", 2},   // two Conv-BN-ReLU
      {"mlp", 2},            // MatMul-Add-ReLU, MatMul-Add
      {"residual_block", 2}, // Conv-BN-ReLU, Conv-BN-Add-ReLU
      {"three_part", 3},     // two MatMul-Add-ReLU, MatMul-Add
      // Conv-BN-ReLU with the Add on the conv output as a second output: BN
      // is not folded into a conv whose output 'add' also reads.
      {"multi_consumer", 1},
      // The zero Pad folded into conv a (Pad-Conv-ReLU); the 0.5 Pad its own
      // kernel before conv b (Conv-ReLU); the Concat.
      {"pad_conv", 4},
      // stem Conv-BN-ReLU, MaxPool, per stage Conv-BN-ReLU and
      // Conv-BN-Add-ReLU (+ Conv-BN downsample in stages 2-4),
      // GlobalAveragePool, Flatten, Gemm.
      {"tiny_resnet", 16},
  };
  std::set<std::string> models;
  for (const auto &entry : std::filesystem::directory_iterator(std::string(FUSEC_TEST_DATA_DIR) + "/models"))
    models.insert(entry.path().filename().string());
  std::set<std::string> pinned;
  for (const auto &[model, kernels] : expected)
    pinned.insert(model);
  CHECK(pinned == models);

  for (const char *strategy : {"greedy", "dp"})
    for (const auto &[model, kernels] : expected) {
      INFO("model " << model << ", strategy " << strategy);
      CHECK(countFusedModelKernels(model, strategy) == kernels);
    }
}

TEST_CASE("strategy none keeps every op its own kernel", "[fusion]") {
  // conv_bn_relu: BN folds (a rewrite, not a fusion), conv and relu stay apart.
  CHECK(countFusedModelKernels("conv_bn_relu", "none") == 4);
}

TEST_CASE("ResNet-50 fuses into at most 57 kernels, each Conv-BN-(Add)-ReLU in one", "[fusion]") {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  auto module = import::buildModule(bench::makeResNet50(64), *context);
  REQUIRE(module);
  auto kernels = runFusion(*context, *module, "greedy");
  CHECK(kernels.size() <= 57);
  size_t convKernels = 0, residualKernels = 0;
  for (fuse::SuperkernelOp kernel : kernels) {
    auto &body = kernel.getBody().front();
    size_t convs = llvm::count_if(body, [](mlir::Operation &op) { return llvm::isa<fuse::ConvOp>(op); });
    CHECK(convs <= 1);
    // No BatchNormalization survives, and no Relu or Add runs on its own.
    CHECK(llvm::none_of(body, [](mlir::Operation &op) { return llvm::isa<fuse::BatchNormOp>(op); }));
    if (convs == 0)
      CHECK(llvm::none_of(body, [](mlir::Operation &op) { return llvm::isa<fuse::ReluOp, fuse::AddOp>(op); }));
    convKernels += convs;
    residualKernels += llvm::count_if(body, [](mlir::Operation &op) { return llvm::isa<fuse::AddOp>(op); });
  }
  CHECK(convKernels == 53);     // 1 stem + 16 blocks x 3 + 4 downsamples
  CHECK(residualKernels == 16); // every residual Add joined a conv kernel
}
