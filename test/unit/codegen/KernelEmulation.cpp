//===- KernelEmulation.cpp - Run a fused module's generated kernels -------===//
#include "KernelEmulation.h"
#include "EmulatedTensorMaps.h"
#include "EmulationHarness.h"

#include "codegen/KernelEmitter.h"
#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/SliceViews.h"
#include "support/SplitK.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <algorithm>
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

SplitScratch::SplitScratch(const codegen::KernelLaunch &launch, size_t tiles, int64_t slices)
    : split_(launch.splitMaxSlices > 1), slices_(1) {
  if (split_)
    slices_ = unsigned(slices > 0 ? std::min(slices, launch.splitMaxSlices)
                                  : splitKSlices(int64_t(tiles), launch.splitKTiles, launch.splitMaxSlices, 132));
  partials_.assign(tiles * slices_ * size_t(launch.splitPartialFloats), NAN);
  counters_.assign(tiles, 0);
}

void SplitScratch::appendTo(std::vector<void *> &args, std::vector<size_t> &bytes) {
  if (!split_)
    return;
  args.push_back(partials_.data());
  bytes.push_back(partials_.size() * sizeof(float));
  args.push_back(counters_.data());
  bytes.push_back(counters_.size() * sizeof(uint32_t));
}

bool SplitScratch::countersCleared() const {
  return std::all_of(counters_.begin(), counters_.end(), [](uint32_t counter) { return counter == 0; });
}

std::map<std::string, runtime::Tensor> emulate(mlir::ModuleOp module,
                                               const std::map<std::string, runtime::Tensor> &inputs, int batchSize,
                                               int64_t splitSlices) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>("main");
  std::string source;
  std::map<std::string, codegen::GeneratedKernel> kernels;
  for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
    if (fuse::isInPlace(superkernel))
      continue;
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    source += kernel->source + "\n";
    kernels[kernel->name] = *kernel;
  }
  auto emulated = EmulatedModule::compile(source, "", {FUSEC_PRELUDE_DIR});
  // Every value as the bytes of its element type (f16 as 16-bit patterns, i1
  // as bytes), as the runtime lays out its buffers.
  llvm::DenseMap<mlir::Value, std::vector<uint8_t>> buffers;
  auto bytesOf = [&](mlir::Value value) {
    return size_t(elementsAt(value.getType(), batchSize)) * size_t(fuse::elementByteSize(fuse::elementTypeOf(value)));
  };
  for (auto arg : func.getArguments()) {
    auto nameAttr = func.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "fuse.name");
    const runtime::Tensor &input = inputs.at(nameAttr.str());
    const auto *bytes = static_cast<const uint8_t *>(input.rawData());
    buffers[arg].assign(bytes, bytes + input.byteSize());
  }
  for (auto constant : func.getOps<fuse::ConstantOp>()) {
    std::vector<uint8_t> storage;
    auto bytes = fuse::constantBytes(constant.getValue(), storage);
    REQUIRE(bytes);
    buffers[constant.getResult()].assign(bytes->begin(), bytes->end());
  }
  // A slice view of a concatenation in place (ir/SliceViews.h) lives in
  // its root's buffer: its address is the root's plus its offset, and it
  // spans the rest of the root.
  auto addressOf = [&](mlir::Value value) -> std::pair<void *, size_t> {
    mlir::Value root = fuse::sliceViewRoot(value);
    std::vector<uint8_t> &buffer = buffers[root];
    if (buffer.empty()) // 0xff bytes: NaN in every float type, so unwritten elements show
      buffer.assign(bytesOf(root), 0xff);
    size_t offset = 0;
    if (std::optional<fuse::SliceView> view = fuse::sliceViewOf(value); view && root != value)
      offset = size_t(view->offset *
                      fuse::innerElements(llvm::cast<mlir::RankedTensorType>(value.getType()).getShape(), view->axis)) *
               size_t(fuse::elementByteSize(fuse::elementTypeOf(value)));
    return {buffer.data() + offset, buffer.size() - offset};
  };
  for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
    if (fuse::isInPlace(superkernel))
      continue;
    const codegen::GeneratedKernel &kernel = kernels.at(superkernel.getSymName().str());
    std::vector<void *> args;
    std::vector<size_t> bytes;
    for (mlir::Value input : superkernel.getInputs()) {
      const auto [address, size] = addressOf(input);
      args.push_back(address);
      bytes.push_back(size);
    }
    for (mlir::Value result : superkernel.getResults()) {
      const auto [address, size] = addressOf(result);
      args.push_back(address);
      bytes.push_back(size);
    }
    const auto &launch = kernel.launch;
    Dim3 grid{unsigned(launch.grid[0].at(batchSize)), unsigned(launch.grid[1].at(batchSize)),
              unsigned(launch.grid[2].at(batchSize))};
    Dim3 block{unsigned(launch.block[0]), unsigned(launch.block[1]), unsigned(launch.block[2])};
    if (launch.splitMaxSlices > 1)
      REQUIRE(grid.z == 1);
    SplitScratch scratch(launch, size_t(grid.x) * grid.y, splitSlices);
    grid.z *= scratch.slices();
    scratch.appendTo(args, bytes);
    const std::vector<void *> buffersOnly(args.begin(),
                                          args.begin() + superkernel.getInputs().size() + superkernel.getNumResults());
    EmulatedTensorMaps maps(launch.tensorMaps, buffersOnly, batchSize);
    args.push_back(&batchSize);
    std::vector<uint32_t> arguments = launch.arguments;
    if (!arguments.empty())
      args.push_back(arguments.data());
    maps.appendTo(args);
    emulated.launch(kernel.name, grid, block, args, bytes);
    REQUIRE(scratch.countersCleared());
  }
  std::map<std::string, runtime::Tensor> outputs;
  auto returnOp = llvm::cast<mlir::func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    std::string name = func.getResultAttrOfType<mlir::StringAttr>(index, "fuse.name").str();
    runtime::Shape shape;
    for (int64_t dim : llvm::cast<mlir::RankedTensorType>(value.getType()).getShape())
      shape.push_back(mlir::ShapedType::isDynamic(dim) ? batchSize : dim);
    auto type = runtime::parseElementType(fuse::elementTypeName(fuse::elementTypeOf(value)).value_or("f32").str());
    REQUIRE(type);
    outputs[name] = runtime::Tensor::fromBytes(shape, *type, buffers[value].data(), buffers[value].size());
  }
  return outputs;
}

} // namespace fusec::test
