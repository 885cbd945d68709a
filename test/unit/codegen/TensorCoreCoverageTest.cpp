//===- TensorCoreCoverageTest.cpp - Conv/GEMM kernels use the tensor cores -===//
//
// Facts about the kernels fusec generates for real networks — ResNet-50 at
// 224x224 (bench/ModelGenerators) and the seven shared models, in fp32 and
// with --precision=fp16 (fuse-auto-mixed-precision), and ResNet-50
// channels-last (--layout=nhwc) in both:
//  * every group-1 conv and every GEMM/MatMul kernel is a tensor-core
//    template instantiation (FusecGemmTf32, or FusecGemmHalf in fp16);
//    compiled with NVRTC for sm_80 and sm_90 it has its mma.sync (tf32
//    m16n8k8, or f16 m16n8k16) in its PTX, no spills, no 64-bit division or
//    remainder inside any loop, and registers x threads within one SM's
//    register file; KernelConfig::estimatedRegisters (the wave model's
//    occupancy input) lies within 24 registers of ptxas's count for 95 % of
//    the kernels, and within a block per SM for the 256-thread tiles;
//  * the same for every GEMM and attention kernel of a BERT-base layer and a
//    GPT-2 block in fp32, tf32, fp16 and bf16 (products past 2^31 elements
//    of A at large batches);
//  * every kernel's launch grid stays inside CUDA's limits from batch 1 to
//    batch 1024 (no GPU or NVRTC needed).
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"
#include "PtxLoops.h"

#include "bench/ModelGenerators.h"
#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "config/Occupancy.h"
#include "ir/KernelConfig.h"
#include "test/unit/TestSkip.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>

using namespace fusec;

namespace {

struct ModelKernels {
  std::string model;
  /// Built with --precision=fp16: the half template and its mma.
  bool half = false;
  std::vector<codegen::GeneratedKernel> kernels;
  /// Parallel to `kernels`: a group-1 conv or a GEMM/MatMul.
  std::vector<bool> tensorCoreCandidate;
  /// Parallel to `kernels`: the config's estimated registers per thread
  /// (KernelConfig::estimatedRegisters; 0 without a config).
  std::vector<int64_t> estimatedRegisters;
};

int64_t estimatedRegistersOf(fuse::SuperkernelOp superkernel) {
  fuse::KernelConfigAttr attr = superkernel.getConfigAttr();
  return attr ? fuse::KernelConfig::fromAttr(attr).estimatedRegisters() : 0;
}

/// How KernelConfig::estimatedRegisters, which the wave model prices
/// occupancy with before anything is compiled, compares with ptxas: within
/// 24 registers for nearly every kernel, and for the 256-thread tiles (where
/// registers decide between one and two blocks per SM) within a block per
/// SM of what ptxas's count gives.
struct RegisterFit {
  size_t kernels = 0, within24 = 0;
  void record(const codegen::GeneratedKernel &kernel, int64_t estimate, int actual) {
    const auto &block = kernel.launch.block;
    const int64_t threads = block[0] * block[1] * block[2];
    INFO(kernel.name << " " << kernel.config << ": estimated " << estimate << " registers, ptxas " << actual);
    REQUIRE(estimate > 0);
    ++kernels;
    within24 += std::abs(estimate - actual) <= 24;
    if (threads == 256) {
      const int64_t estimated = config::blocksPerSm(threads, estimate, 0, 1 << 30);
      const int64_t measured = config::blocksPerSm(threads, actual, 0, 1 << 30);
      CHECK(std::abs(estimated - measured) <= 1);
    }
  }
  void check() const {
    INFO(within24 << " of " << kernels << " kernels estimated within 24 registers of ptxas");
    CHECK(kernels > 0);
    CHECK(within24 * 100 >= kernels * 95);
  }
};

ModelKernels emitAll(const std::string &model, mlir::ModuleOp module, bool half) {
  ModelKernels result{model, half, {}, {}, {}};
  module.walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    bool candidate = kernel->kind == "gemm";
    superkernel.getBody().walk([&](fuse::ConvOp conv) { candidate = conv.getGroup() == 1; });
    result.kernels.push_back(*kernel);
    result.tensorCoreCandidate.push_back(candidate);
    result.estimatedRegisters.push_back(estimatedRegistersOf(superkernel));
  });
  return result;
}

