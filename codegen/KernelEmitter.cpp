//===- KernelEmitter.cpp - CUDA C++ for a fuse.superkernel ----------------===//
#include "codegen/KernelEmitter.h"
#include "codegen/KernelBuilder.h"

#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"

using namespace mlir;

namespace fusec::codegen {

namespace {
FailureOr<GeneratedKernel> emit(KernelBuilder &builder) {
  fuse::SuperkernelOp kernel = builder.getKernel();
  // The kernel template follows the body's core op (an attention kernel's
  // views are addressing, not its template).
  Operation *core = fuse::kernelCore(builder.bodyOps());
  fuse::OpClass kind = core ? fuse::classifyOp(core) : fuse::OpClass::Elementwise;
  switch (kind) {
  case fuse::OpClass::Conv:
    return emitConvKernel(builder);
  case fuse::OpClass::Gemm:
    return emitGemmKernel(builder);
  case fuse::OpClass::Reduction:
    return emitReductionKernel(builder);
  case fuse::OpClass::Pool:
    return emitPoolKernel(builder);
  case fuse::OpClass::DataMovement:
    return emitDataMovementKernel(builder);
  case fuse::OpClass::Elementwise:
    return emitElementwiseKernel(builder);
  case fuse::OpClass::Attention:
    return emitAttentionKernel(builder);
  case fuse::OpClass::Other:
    break;
  }
  return kernel.emitError() << "codegen has no kernel template for this superkernel";
}

} // namespace

FailureOr<GeneratedKernel> emitKernel(fuse::SuperkernelOp kernel) {
  KernelBuilder builder(kernel);
  // A dimension that runs over a range (fusec --dim seq=1:512) is one more
  // run-time size, which the element-wise, data-movement, reduction, GEMM
  // and attention templates read from their arguments; the others compile
  // every size but the batch in.
  if (std::vector<int64_t> ranges = builder.rangeDims(); !ranges.empty()) {
    Operation *core = fuse::kernelCore(builder.bodyOps());
    fuse::OpClass kind = core ? fuse::classifyOp(core) : fuse::OpClass::Elementwise;
    if (kind == fuse::OpClass::Conv || kind == fuse::OpClass::Pool || kind == fuse::OpClass::Other)
      return kernel.emitError() << "the run-time dimension '" << fuse::symbolName(ranges.front())
                                << "' (a range) has no " << fuse::kernelKindName(kind)
                                << " kernel: give the dimension a size, or compile for --target=cpu";
    if (builder.hasSliceViews())
      return kernel.emitError() << "the run-time dimension '" << fuse::symbolName(ranges.front())
                                << "' (a range) and a concatenation in place: a kernel over a range stores its "
                                   "results dense";
  }
  // Only templates whose every load and store of the tensor goes through
  // KernelBuilder's addressing can take a slice view.
  std::string why;
  for (auto [index, result] : llvm::enumerate(kernel.getResults()))
    if (fuse::sliceViewOf(result) && !fuse::canStoreToSliceView(kernel, "generated", &why))
      return kernel.emitError() << "result " << index << " is stored into a concatenation in place, but " << why;
  for (auto [index, operand] : llvm::enumerate(kernel.getInputs()))
    if (std::optional<fuse::SliceView> view = fuse::sliceViewOf(operand);
        view && !fuse::canLoadFromSliceView(kernel, index, view->axis, "generated", &why))
      return kernel.emitError() << "operand " << index << " is a slice of a concatenation in place, but " << why;
  return emit(builder);
}

std::string variantFunctionName(llvm::StringRef kernelName, size_t index) {
  return kernelName.str() + "__v" + std::to_string(index);
}

FailureOr<std::vector<GeneratedKernel>> emitKernelVariants(fuse::SuperkernelOp kernel) {
  std::vector<GeneratedKernel> kernels;
  auto own = emitKernel(kernel);
  if (failed(own))
    return failure();
  kernels.push_back(std::move(*own));
  if (ArrayAttr variants = kernel.getVariantsAttr()) {
    for (auto [index, config] : llvm::enumerate(variants.getAsRange<fuse::KernelConfigAttr>())) {
      KernelBuilder builder(kernel, config, variantFunctionName(kernel.getSymName(), index + 1));
      auto variant = emit(builder);
      if (failed(variant))
        return failure();
      kernels.push_back(std::move(*variant));
    }
  }
  return kernels;
}

GeneratedKernel joinVariants(const std::vector<GeneratedKernel> &kernels) {
  GeneratedKernel program = kernels.front();
  // Every source includes the same guarded headers and defines its own
  // extern "C" function (and emulation thunk): they concatenate.
  for (size_t i = 1; i < kernels.size(); ++i)
    program.source += "\n" + kernels[i].source;
  return program;
}

} // namespace fusec::codegen
