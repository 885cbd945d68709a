//===- ConvKernels.cpp - Convolution kernels ------------------------------===//
//
// group == 1: implicit GEMM. Rows are output pixels (n, ho, wo), columns are
// output channels, the reduction runs over (c, kh, kw). Square tiles (16, or
// 8 for small outputs: chooseTile) of the
// im2col matrix and of the weights are staged in shared memory; padding is
// folded into the im2col loads (out-of-image reads are 0). The epilogue
// (bias, folded batch norm, activations, residual add) is applied in
// registers before the single store.
// group > 1 (e.g. depthwise): a direct kernel, one thread per output.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"

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
    code += indent + "acc += __ldg(&" + builder.inputName(conv.getBias()) + "[co]);\n";
  std::vector<std::string> coords = {"on", "co", "oh", "ow"};
  builder.bind(conv.getOutput(), "acc");
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  std::string linear = "((on * " + g.co + " + co) * " + g.ho + " + oh) * " + g.wo + " + ow";
  builder.emitStores(code, indent, shapeOf(conv.getOutput()), linear, coords);
  return success();
}

FailureOr<GeneratedKernel> emitImplicitGemm(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue) {
  ConvGeometry g = geometryOf(conv);
  std::string x = builder.inputName(conv.getInput()), w = builder.inputName(conv.getWeight());
  auto outShape = shapeOf(conv.getOutput());
  BatchLinear pixelCount = linearNumel({outShape[0], outShape[2], outShape[3]});
  const int64_t tile = chooseTile(pixelCount.perBatch + pixelCount.fixed, outShape[1]);
  const std::string T = std::to_string(tile);
  std::string code;
  code += "  __shared__ float tileA[" + T + "][" + std::to_string(tile + 1) + "];\n  __shared__ float tileB[" + T +
          "][" + std::to_string(tile + 1) + "];\n";
  code += "  const long long M = " + g.n + " * " + g.ho + " * " + g.wo + ";\n";
  code += "  const long long K = " + g.c + " * " + g.kh + " * " + g.kw + ";\n";
  code += "  const int tx = threadIdx.x, ty = threadIdx.y;\n";
  code += "  const long long m = (long long)blockIdx.y * " + T + " + ty;\n";
  code += "  const long long co = (long long)blockIdx.x * " + T + " + tx;\n";
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
  code += "          a = __ldg(&" + x + "[((on * " + g.c + " + c) * " + g.h + " + ih) * " + g.w + " + iw]);\n";
  code += "      }\n";
  code += "      tileA[ty][tx] = a;\n";
  code += "      const long long kb = k0 + ty;\n";
  code += "      tileB[ty][tx] = (co < " + g.co + " && kb < K) ? __ldg(&" + w + "[co * K + kb]) : 0.0f;\n";
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
  launch.grid[0] = gridFor(linearNumel(out.slice(1, 1)), tile);
  BatchLinear pixels = linearNumel({out[0], out[2], out[3]});
  launch.grid[1] = gridFor(pixels, tile);
  return builder.finish(code, launch);
}

FailureOr<GeneratedKernel> emitDirectConv(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue) {
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
  code += "          acc += __ldg(&" + x + "[((on * " + g.c + " + firstChannel + c) * " + g.h + " + ih) * " + g.w +
          " + iw]) * __ldg(&" + w + "[((co * perGroupIn + c) * " + g.kh + " + kh) * " + g.kw + " + kw]);\n";
  code += "        }\n";
  code += "      }\n";
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", g)))
    return failure();
  code += "  }\n";
  KernelLaunch launch;
  launch.block = {256, 1, 1};
  launch.grid[0] = gridFor(linearNumel(out), 256);
  return builder.finish(code, launch);
}

} // namespace

FailureOr<GeneratedKernel> emitConvKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  auto core = findTemplateCore(builder, fuse::OpClass::Conv, epilogue);
  if (failed(core))
    return failure();
  auto conv = llvm::cast<fuse::ConvOp>(*core);
  if (conv.getGroup() == 1)
    return emitImplicitGemm(builder, conv, epilogue);
  return emitDirectConv(builder, conv, epilogue);
}

} // namespace fusec::codegen
