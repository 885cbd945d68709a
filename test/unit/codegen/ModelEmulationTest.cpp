//===- ModelEmulationTest.cpp - Generated kernels of the shared models ----===//
//
// Each shared model is fused (greedy), every superkernel is emitted as CUDA
// C++, and the exact text is compiled with the host compiler through the
// emulation header and executed kernel by kernel, with buffers allocated
// per value. The model outputs must match PyTorch's within the model's
// tolerance. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "KernelEmulation.h"

#include "../../models/ModelReference.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>

using namespace fusec;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";

/// ||actual - expected|| / ||expected|| over all elements.
double relativeL2(const runtime::Tensor &actual, const runtime::Tensor &expected) {
  double difference = 0, norm = 0;
  for (size_t i = 0; i < expected.values().size(); ++i) {
    difference += std::pow(double(actual.values()[i]) - double(expected.values()[i]), 2);
    norm += std::pow(double(expected.values()[i]), 2);
  }
  return std::sqrt(difference / std::max(norm, 1e-30));
}

/// Fused by `strategy` ("greedy": fusec's default; "none": every op its own
/// kernel, so each template also runs without what fusion puts around it),
/// with images laid out as `layout` says ("nchw", or "nhwc": fusec
/// --layout=nhwc).
void runModel(const std::string &name, const std::string &strategy = "greedy", const std::string &layout = "nchw") {
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.strategy = strategy;
  options.fusion.layout = layout;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  for (const test::ReferenceBatch &batch : reference.batches) {
    auto outputs = test::emulate(*module, batch.inputs, static_cast<int>(batch.batch));
    for (const auto &[outputName, expected] : batch.outputs) {
      std::string report;
      INFO(name << " (" << strategy << ", " << layout << ") batch " << batch.batch << " output " << outputName);
      if (!test::allClose(outputs.at(outputName), expected, reference.rtol, reference.atol, report))
        FAIL_CHECK("emulated kernels vs PyTorch: " << report);
    }
  }
}

} // namespace
#define FUSEC_EMULATED_MODEL_TEST(NAME)                                                                                \
  TEST_CASE("emul: generated kernels of " #NAME " match PyTorch", "[codegen][emul]") { runModel(#NAME); }
FUSEC_EMULATED_MODEL_TEST(conv_bn_relu)
FUSEC_EMULATED_MODEL_TEST(mlp)
FUSEC_EMULATED_MODEL_TEST(multi_consumer)
FUSEC_EMULATED_MODEL_TEST(pad_conv)
FUSEC_EMULATED_MODEL_TEST(residual_block)
FUSEC_EMULATED_MODEL_TEST(three_part)
FUSEC_EMULATED_MODEL_TEST(tiny_resnet)
#undef FUSEC_EMULATED_MODEL_TEST

TEST_CASE("emul: unfused kernels of every shared model match PyTorch", "[codegen][emul]") {
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"})
    runModel(name, "none");
}

TEST_CASE("emul: every shared model matches PyTorch channels-last, fused and unfused", "[codegen][emul][nhwc]") {
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"}) {
    runModel(name, "greedy", "nhwc");
    runModel(name, "none", "nhwc");
  }
}

TEST_CASE("emul: --precision=tf32 stays within 5e-3 relative L2 of PyTorch on the shared models", "[codegen][emul]") {
  // Plain TF32 rounds every conv/GEMM operand to 10 mantissa bits: about
  // 1e-3 relative per product, less after accumulation. The lower bound shows
  // the kernels really ran TF32 (3xTF32 gives about 1e-7).
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"}) {
    test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    DriverOptions options;
    options.inputPath = reference.onnxPath;
    options.fusion.precision = "tf32";
    auto module = importAndFuse(*context, options);
    INFO(diagnostics.text());
    REQUIRE(module);
    const test::ReferenceBatch &batch = reference.batches.front();
    auto outputs = test::emulate(*module, batch.inputs, static_cast<int>(batch.batch));
    for (const auto &[outputName, expected] : batch.outputs) {
      const double error = relativeL2(outputs.at(outputName), expected);
      std::cout << "tf32 " << name << " batch " << batch.batch << " output " << outputName << ": relative L2 error "
                << error << "\n";
      INFO(name << " output " << outputName << ": relative L2 error " << error);
      CHECK(error < 5e-3);
      CHECK(error > 1e-6);
    }
  }
}
