//===- PoolKernels.cpp - Max and average pooling --------------------------===//
//
// One thread per output element loops over its window (padding is -inf for
// max pooling and, for averages, counted only with count_include_pad), then
// applies the fused epilogue in registers. Channels-last pools read NHWC:
// adjacent threads are adjacent channels, so their loads coalesce.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"
#include "ir/ShapeUtils.h"

using namespace mlir;

namespace fusec::codegen {

namespace {
constexpr int64_t kPoolThreads = 256;
} // namespace

FailureOr<GeneratedKernel> emitPoolKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto found = findTemplateCore(builder, fuse::OpClass::Pool, epilogue);
  if (failed(found))
    return failure();
  Operation *core = *found;
  auto in = shapeOf(core->getOperand(0)), out = shapeOf(core->getResult(0));
  auto max = llvm::dyn_cast<fuse::MaxPoolOp>(core);
  auto avg = llvm::dyn_cast<fuse::AveragePoolOp>(core);
  ArrayRef<int64_t> kernel = max ? max.getKernelShape() : avg.getKernelShape();
  ArrayRef<int64_t> strides = max ? max.getStrides() : avg.getStrides();
  ArrayRef<int64_t> pads = max ? max.getPads() : avg.getPads();
  SmallVector<int64_t> dilations = {1, 1};
  if (max)
    dilations.assign(max.getDilations().begin(), max.getDilations().end());
  const bool channelsLast = max ? max.getChannelsLast() : avg.getChannelsLast();
  const fuse::ImageAxes axes = fuse::imageAxes(channelsLast);
  std::string H = dimExpr(in[axes.height]), W = dimExpr(in[axes.width]), C = dimExpr(in[axes.channel]);
  std::string code;
  code += "  const long long total = " + numelExpr(out) + ";\n";
  code += "  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;\n";
  code += "       idx += (long long)gridDim.x * blockDim.x) {\n";
  auto coords = emitCoordinates(code, "    ", out, "idx", "o");
  const std::string &n = coords[axes.batch], &c = coords[axes.channel];
  const std::string &oh = coords[axes.height], &ow = coords[axes.width];
  // The window's element (ih, iw) is at base + (ih * W + iw), times C
  // channels-last.
  const std::string pixel = "ih * " + W + " + iw";
  const std::string element = channelsLast ? "base + (" + pixel + ") * " + C : "base + " + pixel;
  if (channelsLast)
    code += "    const long long base = " + n + " * " + H + " * " + W + " * " + C + " + " + c + ";\n";
  else
    code += "    const long long base = (" + n + " * " + C + " + " + c + ") * " + H + " * " + W + ";\n";
  code += std::string("    float acc = ") + (max ? "-INFINITY" : "0.0f") + ";\n";
  if (avg)
    code += "    long long count = 0;\n";
  code += "    for (long long kh = 0; kh < " + std::to_string(kernel[0]) + "; ++kh)\n";
  code += "      for (long long kw = 0; kw < " + std::to_string(kernel[1]) + "; ++kw) {\n";
  code += "        const long long ih = " + oh + " * " + std::to_string(strides[0]) + " - " + std::to_string(pads[0]) +
          " + kh * " + std::to_string(dilations[0]) + ";\n";
  code += "        const long long iw = " + ow + " * " + std::to_string(strides[1]) + " - " + std::to_string(pads[1]) +
          " + kw * " + std::to_string(dilations[1]) + ";\n";
  if (avg && avg.getCountIncludePad()) {
    // Padded positions count, but never positions past the padded input.
    code += "        if (ih < " + H + " + " + std::to_string(pads[2]) + " && iw < " + W + " + " +
            std::to_string(pads[3]) + ") ++count;\n";
  }
  code += "        if (ih < 0 || ih >= " + H + " || iw < 0 || iw >= " + W + ") continue;\n";
  code += "        const float v = " + builder.load(core->getOperand(0), element) + ";\n";
  if (max)
    code += "        acc = fmaxf(acc, v);\n";
  else
    code += std::string("        acc += v;\n") + (avg.getCountIncludePad() ? "" : "        ++count;\n");
  code += "      }\n";
  if (avg)
    code += "    acc = count > 0 ? acc / (float)count : 0.0f;\n";
  builder.bind(core->getResult(0), roundedTo(fuse::elementTypeOf(core->getResult(0)), "acc"));
  if (failed(builder.emitElementwise(code, "    ", epilogue, coords)))
    return failure();
  builder.emitStores(code, "    ", out, "idx", coords);
  code += "  }\n";
  KernelLaunch launch;
  launch.block = {kPoolThreads, 1, 1};
  launch.grid[0] = gridFor(linearNumel(out), kPoolThreads);
  return builder.finish(code, launch);
}

} // namespace fusec::codegen
