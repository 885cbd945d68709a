//===- TensorCoreCoverageTest.cpp - Conv/GEMM kernels use the tensor cores -===//
//
// Facts about the kernels fusec generates for real networks — ResNet-50 at
// 224x224 (bench/ModelGenerators) and the seven shared models:
//  * every group-1 conv and every GEMM/MatMul kernel is a tensor-core
//    template instantiation; compiled with NVRTC for sm_80 and sm_90 it has
//    mma.sync in its PTX, no spills, no 64-bit division or remainder inside
//    any loop, and registers x threads within one SM's register file;
//  * every kernel's launch grid stays inside CUDA's limits from batch 1 to
//    batch 1024 (no GPU or NVRTC needed).
//
//===----------------------------------------------------------------------===//
#include "PtxLoops.h"

#include "bench/ModelGenerators.h"
#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "passes/Pipeline.h"
#include "test/unit/TestSkip.h"

#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <iostream>

using namespace fusec;

namespace {

struct ModelKernels {
  std::string model;
  std::vector<codegen::GeneratedKernel> kernels;
  /// Parallel to `kernels`: a group-1 conv or a GEMM/MatMul.
  std::vector<bool> tensorCoreCandidate;
};

ModelKernels emitAll(const std::string &model, mlir::ModuleOp module) {
  ModelKernels result{model, {}, {}};
  module.walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    bool candidate = kernel->kind == "gemm";
    superkernel.getBody().walk([&](fuse::ConvOp conv) { candidate = conv.getGroup() == 1; });
    result.kernels.push_back(*kernel);
    result.tensorCoreCandidate.push_back(candidate);
  });
  return result;
}

/// ResNet-50 at 224x224, fused as fusec does, its tiles chosen for
/// `costBatch` (batch 32 picks 128 x 128 and 128 x 64 tiles with dynamic
/// shared memory for the large convs).
ModelKernels resnet50Kernels(int64_t costBatch) {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  auto module = import::buildModule(bench::makeResNet50(224), *context);
  INFO(diagnostics.text());
  REQUIRE(module);
  mlir::PassManager pm(context.get());
  FusionOptions options;
  options.costBatch = costBatch;
  buildFusionPipeline(pm, options);
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return emitAll("resnet50@" + std::to_string(costBatch), *module);
}

ModelKernels sharedModelKernels(const std::string &model) {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/models/" + model + "/model.onnx";
  auto module = importAndFuse(*context, options);
  INFO(model << "\n" << diagnostics.text());
  REQUIRE(module);
  return emitAll(model, *module);
}

std::vector<ModelKernels> allModels() {
  std::vector<ModelKernels> models = {resnet50Kernels(1), resnet50Kernels(32)};
  for (const char *model :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"})
    models.push_back(sharedModelKernels(model));
  return models;
}

} // namespace

TEST_CASE("the PTX loop finder reports what lies between a label and a branch back to it", "[codegen]") {
  const std::string ptx = "  div.s64 %rd1, %rd2, %rd3;\n"
                          "$L__BB0_1:\n"
                          "  add.s32 %r1, %r1, 1;\n"
                          "  rem.u64 %rd4, %rd5, %rd6;\n"
                          "  @%p1 bra $L__BB0_1;\n"
                          "  bra.uni $L__BB0_2;\n"
                          "$L__BB0_2:\n"
                          "  div.u64 %rd7, %rd8, %rd9;\n";
  CHECK(test::countLoops(ptx) == 1);
  const auto found = test::instructionsInLoops(ptx, {"div.s64", "div.u64", "rem.s64", "rem.u64"});
  REQUIRE(found.size() == 1);
  CHECK(found[0] == "4:  rem.u64 %rd4, %rd5, %rd6;");
}

TEST_CASE("every conv and GEMM kernel of ResNet-50 and the shared models runs on the tensor cores",
          "[codegen][nvrtc]") {
  const std::vector<ModelKernels> models = allModels();
  size_t candidates = 0;
  for (const ModelKernels &model : models)
    for (size_t i = 0; i < model.kernels.size(); ++i)
      if (model.tensorCoreCandidate[i]) {
        ++candidates;
        INFO(model.model << " " << model.kernels[i].name);
        CHECK(model.kernels[i].source.find("FusecGemmTf32<") != std::string::npos);
      }
  CHECK(candidates >= 2 * 54 + 9); // ResNet-50's 53 convs and classifier, twice; the shared models' 9
  // Batch 32 fills the GPU with larger tiles, some beyond static shared memory.
  size_t dynamicShared = 0;
  for (const codegen::GeneratedKernel &kernel : models[1].kernels)
    dynamicShared += kernel.launch.sharedBytes > 48 * 1024;
  CHECK(dynamicShared > 0);
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  size_t compiledKernels = 0, kernelsWithLoops = 0;
  for (const char *arch : {"sm_80", "sm_90"})
    for (const ModelKernels &model : models) {
      std::vector<codegen::GeneratedKernel> kernels;
      for (size_t i = 0; i < model.kernels.size(); ++i)
        if (model.tensorCoreCandidate[i])
          kernels.push_back(model.kernels[i]);
      codegen::CompileOptions options;
      options.arch = arch;
      std::string error;
      auto compiled = codegen::compileKernels(kernels, options, error);
      INFO(arch << " " << model.model << ": " << error);
      REQUIRE(error.empty());
      REQUIRE(compiled.size() == kernels.size());
      for (size_t i = 0; i < kernels.size(); ++i) {
        const std::string &ptx = compiled[i].ptx;
        INFO(arch << " " << model.model << " " << kernels[i].name << "\n" << compiled[i].log);
        CHECK(compiled[i].spillBytes == 0);
        CHECK(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
        // A reduction of one k-tile unrolls completely: such kernels have no loop.
        ++compiledKernels;
        kernelsWithLoops += test::countLoops(ptx) >= 1;
        const auto divisions = test::instructionsInLoops(ptx, {"div.s64", "div.u64", "rem.s64", "rem.u64"});
        INFO("64-bit divisions in loops:\n" << (divisions.empty() ? "" : divisions.front()));
        CHECK(divisions.empty());
        const auto &block = kernels[i].launch.block;
        CHECK(int64_t(compiled[i].registers) * block[0] * block[1] * block[2] <= 65536);
      }
    }
  // The loop scan saw the k-loops (it is not vacuous).
  CHECK(kernelsWithLoops * 10 >= compiledKernels * 9);
}

TEST_CASE("every kernel's launch grid of ResNet-50 and the shared models fits CUDA's limits up to batch 1024",
          "[codegen]") {
  for (const ModelKernels &model : allModels())
    for (const codegen::GeneratedKernel &kernel : model.kernels) {
      const auto &block = kernel.launch.block;
      INFO(model.model << " " << kernel.name << " block " << block[0] << "x" << block[1] << "x" << block[2]);
      CHECK(block[0] * block[1] * block[2] <= 1024);
      CHECK(block[2] <= 64);
      CHECK(kernel.launch.sharedBytes <= 99 * 1024);
      for (int64_t batch : {1, 2, 32, 1024}) {
        const auto &grid = kernel.launch.grid;
        INFO("batch " << batch << ": grid " << grid[0].at(batch) << " x " << grid[1].at(batch) << " x "
                      << grid[2].at(batch));
        CHECK(grid[0].at(batch) <= int64_t(2147483647));
        CHECK(grid[1].at(batch) <= 65535);
        CHECK(grid[2].at(batch) <= 65535);
      }
    }
}
