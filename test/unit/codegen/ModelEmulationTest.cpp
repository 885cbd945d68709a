//===- ModelEmulationTest.cpp - Generated kernels of the shared models ----===//
//
// Each shared model is fused (greedy), every superkernel is emitted as CUDA
// C++, and the exact text is compiled with the host compiler through the
// emulation header and executed kernel by kernel, with buffers allocated
// per value. The model outputs must match PyTorch's within the model's
// tolerance. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"

#include "../../models/ModelReference.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "ir/ConstantData.h"
#include "ir/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

using namespace fusec;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";

int64_t elementsAt(mlir::Type type, int64_t batch) {
  int64_t count = 1;
  for (int64_t dim : llvm::cast<mlir::RankedTensorType>(type).getShape())
    count *= mlir::ShapedType::isDynamic(dim) ? batch : dim;
  return count;
}

void runModel(const std::string &name) {
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(context.get(), [&](mlir::Diagnostic &diagnostic) {
    diagnostics += formatDiagnostic(diagnostic) + "\n";
    return mlir::success();
  });
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics);
  REQUIRE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("main");

  std::string source;
  std::map<std::string, codegen::GeneratedKernel> kernels;
  for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
    auto kernel = codegen::emitKernel(superkernel);
    INFO(diagnostics);
    REQUIRE(mlir::succeeded(kernel));
    source += kernel->source + "\n";
    kernels[kernel->name] = *kernel;
  }
  auto emulated = test::EmulatedModule::compile(source, "", {FUSEC_PRELUDE_DIR});

  for (const test::ReferenceBatch &batch : reference.batches) {
    int batchSize = static_cast<int>(batch.batch);
    llvm::DenseMap<mlir::Value, std::vector<float>> buffers;
    for (auto arg : func.getArguments()) {
      auto nameAttr = func.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "fuse.name");
      buffers[arg] = batch.inputs.at(nameAttr.str()).values();
    }
    for (auto constant : func.getOps<fuse::ConstantOp>())
      buffers[constant.getResult()] = *fuse::getConstantData(constant.getValue());
    for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
      const codegen::GeneratedKernel &kernel = kernels.at(superkernel.getSymName().str());
      std::vector<void *> args;
      for (mlir::Value input : superkernel.getInputs())
        args.push_back(buffers[input].data());
      for (mlir::Value result : superkernel.getResults()) {
        buffers[result].assign(elementsAt(result.getType(), batchSize), std::nanf(""));
        args.push_back(buffers[result].data());
      }
      args.push_back(&batchSize);
      const auto &launch = kernel.launch;
      test::Dim3 grid{unsigned(launch.grid[0].at(batchSize)), unsigned(launch.grid[1].at(batchSize)),
                      unsigned(launch.grid[2].at(batchSize))};
      test::Dim3 block{unsigned(launch.block[0]), unsigned(launch.block[1]),
                       unsigned(launch.block[2])};
      emulated.launch(kernel.name, grid, block, args);
    }
    auto returnOp = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      std::string outputName =
          func.getResultAttrOfType<mlir::StringAttr>(index, "fuse.name").str();
      const runtime::Tensor &expected = batch.outputs.at(outputName);
      runtime::Tensor actual(expected.shape(), buffers[value]);
      std::string report;
      INFO(name << " batch " << batch.batch << " output " << outputName);
      if (!test::allClose(actual, expected, reference.rtol, reference.atol, report))
        FAIL_CHECK("emulated kernels vs PyTorch: " << report);
    }
  }
}

} // namespace

#define FUSEC_EMULATED_MODEL_TEST(NAME)                                         \
  TEST_CASE("emul: generated kernels of " #NAME " match PyTorch", "[codegen][emul]") { \
    runModel(#NAME);                                                            \
  }
FUSEC_EMULATED_MODEL_TEST(conv_bn_relu)
FUSEC_EMULATED_MODEL_TEST(mlp)
FUSEC_EMULATED_MODEL_TEST(multi_consumer)
FUSEC_EMULATED_MODEL_TEST(pad_conv)
FUSEC_EMULATED_MODEL_TEST(residual_block)
FUSEC_EMULATED_MODEL_TEST(three_part)
FUSEC_EMULATED_MODEL_TEST(tiny_resnet)
#undef FUSEC_EMULATED_MODEL_TEST
