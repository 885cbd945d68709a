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

using namespace fusec;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";

void runModel(const std::string &name) {
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  for (const test::ReferenceBatch &batch : reference.batches) {
    auto outputs = test::emulate(*module, batch.inputs, static_cast<int>(batch.batch));
    for (const auto &[outputName, expected] : batch.outputs) {
      std::string report;
      INFO(name << " batch " << batch.batch << " output " << outputName);
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