/// ResNet-50 at 224x224, fused as fusec does, its tiles chosen for
/// `costBatch` (batch 32 picks 128 x 128 and 128 x 64 tiles with dynamic
/// shared memory for the large convs).
ModelKernels resnet50Kernels(int64_t costBatch, const std::string &precision = "fp32",
                             const std::string &layout = "nchw") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  auto module = import::buildModule(bench::makeResNet50(224), *context);
  INFO(diagnostics.text());
  REQUIRE(module);
  FusionOptions options;
  options.costBatch = costBatch;
  options.precision = precision;
  options.layout = layout;
  test::fuse(*module, options);
  return emitAll("resnet50@" + std::to_string(costBatch) + " " + precision + " " + layout, *module,
                 precision == "fp16");
}

/// `model` of test/data/`set` (models: the shared ones; pytorch: PyTorch's
/// exports) fused at `precision` with images `layout`.
ModelKernels sharedModelKernels(const std::string &model, const std::string &precision = "fp32",
                                const std::string &set = "models", const std::string &layout = "nchw") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/" + set + "/" + model + "/model.onnx";
  options.fusion.precision = precision;
  options.fusion.layout = layout;
  auto module = importAndFuse(*context, options);
  INFO(model << "\n" << diagnostics.text());
  REQUIRE(module);
  return emitAll(model + " " + precision + " " + layout, *module, precision == "fp16");
}

