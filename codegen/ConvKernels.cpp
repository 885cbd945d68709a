//===- ConvKernels.cpp - Convolution kernels ------------------------------===//
//
// The kernel's #fuse.config names the template (ir/KernelConfig.h decides
// which applies):
// tensor_core_conv (group 1, every size but the batch static): the
// tensor-core implicit GEMM of fusec_conv.h (on fusec_gemm.h's main loop, or
// fusec_gemm_half.h's for f16/bf16 operands). The weights (Co x C*KH*KW) are operand A, the
// im2col matrix of the input (gathered on the fly, the batch's pixels as
// its columns) operand B; the generated epilogue functor adds the bias,
// applies what fusion put after the conv (folded batch norm, activations,
// residual add) and stores each element where its lane holds it.
// simt_conv (a size known only at run time, offsets beyond 32 bits): the
// SIMT implicit GEMM. Rows are output pixels (n, ho, wo), columns are output
// channels, the reduction runs over (c, kh, kw). Square tiles (16, or 8 for
// small outputs) of the im2col matrix and of the weights are staged in
// shared memory; padding is folded into the im2col loads (out-of-image
// reads are 0).
// direct_conv (group > 1, e.g. depthwise): one thread per output.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"

using namespace mlir;

namespace fusec::codegen {
namespace {

struct ConvGeometry {
  std::string n, c, h, w, co, ho, wo, kh, kw;
  int64_t strideH, strideW, padTop, padLeft, dilationH, dilationW, group;
};

ConvGeometry geometryOf(fuse::ConvOp conv) {
  auto in = shapeOf(conv.getInput()), weight = shapeOf(conv.getWeight()), out = shapeOf(conv.getOutput());
  return {dimExpr(in[0]),     dimExpr(in[1]),         dimExpr(in[2]),         dimExpr(in[3]),
          dimExpr(out[1]),    dimExpr(out[2]),        dimExpr(out[3]),        dimExpr(weight[2]),
          dimExpr(weight[3]), conv.getStrides()[0],   conv.getStrides()[1],   conv.getPads()[0],
          conv.getPads()[1],  conv.getDilations()[0], conv.getDilations()[1], static_cast<int64_t>(conv.getGroup())};
}

/// Code after `acc` holds the conv result for output (on, co, oh, ow).
LogicalResult emitEpilogue(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue, std::string &code,
                           const std::string &indent, const ConvGeometry &g) {
  if (conv.getBias())
    code += indent + "acc += fusec_ld(&" + builder.inputName(conv.getBias()) + "[co]);\n";
  std::vector<std::string> coords = {"on", "co", "oh", "ow"};
  builder.bind(conv.getOutput(), roundedTo(fuse::elementTypeOf(conv.getOutput()), "acc"));
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  std::string linear = "((on * " + g.co + " + co) * " + g.ho + " + oh) * " + g.wo + " + ow";
  builder.emitStores(code, indent, shapeOf(conv.getOutput()), linear, coords);
  return success();
}

/// The tensor-core implicit GEMM: output channels are the rows (grid.y),
/// the batch's output pixels the columns (grid.x: it grows with the batch).
/// The sizes are scalar arguments, so the text depends only on the config,
/// the window, the element types and the epilogue: a network's convolutions
/// that share those share one compiled program.
FailureOr<GeneratedKernel> emitTensorCoreConv(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue,
                                              const fuse::KernelConfig &config) {
  ConvGeometry g = geometryOf(conv);
  auto in = shapeOf(conv.getInput()), weight = shapeOf(conv.getWeight()), out = shapeOf(conv.getOutput());
  auto constant = [](int64_t value) { return std::to_string(value); };
  // kernelConfigFor admitted the conv: every size but the batch is static
  // and one image's offsets fit 32 bits.
  auto size = [&](int64_t value) { return builder.scalarArgument(static_cast<uint32_t>(value)); };
  const std::string operand = "FusecIm2colB<" + constant(weight[2]) + ", " + constant(weight[3]) + ", " +
                              constant(g.strideH) + ", " + constant(g.strideW) + ", " + constant(g.padTop) + ", " +
                              constant(g.padLeft) + ", " + constant(g.dilationH) + ", " + constant(g.dilationW) + ", " +
                              constant(config.bVector) + operandElementArgument(config) + ">";
  std::string code;
  code += "  using Gemm = " + tensorCoreGemmType(config, operand) + ";\n";
  KernelLaunch launch;
  emitPipelineSharedMemory(code, config.sharedBytes(/*bTransposed=*/false), launch);
  // One statement per argument: they are numbered in the order taken.
  const std::string outChannels = size(out[1]), taps = size(weight[1] * weight[2] * weight[3]);
  const std::string outRows = size(out[2]);
  const std::string outColumns = size(out[3]);
  const std::string pixels = builder.divisorArgument(static_cast<uint32_t>(out[2] * out[3]));
  const std::string columns = builder.divisorArgument(static_cast<uint32_t>(out[3]));
  const std::string rows = size(in[2]);
  const std::string width = size(in[3]);
  const std::string imageElements = size(in[1] * in[2] * in[3]);
  code += "  const int M = int(" + outChannels + "), K = int(" + taps + ");\n";
  code += "  const long long Co = M, HO = " + outRows + ", WO = " + outColumns + ";\n";
  code += "  const FusecDivisor pixels = " + pixels + ", columns = " + columns + ";\n";
  code += "  const int N = int((long long)batch * pixels.divisor);\n";
  code += "  " + operand + " bOperand(" + builder.inputName(conv.getInput()) + ", FusecIm2colSizes{int(" + rows +
          "), int(" + width + "), " + imageElements + ", pixels, columns});\n";
  // The lane's (row, col) is (output channel, pixel of the batch).
  code += "  auto epilogue = [&](int row, int col, float acc) {\n";
  code += "    const unsigned image = pixels.divide(unsigned(col)), pixel = unsigned(col) - image * pixels.divisor;\n";
  code += "    const unsigned outRow = columns.divide(pixel);\n";
  // The epilogue reads the coordinates its broadcasts need, often none of
  // the spatial ones.
  code += "    [[maybe_unused]] const long long co = row, on = image, oh = outRow, ow = pixel - outRow * "
          "columns.divisor;\n";
  builder.setIterationDims(out, {dimExpr(out[0]), "Co", "HO", "WO"});
  if (conv.getBias())
    code += "    acc += fusec_ld(&" + builder.inputName(conv.getBias()) + "[co]);\n";
  const std::vector<std::string> coords = {"on", "co", "oh", "ow"};
  builder.bind(conv.getOutput(), roundedTo(fuse::elementTypeOf(conv.getOutput()), "acc"));
  if (failed(builder.emitElementwise(code, "    ", epilogue, coords)))
    return failure();
  builder.emitStores(code, "    ", out, "(on * Co + co) * (HO * WO) + pixel", coords);
  code += "  };\n";
  const std::string split = emitSplitK(code, config, fuse::kTileCount(conv, config), launch);
  code += "  Gemm::run(" + builder.inputName(conv.getWeight()) +
          ", K, bOperand, M, N, K, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN, "
          "reinterpret_cast<float *>(gemmShared), epilogue" +
          split + ");\n";

  launch.block = {config.threads(), 1, 1};
  launch.grid[0] = gridFor(linearNumel({out[0], out[2], out[3]}), config.blockN);
  launch.grid[1] = gridFor(linearNumel(out.slice(1, 1)), config.blockM);
  // fusec_conv.h brings fusec_gemm.h; the half main loop is its own header.
  if (config.halfOperands())
    return builder.finish(code, launch, {"fusec_conv.h", tensorCoreGemmHeader(config)});
  return builder.finish(code, launch, {"fusec_conv.h"});
}

FailureOr<GeneratedKernel> emitImplicitGemm(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue,
                                            const fuse::KernelConfig &config) {
  ConvGeometry g = geometryOf(conv);
  std::string x = builder.inputName(conv.getInput()), w = builder.inputName(conv.getWeight());
  const int64_t tile = config.blockM;
  const std::string T = std::to_string(tile);
  std::string code;
  code += "  __shared__ float tileA[" + T + "][" + std::to_string(tile + 1) + "];\n  __shared__ float tileB[" + T +
          "][" + std::to_string(tile + 1) + "];\n";
  code += "  const long long M = " + g.n + " * " + g.ho + " * " + g.wo + ";\n";
  code += "  const long long K = " + g.c + " * " + g.kh + " * " + g.kw + ";\n";
  code += "  const int tx = threadIdx.x, ty = threadIdx.y;\n";
  // Pixels grow with the batch: their tiles go on grid.x (2^31 - 1 blocks).
  code += "  const long long m = (long long)blockIdx.x * " + T + " + ty;\n";
  code += "  const long long co = (long long)blockIdx.y * " + T + " + tx;\n";
  code += "  const long long on = m / (" + g.ho + " * " + g.wo + ");\n";
  code += "  const long long oh = (m / " + g.wo + ") % " + g.ho + ";\n";
  code += "  const long long ow = m % " + g.wo + ";\n";
  code += "  float acc = 0.0f;\n";
  code += "  for (long long k0 = 0; k0 < K; k0 += " + T + ") {\n";
  code += "    {\n";
  code += "      const long long k = k0 + tx;\n";
  code += "      float a = 0.0f;\n";
  code += "      if (m < M && k < K) {\n";
  code += "        const long long c = k / (" + g.kh + " * " + g.kw + ");\n";
  code += "        const long long r = k % (" + g.kh + " * " + g.kw + ");\n";
  code += "        const long long ih = oh * " + std::to_string(g.strideH) + " - " + std::to_string(g.padTop) +
          " + (r / " + g.kw + ") * " + std::to_string(g.dilationH) + ";\n";
  code += "        const long long iw = ow * " + std::to_string(g.strideW) + " - " + std::to_string(g.padLeft) +
          " + (r % " + g.kw + ") * " + std::to_string(g.dilationW) + ";\n";
  code += "        if (ih >= 0 && ih < " + g.h + " && iw >= 0 && iw < " + g.w + ")\n";
  code += "          a = fusec_ld(&" + x + "[((on * " + g.c + " + c) * " + g.h + " + ih) * " + g.w + " + iw]);\n";
  code += "      }\n";
  code += "      tileA[ty][tx] = a;\n";
  code += "      const long long kb = k0 + ty;\n";
  code += "      tileB[ty][tx] = (co < " + g.co + " && kb < K) ? fusec_ld(&" + w + "[co * K + kb]) : 0.0f;\n";
  code += "    }\n";
  code += "    __syncthreads();\n";
  code += "#pragma unroll\n";
  code += "    for (int kk = 0; kk < " + T + "; ++kk)\n";
  code += "      acc += tileA[ty][kk] * tileB[kk][tx];\n";
  code += "    __syncthreads();\n";
  code += "  }\n";
  code += "  if (m < M && co < " + g.co + ") {\n";
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", g)))
    return failure();
  code += "  }\n";

  KernelLaunch launch;
  launch.block = {tile, tile, 1};
  auto out = shapeOf(conv.getOutput());
  launch.grid[0] = gridFor(linearNumel({out[0], out[2], out[3]}), tile);
  launch.grid[1] = gridFor(linearNumel(out.slice(1, 1)), tile);
  return builder.finish(code, launch);
}

FailureOr<GeneratedKernel> emitDirectConv(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue,
                                          const fuse::KernelConfig &config) {
  ConvGeometry g = geometryOf(conv);
  std::string x = builder.inputName(conv.getInput()), w = builder.inputName(conv.getWeight());
  auto out = shapeOf(conv.getOutput());
  std::string code;
  code += "  const long long total = " + numelExpr(out) + ";\n";
  code += "  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;\n";
  code += "       idx += (long long)gridDim.x * blockDim.x) {\n";
  code += "    const long long ow = idx % " + g.wo + ", oh = (idx / " + g.wo + ") % " + g.ho + ";\n";
  code += "    const long long co = (idx / (" + g.wo + " * " + g.ho + ")) % " + g.co + ";\n";
  code += "    const long long on = idx / (" + g.wo + " * " + g.ho + " * " + g.co + ");\n";
  code += "    const long long perGroupIn = " + g.c + " / " + std::to_string(g.group) + "LL;\n";
  code += "    const long long perGroupOut = " + g.co + " / " + std::to_string(g.group) + "LL;\n";
  code += "    const long long firstChannel = (co / perGroupOut) * perGroupIn;\n";
  code += "    float acc = 0.0f;\n";
  code += "    for (long long c = 0; c < perGroupIn; ++c)\n";
  code += "      for (long long kh = 0; kh < " + g.kh + "; ++kh) {\n";
  code += "        const long long ih = oh * " + std::to_string(g.strideH) + " - " + std::to_string(g.padTop) +
          " + kh * " + std::to_string(g.dilationH) + ";\n";
  code += "        if (ih < 0 || ih >= " + g.h + ") continue;\n";
  code += "        for (long long kw = 0; kw < " + g.kw + "; ++kw) {\n";
  code += "          const long long iw = ow * " + std::to_string(g.strideW) + " - " + std::to_string(g.padLeft) +
          " + kw * " + std::to_string(g.dilationW) + ";\n";
  code += "          if (iw < 0 || iw >= " + g.w + ") continue;\n";
  code += "          acc += fusec_ld(&" + x + "[((on * " + g.c + " + firstChannel + c) * " + g.h + " + ih) * " + g.w +
          " + iw]) * fusec_ld(&" + w + "[((co * perGroupIn + c) * " + g.kh + " + kh) * " + g.kw + " + kw]);\n";
  code += "        }\n";
  code += "      }\n";
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", g)))
    return failure();
  code += "  }\n";
  KernelLaunch launch;
  launch.block = {config.blockM, 1, 1};
  launch.grid[0] = gridFor(linearNumel(out), config.blockM);
  return builder.finish(code, launch);
}

} // namespace

FailureOr<GeneratedKernel> emitConvKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto core = findTemplateCore(builder, fuse::OpClass::Conv, epilogue);
  if (failed(core))
    return failure();
  auto conv = llvm::cast<fuse::ConvOp>(*core);
  auto config = kernelConfigFor(builder, conv);
  if (failed(config))
    return failure();
  switch (config->kind) {
  case fuse::KernelTemplate::TensorCoreConv:
    return emitTensorCoreConv(builder, conv, epilogue, *config);
  case fuse::KernelTemplate::SimtConv:
    return emitImplicitGemm(builder, conv, epilogue, *config);
  default:
    return emitDirectConv(builder, conv, epilogue, *config);
  }
}

} // namespace fusec::codegen
