//===- KernelEmulation.cpp - Run a fused module's generated kernels -------===//
#include "KernelEmulation.h"
#include "EmulationHarness.h"

#include "codegen/KernelEmitter.h"
#include "ir/ConstantData.h"
#include "ir/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace fusec::test {
namespace {

int64_t elementsAt(mlir::Type type, int64_t batch) {
  int64_t count = 1;
  for (int64_t dim : llvm::cast<mlir::RankedTensorType>(type).getShape())
    count *= mlir::ShapedType::isDynamic(dim) ? batch : dim;
  return count;
}

} // namespace

std::map<std::string, runtime::Tensor> emulate(mlir::ModuleOp module,
                                               const std::map<std::string, runtime::Tensor> &inputs, int batchSize) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>("main");
  std::string source;
  std::map<std::string, codegen::GeneratedKernel> kernels;
  for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    source += kernel->source + "\n";
    kernels[kernel->name] = *kernel;
  }
  auto emulated = EmulatedModule::compile(source, "", {FUSEC_PRELUDE_DIR});
  llvm::DenseMap<mlir::Value, std::vector<float>> buffers;
  for (auto arg : func.getArguments()) {
    auto nameAttr = func.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "fuse.name");
    buffers[arg] = inputs.at(nameAttr.str()).values();
  }
  for (auto constant : func.getOps<fuse::ConstantOp>())
    buffers[constant.getResult()] = *fuse::getConstantData(constant.getValue());
  for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
    const codegen::GeneratedKernel &kernel = kernels.at(superkernel.getSymName().str());
    std::vector<void *> args;
    std::vector<size_t> bytes;
    for (mlir::Value input : superkernel.getInputs()) {
      args.push_back(buffers[input].data());
      bytes.push_back(buffers[input].size() * sizeof(float));
    }
    for (mlir::Value result : superkernel.getResults()) {
      buffers[result].assign(elementsAt(result.getType(), batchSize), std::nanf(""));
      args.push_back(buffers[result].data());
      bytes.push_back(buffers[result].size() * sizeof(float));
    }
    args.push_back(&batchSize);
    const auto &launch = kernel.launch;
    Dim3 grid{unsigned(launch.grid[0].at(batchSize)), unsigned(launch.grid[1].at(batchSize)),
              unsigned(launch.grid[2].at(batchSize))};
    Dim3 block{unsigned(launch.block[0]), unsigned(launch.block[1]), unsigned(launch.block[2])};
    emulated.launch(kernel.name, grid, block, args, bytes);
  }
  std::map<std::string, runtime::Tensor> outputs;
  auto returnOp = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    std::string name = func.getResultAttrOfType<mlir::StringAttr>(index, "fuse.name").str();
    runtime::Shape shape;
    for (int64_t dim : llvm::cast<mlir::RankedTensorType>(value.getType()).getShape())
      shape.push_back(mlir::ShapedType::isDynamic(dim) ? batchSize : dim);
    outputs[name] = runtime::Tensor(shape, buffers[value]);
  }
  return outputs;
}

} // namespace fusec::test