std::vector<ModelKernels> allModels() {
  std::vector<ModelKernels> models = {resnet50Kernels(1), resnet50Kernels(32), resnet50Kernels(1, "fp16"),
                                      resnet50Kernels(32, "fp16")};
  for (const char *precision : {"fp32", "fp16"})
    for (const char *model :
         {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"})
      models.push_back(sharedModelKernels(model, precision));
  // Channels-last (--layout=nhwc): the NHWC im2col operand.
  models.push_back(resnet50Kernels(32, "fp32", "nhwc"));
  models.push_back(resnet50Kernels(1, "fp16", "nhwc"));
  // A DenseNet: conv prologues (BatchNorm-ReLU applied as the operands load),
  // inputs read from and results stored into slices of a concatenation.
  for (const char *precision : {"fp32", "fp16"})
    for (const char *layout : {"nchw", "nhwc"})
      models.push_back(sharedModelKernels("densenet_tiny", precision, "pytorch", layout));
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
        CHECK(model.kernels[i].source.find(model.half ? "FusecGemmHalf<" : "FusecGemmTf32<") != std::string::npos);
      }
  // ResNet-50's 53 convs and classifier, four times; the shared models' 9, twice.
  CHECK(candidates >= 4 * 54 + 2 * 9);
  // Batch 32 fills the GPU with larger tiles, some beyond static shared memory.
  for (size_t batch32 : {1, 3}) {
    size_t dynamicShared = 0;
    for (const codegen::GeneratedKernel &kernel : models[batch32].kernels)
      dynamicShared += kernel.launch.sharedBytes > 48 * 1024;
    INFO(models[batch32].model);
    CHECK(dynamicShared > 0);
  }
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  size_t compiledKernels = 0, kernelsWithLoops = 0;
  RegisterFit registers;
  for (const char *arch : {"sm_80", "sm_90"})
    for (const ModelKernels &model : models) {
      std::vector<codegen::GeneratedKernel> kernels;
      std::vector<int64_t> estimates;
      for (size_t i = 0; i < model.kernels.size(); ++i)
        if (model.tensorCoreCandidate[i]) {
          kernels.push_back(model.kernels[i]);
          estimates.push_back(model.estimatedRegisters[i]);
        }
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
        registers.record(kernels[i], estimates[i], compiled[i].registers);
        CHECK(ptx.find(model.half ? "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
                                  : "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
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
  // The loop scan saw the k-loops (it is not vacuous). Kernels with K <= BK
  // (the shared models' small products, more of them at the half template's
  // BK = 32) have one k-tile and no loop: 476 of 532 compiles have loops.
  CHECK(kernelsWithLoops * 100 >= compiledKernels * 85);
  registers.check();
}

namespace {

/// A BERT-base encoder layer (seq 128, hidden 768, 12 heads, FFN 3072) or a
/// GPT-2-small block (the same sizes, pre-norm, causal), fused as fusec
/// does at `precision` (fp32: 3xTF32; tf32; fp16/bf16: mixed precision).
struct TransformerKernels {
  std::string model;
  std::vector<codegen::GeneratedKernel> kernels;
  std::vector<int64_t> estimatedRegisters;
};
TransformerKernels transformerKernels(bool causal, const std::string &precision) {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  bench::TransformerLayerSpec spec;
  spec.causal = causal;
  auto module = import::buildModule(bench::makeTransformerLayer(spec), *context);
  INFO(diagnostics.text());
  REQUIRE(module);
  FusionOptions options;
  options.precision = precision;
  test::fuse(*module, options);
  TransformerKernels result{std::string(causal ? "gpt2-block " : "bert-layer ") + precision, {}, {}};
  module->walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    if (kernel->kind == "gemm" || kernel->kind == "attention") {
      result.kernels.push_back(*kernel);
      result.estimatedRegisters.push_back(estimatedRegistersOf(superkernel));
    }
  });
  return result;
}

} // namespace

// Transformer-sized products have rows * K past 2^31 at the largest batch
// the templates index (2^16): the tensor-core GEMM takes them with a 64-bit
// base per block (fusec_gemm.h), where a 32-bit guard once sent them to the
// SIMT loop.
TEST_CASE("every GEMM and attention kernel of a BERT-base layer and a GPT-2 block runs on the tensor cores",
          "[codegen][nvrtc]") {
  std::vector<TransformerKernels> models;
  for (bool causal : {false, true})
    for (const char *precision : {"fp32", "tf32", "fp16", "bf16"})
      models.push_back(transformerKernels(causal, precision));
  for (const TransformerKernels &model : models) {
    size_t gemms = 0, attention = 0;
    for (const codegen::GeneratedKernel &kernel : model.kernels) {
      INFO(model.model << " " << kernel.name << " " << kernel.config);
      if (kernel.kind == "gemm") {
        ++gemms;
        CHECK(kernel.config.find("\"tensor_core_gemm\"") != std::string::npos);
      } else {
        ++attention;
        CHECK(kernel.config.find("\"tensor_core_attention\"") != std::string::npos);
      }
    }
    // QKV, the output projection and the two feed-forward products; one
    // attention.
    INFO(model.model);
    CHECK(gemms == 4);
    CHECK(attention == 1);
  }
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  RegisterFit registers;
  for (const char *arch : {"sm_80", "sm_90"})
    for (const TransformerKernels &model : models) {
      codegen::CompileOptions options;
      options.arch = arch;
      std::string error;
      auto compiled = codegen::compileKernels(model.kernels, options, error);
      INFO(arch << " " << model.model << ": " << error);
      REQUIRE(error.empty());
      REQUIRE(compiled.size() == model.kernels.size());
      const bool half = model.model.find("fp16") != std::string::npos || model.model.find("bf16") != std::string::npos;
      for (size_t i = 0; i < compiled.size(); ++i) {
        INFO(arch << " " << model.model << " " << model.kernels[i].name << "\n" << compiled[i].log);
        CHECK(compiled[i].spillBytes == 0);
        registers.record(model.kernels[i], model.estimatedRegisters[i], compiled[i].registers);
        CHECK(compiled[i].ptx.find(half ? "mma.sync.aligned.m16n8k16" : "mma.sync.aligned.m16n8k8.row.col.f32.tf32") !=
              std::string::npos);
        const auto &block = model.kernels[i].launch.block;
        CHECK(int64_t(compiled[i].registers) * block[0] * block[1] * block[2] <= 65536);
      }
    }
  registers.check();
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
