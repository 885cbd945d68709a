//===- NvrtcTest.cpp - Generated kernels compile with NVRTC ---------------===//
//
// Every kernel of every shared model compiles for sm_90 (CUBIN + PTX)
// without errors and without register spills at the default tiles. NVRTC
// needs no GPU; a build without NVRTC skips visibly.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "runtime/plan/Plan.h"
#include "test/unit/TestSkip.h"
#include "test/unit/codegen/PtxLoops.h"

#include <catch2/catch.hpp>

using namespace fusec;

TEST_CASE("ptxas reports are parsed for registers and spills", "[codegen]") {
  codegen::CompiledKernel kernel;
  kernel.log = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
               "ptxas info    : Function properties for k\n"
               "    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
               "ptxas info    : Used 40 registers, 376 bytes cmem[0]\n";
  codegen::parsePtxasReport(kernel);
  CHECK(kernel.registers == 40);
  CHECK(kernel.spillBytes == 20);
}

// With their variants (--kernel-variants=3): other tiles and
// the few-row template of fusec_gemv.h for the products of few rows.
TEST_CASE("every shared model's kernels and their variants compile with NVRTC without spills", "[codegen][nvrtc]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  for (const char *model :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"}) {
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    DriverOptions options;
    options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/models/" + model + "/model.onnx";
    options.fusion.kernelVariants = 3;
    auto module = importAndFuse(*context, options);
    INFO(model << "\n" << diagnostics.text());
    REQUIRE(module);
    std::vector<codegen::GeneratedKernel> kernels;
    module->walk([&](fuse::SuperkernelOp superkernel) {
      auto emitted = codegen::emitKernelVariants(superkernel);
      REQUIRE(mlir::succeeded(emitted));
      kernels.insert(kernels.end(), emitted->begin(), emitted->end());
    });
    codegen::CompileOptions compileOptions; // sm_90, no cache
    std::string error;
    auto compiled = codegen::compileKernels(kernels, compileOptions, error);
    INFO(error);
    REQUIRE(error.empty());
    REQUIRE(compiled.size() == kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
      INFO(kernels[i].name << ": " << compiled[i].log);
      if (kernels[i].config.find("simt_gemv") != std::string::npos)
        WARN(kernels[i].name << " (" << kernels[i].config << "): " << compiled[i].registers << " registers");
      // Kernels whose code differs only in names or sizes run an earlier
      // kernel's function of the same program.
      CHECK(compiled[i].ptx.find(".entry " + compiled[i].entry) != std::string::npos);
      CHECK(compiled[i].cubin.size() > 0);
      CHECK(compiled[i].spillBytes == 0);
      CHECK(compiled[i].log.find("warning") == std::string::npos);
    }
  }
}

TEST_CASE("kernels that differ only in their names compile once and share the binaries", "[codegen][nvrtc]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  auto kernelNamed = [](const std::string &name, const char *operation) {
    codegen::GeneratedKernel kernel;
    kernel.name = name;
    kernel.kind = "elementwise";
    kernel.source = "// " + name + "\nextern \"C\" __global__ void " + name +
                    "(const float *in0, float *out0, int batch) { out0[threadIdx.x] = in0[threadIdx.x] " + operation +
                    " 2.0f; }\n";
    return kernel;
  };
  const std::vector<codegen::GeneratedKernel> kernels = {kernelNamed("sk0_mul__a", "*"), kernelNamed("sk1_mul__b", "*"),
                                                         kernelNamed("sk2_add__c", "+")};
  codegen::CompileOptions options;
  codegen::CompileStats stats;
  std::string error;
  auto compiled = codegen::compileKernels(kernels, options, error, &stats);
  INFO(error);
  REQUIRE(compiled.size() == 3);
  CHECK(stats.compiled == 2);
  CHECK(stats.deduplicated == 1);
  CHECK(compiled[0].entry == "sk0_mul__a");
  CHECK(compiled[1].entry == "sk0_mul__a"); // sk1's code is sk0's
  CHECK(compiled[1].ptx == compiled[0].ptx);
  CHECK(compiled[2].entry == "sk2_add__c");
  CHECK(compiled[2].ptx.find(".entry sk2_add__c") != std::string::npos);
}

