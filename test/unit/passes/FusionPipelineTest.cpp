//===- FusionPipelineTest.cpp - Kernel counts that are facts --------------===//
#include "bench/ModelGenerators.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "ir/FuseOps.h"

#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

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
  for (const char *strategy : {"greedy", "dp"}) {
    INFO("strategy " << strategy);
    CHECK(countFusedModelKernels("conv_bn_relu", strategy) == 2);
    CHECK(countFusedModelKernels("residual_block", strategy) == 2);
    CHECK(countFusedModelKernels("mlp", strategy) == 2);
    CHECK(countFusedModelKernels("three_part", strategy) == 3);
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