// fusec compiles a kernel and its variants as one NVRTC program (the
// headers parsed once): the plan stores its images once, and each variant
// enters them at its own function, which the PTX defines (tiny_resnet: the
// convs' other tiles; mlp: the few-row template).
TEST_CASE("a kernel and its variants are one program whose images the plan shares", "[codegen][nvrtc]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  for (const char *model : {"mlp", "tiny_resnet"}) {
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    DriverOptions options;
    options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/models/" + model + "/model.onnx";
    options.plan.target = "sm_90";
    options.fusion.kernelVariants = 3;
    auto bytes = compileToPlan(*context, options);
    INFO(model << "\n" << diagnostics.text());
    REQUIRE(mlir::succeeded(bytes));
    const runtime::Plan plan = runtime::Plan::fromBytes(*bytes, std::string(model) + ".plan");
    size_t withVariants = 0;
    for (const runtime::KernelDesc &kernel : plan.kernels()) {
      if (!kernel.launch)
        continue;
      withVariants += kernel.variantCount() > 1 ? 1 : 0;
      const runtime::KernelImage *ptx = kernel.findImage("ptx");
      REQUIRE(ptx);
      const runtime::ByteRange text = plan.imageBytes(ptx->range);
      const std::string code(reinterpret_cast<const char *>(text.data), text.size);
      for (size_t variant = 0; variant < kernel.variantCount(); ++variant) {
        INFO(kernel.name << " variant " << variant);
        // A library variant (they follow the compiled ones) has no images.
        if (kernel.libraryOf(variant)) {
          CHECK(kernel.imagesOf(variant).empty());
          continue;
        }
        const runtime::KernelImage *own = kernel.findImage("ptx", "", variant);
        REQUIRE(own);
        CHECK(own->range.offset == ptx->range.offset);
        CHECK(own->range.size == ptx->range.size);
        CHECK(own->entry == (variant == 0 ? ptx->entry : codegen::variantFunctionName(ptx->entry, variant)));
        CHECK(code.find(".entry " + own->entry + "(") != std::string::npos);
        CHECK(kernel.findImage("cubin", "", variant)->range.offset == kernel.findImage("cubin")->range.offset);
      }
    }
    CHECK(withVariants >= 2);
  }
}

// A row reduction reads the inputs of its row's own shape at the loop's
// index: the coordinates' 64-bit divisions are left to broadcast operands.
// At a sequence length of 5 they would not simplify to shifts.
TEST_CASE("softmax and layer-norm loops index same-shaped inputs without 64-bit division", "[codegen][nvrtc]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  for (const char *model : {"test/lit/plan/Inputs/sequence.json", "examples/encoder_layer.json"}) {
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    DriverOptions options;
    options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/../../" + model;
    if (std::string(model).find("sequence") != std::string::npos)
      options.dimensionSizes = {{"seq", {5}}};
    auto module = importAndFuse(*context, options);
    INFO(model << "\n" << diagnostics.text());
    REQUIRE(module);
    std::vector<codegen::GeneratedKernel> kernels;
    module->walk([&](fuse::SuperkernelOp superkernel) {
      if (superkernel.getKind() != "reduction")
        return;
      auto emitted = codegen::emitKernelVariants(superkernel);
      REQUIRE(mlir::succeeded(emitted));
      kernels.push_back(emitted->front());
    });
    REQUIRE(kernels.size() >= 2);
    std::string error;
    auto compiled = codegen::compileKernels(kernels, codegen::CompileOptions{}, error);
    REQUIRE(error.empty());
    size_t rowKernels = 0;
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (kernels[i].name.find("softmax") == std::string::npos &&
          kernels[i].name.find("layer_norm") == std::string::npos)
        continue;
      ++rowKernels;
      // The text says so too: powers of two (the encoder's) would turn the
      // divisions into shifts anyway.
      CHECK(kernels[i].source.find("in0[base + l") != std::string::npos);
      INFO(kernels[i].name << "\n" << compiled[i].ptx);
      CHECK(test::countLoops(compiled[i].ptx) >= 3);
      CHECK(test::instructionsInLoops(compiled[i].ptx,
                                      {"mul.hi.u64", "mul.hi.s64", "div.s64", "div.u64", "rem.s64", "rem.u64"})
                .empty());
    }
    CHECK(rowKernels >= 1);
  }
}
