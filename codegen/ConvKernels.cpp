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
// SIMT implicit GEMM of fusec_simt.h. Rows are output pixels (n, ho, wo),
// columns are output channels, the reduction runs over (c, kh, kw). Square
// tiles (16, or 8 for small outputs) of the im2col matrix and of the
// weights are staged in shared memory; padding is folded into the im2col
// loads (out-of-image reads are 0).
// wgmma_gemm (sm_90a, a channels-last conv whose input TMA reads as
// stored): a pointwise conv on the Hopper GEMM of fusec_gemm_sm90.h, the
// batch's pixels by the weights, read through tensor maps; any other window
// or stride on fusec_conv_sm90.h's implicit GEMM, blocks of spatial tiles,
// one TMA box of the input per filter tap.
// direct_conv (group > 1, e.g. depthwise): fusec_simt.h's direct loop, one
// thread per output. For both SIMT templates the kernel generates only the
// sizes, the input's and weights' addressing and the epilogue, as functors.
// Each template reads NCHW images and OIHW weights, or NHWC and OHWI for a
// channels_last conv (fuse-convert-to-channels-last); there the reduction
// runs over (kh, kw, c), channels innermost, and tensor cores gather the
// input with FusecIm2colNhwcB's channel vectors.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ConvPrologue.h"
#include "ir/ConvShape.h"
#include "ir/ElementTypes.h"
#include "ir/SliceViews.h"

#include <optional>

using namespace mlir;

namespace fusec::codegen {
namespace {

struct ConvGeometry {
  std::string n, c, h, w, co, ho, wo, kh, kw;
  int64_t strideH, strideW, padTop, padLeft, dilationH, dilationW, group;
  bool channelsLast;

  /// The input element of image `on`, channel `ch`, row `ih`, column `iw`.
  std::string inputIndex(const std::string &on, const std::string &ch, const std::string &ih,
                         const std::string &iw) const {
    if (channelsLast)
      return "((" + on + " * " + h + " + " + ih + ") * " + w + " + " + iw + ") * " + c + " + " + ch;
    return "((" + on + " * " + c + " + " + ch + ") * " + h + " + " + ih + ") * " + w + " + " + iw;
  }
  /// The weight of filter `f`, channel `ch` of its group, tap (`y`, `x`);
  /// `perGroup` is the channels per group.
  std::string weightIndex(const std::string &f, const std::string &ch, const std::string &y, const std::string &x,
                          const std::string &perGroup) const {
    if (channelsLast)
      return "((" + f + " * " + kh + " + " + y + ") * " + kw + " + " + x + ") * " + perGroup + " + " + ch;
    return "((" + f + " * " + perGroup + " + " + ch + ") * " + kh + " + " + y + ") * " + kw + " + " + x;
  }
  /// The output's coordinate names in its axis order.
  std::vector<std::string> outputCoords() const {
    if (channelsLast)
      return {"on", "oh", "ow", "co"};
    return {"on", "co", "oh", "ow"};
  }
  std::string outputIndex() const {
    if (channelsLast)
      return "((on * " + ho + " + oh) * " + wo + " + ow) * " + co + " + co";
    return "((on * " + co + " + co) * " + ho + " + oh) * " + wo + " + ow";
  }
};

ConvGeometry geometryOf(fuse::ConvOp conv) {
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  return {dimExpr(s.batch),   dimExpr(s.channels),    dimExpr(s.height),      dimExpr(s.width),
          dimExpr(s.filters), dimExpr(s.outHeight),   dimExpr(s.outWidth),    dimExpr(s.kernelH),
          dimExpr(s.kernelW), conv.getStrides()[0],   conv.getStrides()[1],   conv.getPads()[0],
          conv.getPads()[1],  conv.getDilations()[0], conv.getDilations()[1], static_cast<int64_t>(conv.getGroup()),
          s.channelsLast};
}

/// The conv's input as the kernel reads it: the kernel input its template
/// loads and the channel-wise ops (fuse-form-epilogues' conv-prologue,
/// ir/ConvPrologue.h) it applies to each element it loads, first op first.
struct ConvInput {
  BlockArgument source;
  std::vector<Operation *> prologue;
};

/// `conv`'s input: a kernel input, or `prologue` (the body's ops that feed
/// the conv) applied to one, with kernel inputs as its per-channel values.
FailureOr<ConvInput> convInputOf(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> prologue) {
  const fuse::ConvInputChain chain = fuse::convInputChain(conv);
  const int64_t channelAxis = fuse::inputChannelAxis(conv);
  auto isInput = [](Value value) { return llvm::isa<BlockArgument>(value); };
  Value value = chain.source;
  for (Operation *op : chain.ops) {
    if (!fuse::isChannelwiseOp(op, value, channelAxis, isInput))
      return op->emitError() << "codegen cannot apply this op as the convolution loads its input: it is not "
                                "channel-wise with per-channel kernel inputs";
    value = op->getResult(0);
  }
  if (chain.ops.size() != prologue.size() || !llvm::isa<BlockArgument>(chain.source))
    return builder.getKernel().emitError()
           << "conv kernel computes ops before the convolution that are not a chain from one kernel input to it";
  if (fuse::elementTypeOf(chain.source) != fuse::elementTypeOf(conv.getInput()))
    return builder.getKernel().emitError() << "conv prologue starts from a tensor of another element type";
  return ConvInput{llvm::cast<BlockArgument>(chain.source),
                   std::vector<Operation *>(chain.ops.begin(), chain.ops.end())};
}

/// The conv core of a conv kernel, its prologue (as `input`) and its
/// epilogue ops.
FailureOr<fuse::ConvOp> findConv(KernelBuilder &builder, ConvInput &input, std::vector<Operation *> &epilogue) {
  Operation *core = nullptr;
  for (Operation *op : builder.bodyOps())
    if (fuse::classifyOp(op) == fuse::OpClass::Conv)
      core = op;
  if (!core)
    return builder.getKernel().emitError() << "conv kernel without a conv op";
  auto conv = llvm::cast<fuse::ConvOp>(core);
  std::vector<Operation *> prologue;
  splitAroundCore(builder, core, prologue, epilogue);
  if (!llvm::isa<BlockArgument>(conv.getWeight()) || (conv.getBias() && !llvm::isa<BlockArgument>(conv.getBias())))
    return core->emitError() << "conv weights and bias must be kernel inputs";
  auto found = convInputOf(builder, conv, prologue);
  if (failed(found))
    return failure();
  input = std::move(*found);
  // A transposed result (epilogue-transpose) is stored, not computed:
  // emitTransposedStores writes it.
  llvm::erase_if(epilogue, [&](Operation *op) {
    auto transpose = llvm::dyn_cast<fuse::TransposeOp>(op);
    return transpose && shapeOf(transpose.getInput()) == shapeOf(conv.getOutput());
  });
  return conv;
}

/// `auto prologue = [&](float v, long long channel) {...};`: the prologue's
/// value for an input element `v` of `channel` (none without a prologue).
FailureOr<std::string> prologueFunctor(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input) {
  if (input.prologue.empty())
    return std::string();
  // Per-channel values depend on the channel coordinate only.
  std::vector<std::string> coords(shapeOf(input.source).size(), "0LL");
  coords[fuse::inputChannelAxis(conv)] = "channel";
  builder.bind(input.source, "v");
  std::string body;
  if (failed(builder.emitElementwise(body, "    ", input.prologue, coords)))
    return failure();
  const std::string result = builder.valueAt(conv.getInput(), coords);
  builder.unbind(input.source);
  for (Operation *op : input.prologue)
    builder.unbind(op->getResult(0));
  return "  auto prologue = [&](float v, long long channel) {\n" + body + "    return float(" + result + ");\n  };\n";
}

/// The elements from one image of the conv's input to the next (C * H * W,
/// or the concatenation's when the input is a slice of its channels), and
/// from one pixel to the next in NHWC (C, or the concatenation's).
std::pair<int64_t, int64_t> inputStrides(const ConvInput &input, fuse::ConvOp conv) {
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  int64_t channels = s.channels;
  if (std::optional<fuse::SliceView> view =
          fuse::sliceViewOf(conv->getParentOfType<fuse::SuperkernelOp>().getInputs()[input.source.getArgNumber()]))
    channels = view->extent;
  return {channels * s.height * s.width, channels};
}

/// Code after `acc` holds the conv result for output (on, co, oh, ow): the
/// bias, the fused epilogue, and the stores at `stored`, the output's dense
/// index (g.outputIndex() unless a template knows it another way).
LogicalResult emitEpilogue(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue, std::string &code,
                           const std::string &indent, const ConvGeometry &g,
                           const std::optional<std::string> &stored = std::nullopt) {
  if (conv.getBias())
    code += indent + "acc += fusec_ld(&" + builder.inputName(conv.getBias()) + "[co]);\n";
  const std::vector<std::string> coords = g.outputCoords();
  builder.bind(conv.getOutput(), roundedTo(fuse::elementTypeOf(conv.getOutput()), "acc"));
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  builder.emitStores(code, indent, shapeOf(conv.getOutput()), stored.value_or(g.outputIndex()), coords);
  builder.emitTransposedStores(code, indent, shapeOf(conv.getOutput()), coords);
  return success();
}

/// The tensor-core implicit GEMM: output channels are the rows (grid.y),
/// the batch's output pixels the columns (grid.x: it grows with the batch).
/// The sizes are scalar arguments, so the text depends only on the config,
/// the window, the element types and the epilogue: a network's convolutions
/// that share those share one compiled program.
FailureOr<GeneratedKernel> emitTensorCoreConv(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                              ArrayRef<Operation *> epilogue, const fuse::KernelConfig &config) {
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  // kernelConfigFor admitted the slice too: its images fit 32-bit offsets
  // and its NHWC pixels are aligned to the copies.
  const auto [imageStride, pixelStride] = inputStrides(input, conv);
  auto prologue = prologueFunctor(builder, conv, input);
  if (failed(prologue))
    return failure();
  // With a prologue the operand names its element type and the functor's.
  const std::string elementArgument = prologue->empty()
                                          ? operandElementArgument(config)
                                          : ", " + operandElementType(config.operands) + ", decltype(prologue)";
  auto out = shapeOf(conv.getOutput());
  auto constant = [](int64_t value) { return std::to_string(value); };
  // kernelConfigFor admitted the conv: every size but the batch is static
  // and one image's offsets fit 32 bits.
  auto size = [&](int64_t value) { return builder.scalarArgument(static_cast<uint32_t>(value)); };
  std::string window = constant(s.kernelH) + ", " + constant(s.kernelW);
  for (int64_t value : {conv.getStrides()[0], conv.getStrides()[1], conv.getPads()[0], conv.getPads()[1],
                        conv.getDilations()[0], conv.getDilations()[1], int64_t(config.bVector)})
    window += ", " + constant(value);
  std::string operand;
  if (s.channelsLast) {
    // Each thread copies one k column of whole B rows (pixels), RowStep
    // apart: what the main loop's tile loads give (it checks).
    const int64_t vectorsPerRow = config.blockK / config.bVector;
    const int64_t rows = config.blockN * vectorsPerRow / config.threads(), rowStep = config.threads() / vectorsPerRow;
    operand = "FusecIm2colNhwcB<" + window + ", " + constant(rows) + ", " + constant(rowStep) + elementArgument + ">";
  } else {
    operand = "FusecIm2colB<" + window + elementArgument + ">";
  }
  std::string code = *prologue;
  code += "  using Gemm = " + tensorCoreGemmType(config, builder.declareTile(TileDescription(config)), operand) + ";\n";
  KernelLaunch launch;
  emitPipelineSharedMemory(code, config.sharedBytes(/*bTransposed=*/s.channelsLast), launch);
  // One statement per argument: they are numbered in the order taken.
  const std::string outChannels = size(s.filters), taps = size(s.taps());
  const std::string outRows = size(s.outHeight);
  const std::string outColumns = size(s.outWidth);
  const std::string pixels = builder.divisorArgument(static_cast<uint32_t>(s.pixels()));
  const std::string columns = builder.divisorArgument(static_cast<uint32_t>(s.outWidth));
  const std::string rows = size(s.height);
  const std::string width = size(s.width);
  const std::string imageElements = size(imageStride);
  code += "  const int M = int(" + outChannels + "), K = int(" + taps + ");\n";
  code += "  const long long Co = M, HO = " + outRows + ", WO = " + outColumns + ";\n";
  code += "  const FusecDivisor pixels = " + pixels + ", columns = " + columns + ";\n";
  code += "  const int N = int((long long)batch * pixels.divisor);\n";
  const std::string sizes =
      "FusecIm2colSizes{int(" + rows + "), int(" + width + "), " + imageElements + ", pixels, columns}";
  const std::string withPrologue = prologue->empty() ? "" : ", prologue";
  if (s.channelsLast)
    code += "  " + operand + " bOperand(" + builder.inputName(input.source) + ", " + sizes + ", " +
            builder.divisorArgument(static_cast<uint32_t>(s.channels)) + ", int(" + size(pixelStride) + ")" +
            withPrologue + ");\n";
  else
    code += "  " + operand + " bOperand(" + builder.inputName(input.source) + ", " + sizes + withPrologue + ");\n";
  // The lane's (row, col) is (output channel, pixel of the batch).
  code += "  auto epilogue = [&](int row, int col, float acc) {\n";
  code += "    const unsigned image = pixels.divide(unsigned(col)), pixel = unsigned(col) - image * pixels.divisor;\n";
  code += "    const unsigned outRow = columns.divide(pixel);\n";
  // The epilogue reads the coordinates its broadcasts need, often none of
  // the spatial ones.
  code += "    [[maybe_unused]] const long long co = row, on = image, oh = outRow, ow = pixel - outRow * "
          "columns.divisor;\n";
  std::vector<std::string> dims = {dimExpr(out[0]), "Co", "HO", "WO"};
  std::string stored = "(on * Co + co) * (HO * WO) + pixel";
  if (s.channelsLast) {
    dims = {dimExpr(out[0]), "HO", "WO", "Co"};
    stored = "(long long)col * Co + co";
  }
  builder.setIterationDims(out, dims);
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", geometryOf(conv), stored)))
    return failure();
  code += "  };\n";
  const std::string split = emitSplitK(code, config, fuse::kTileCount(conv, config), launch);
  code += "  Gemm::run(" + builder.inputName(conv.getWeight()) +
          ", K, bOperand, M, N, K, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN, "
          "reinterpret_cast<float *>(gemmShared), epilogue" +
          split + ");\n";

  launch.block = {config.threads(), 1, 1};
  launch.grid[0] = gridFor(linearNumel({s.batch, s.outHeight, s.outWidth}), config.blockN);
  launch.grid[1] = gridFor(linearNumel({s.filters}), config.blockM);
  // fusec_conv.h brings fusec_gemm.h; the half main loop is its own header.
  if (config.halfOperands())
    return builder.finish(code, launch, {"fusec_conv.h", tensorCoreGemmHeader(config)});
  return builder.finish(code, launch, {"fusec_conv.h"});
}

/// Any other channels-last conv on the Hopper implicit GEMM (sm_90a,
/// wgmma_gemm, fusec_conv_sm90.h): blocks of `tiling`'s spatial tiles of
/// one image by kBlockN filters; per filter tap one 4-D box of the input
/// (its traversal strides the conv's) and one 3-D box of the weights, {C,
/// KH * KW, Co}. The epilogue gets (image, oh, ow, co) and stores the NHWC
/// element.
FailureOr<GeneratedKernel> emitWgmmaSpatialConv(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                                ArrayRef<Operation *> epilogue, const fuse::KernelConfig &config,
                                                const fuse::WgmmaConvTiling &tiling) {
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  const ConvGeometry g = geometryOf(conv);
  const bool bf16 = config.operands == fuse::OperandType::BF16;
  const TileDescription::HopperConvGeometry geometry{
      {1, g.strideH, g.strideW, g.padTop, g.padLeft, g.dilationH, g.dilationW, /*channelsLast=*/true},
      s.kernelH,
      s.kernelW,
      s.channels,
      s.outHeight,
      s.outWidth,
      tiling.tileHeight,
      tiling.tileWidth};
  std::string code =
      "  using Conv = FusecConvSm90<" + builder.declareTile(TileDescription::hopperConv(config, geometry)) + ">;\n";
  code += "  static_assert(Conv::kSmemBytes == " + std::to_string(config.sharedBytes(true)) +
          ", \"the config's shared size\");\n";
  KernelLaunch launch;
  launch.sharedBytes = config.sharedBytes(true);
  const auto weight = llvm::cast<BlockArgument>(conv.getWeight());
  TensorMapDesc image;
  image.buffer = uint32_t(input.source.getArgNumber());
  image.bf16 = bf16;
  image.rows = linearNumel({s.batch});
  image.columns = s.channels;
  image.middle = {s.width, s.height};
  // Under 32 channels: one unswizzled 16-byte box a chunk of 8 channels
  // (fusec_conv_sm90.h).
  image.box = {tiling.narrow ? 8u : 64u, uint32_t(tiling.tileWidth * g.strideW),
               uint32_t(tiling.tileHeight * g.strideH), 1};
  if (tiling.narrow)
    image.swizzleBytes = 0;
  if (g.strideW != 1 || g.strideH != 1)
    image.elementStrides = {1, uint32_t(g.strideW), uint32_t(g.strideH), 1};
  // The weights: {C, KH * KW, Co} boxes of one tap, or (narrow) Co rows of
  // KH * KW * C, 64 of them (8 chunks) a box.
  TensorMapDesc filters = TensorMapDesc::matrix(uint32_t(weight.getArgNumber()), bf16, BatchLinear{0, s.filters},
                                                s.kernelH * s.kernelW * s.channels, uint32_t(config.blockN));
  if (!tiling.narrow) {
    filters.columns = s.channels;
    filters.middle = {s.kernelH * s.kernelW};
    filters.box = {64, 1, uint32_t(config.blockN)};
  }
  launch.tensorMaps = {image, filters};
  builder.setLaunchBounds(config.threads(), 1);
  const std::string height = std::to_string(s.outHeight) + "LL", width = std::to_string(s.outWidth) + "LL",
                    channels = std::to_string(s.filters) + "LL";
  code += "  auto epilogue = [&](int image, int outRow, int outCol, int col, float acc) {\n";
  code += "    [[maybe_unused]] const long long co = col, on = image, oh = outRow, ow = outCol;\n";
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", g,
                          "((on * " + height + " + oh) * " + width + " + ow) * " + channels + " + co")))
    return failure();
  code += "  };\n";
  code += "  Conv::run(&fusec_map0, &fusec_map1, int(" + channels +
          "), blockIdx.x, blockIdx.y * Conv::kBlockN, epilogue);\n";
  launch.block = {config.threads(), 1, 1};
  launch.grid[0] = gridFor(linearNumel({s.batch, tiling.tilesPerImage}), 1);
  launch.grid[1] = gridFor(BatchLinear{0, s.filters}, config.blockN);
  return builder.finish(code, launch, {"fusec_conv_sm90.h"});
}

/// A pointwise channels-last conv on the Hopper GEMM (sm_90a, wgmma_gemm):
/// the batch's pixels are A's rows (M = batch * H * W, K = C channels, as
/// the input stores them), the weights B (Co x C, K-major: OHWI with a 1x1
/// window), each read through a tensor map; the epilogue gets (pixel of the
/// batch, output channel) and stores at pixel * Co + co, the NHWC element.
/// Other convs go to emitWgmmaSpatialConv.
FailureOr<GeneratedKernel> emitWgmmaConv(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                         ArrayRef<Operation *> epilogue, const fuse::KernelConfig &config) {
  if (const fuse::WgmmaConvTiling tiling = fuse::wgmmaConvTiling(conv, config.blockM); !tiling.product)
    return emitWgmmaSpatialConv(builder, conv, input, epilogue, config, tiling);
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  const bool bf16 = config.operands == fuse::OperandType::BF16;
  // kernelConfigFor admitted the conv (wgmmaConvProblem): 1x1, stride 1,
  // no padding, no prologue, a dense input, every size but the batch static.
  const BatchLinear rows = linearNumel(shapeOf(input.source).drop_back(1));
  // The coordinates divide by constants in 32 bits (rows stay below 2^31:
  // wgmmaConvProblem), a multiply-high each.
  const std::string pixels = std::to_string(s.pixels()) + "u", width = std::to_string(s.outWidth) + "u",
                    filters = std::to_string(s.filters) + "LL";
  std::string code =
      "  using Gemm = FusecGemmSm90<" + builder.declareTile(TileDescription::hopperGemm(config, false)) + ">;\n";
  code += "  static_assert(Gemm::kSmemBytes == " + std::to_string(config.sharedBytes(true)) +
          ", \"the config's shared size\");\n";
  KernelLaunch launch;
  launch.sharedBytes = config.sharedBytes(true);
  const auto weight = llvm::cast<BlockArgument>(conv.getWeight());
  launch.tensorMaps.push_back(
      TensorMapDesc::matrix(uint32_t(input.source.getArgNumber()), bf16, rows, s.channels, uint32_t(config.blockM)));
  launch.tensorMaps.push_back(TensorMapDesc::matrix(uint32_t(weight.getArgNumber()), bf16, BatchLinear{0, s.filters},
                                                    s.channels, uint32_t(config.blockN)));
  builder.setLaunchBounds(config.threads(), 1);
  code += "  const int M = int(" + productExpr(shapeOf(input.source), 0, 3) + "), N = int(" + filters + "), K = int(" +
          std::to_string(s.channels) + "LL);\n";
  code += "  auto epilogue = [&](int row, int col, float acc) {\n";
  // The coordinates the epilogue's broadcasts read (often none but co).
  code += "    const unsigned image = unsigned(row) / " + pixels + ", pixel = unsigned(row) - image * " + pixels +
          ", outRow = pixel / " + width + ";\n";
  code +=
      "    [[maybe_unused]] const long long co = col, on = image, oh = outRow, ow = pixel - outRow * " + width + ";\n";
  if (failed(emitEpilogue(builder, conv, epilogue, code, "    ", geometryOf(conv),
                          "(long long)row * " + filters + " + co")))
    return failure();
  code += "  };\n";
  code += "  Gemm::run(&fusec_map0, &fusec_map1, M, N, K, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, "
          "epilogue);\n";
  launch.block = {config.threads(), 1, 1};
  launch.grid[0] = gridFor(rows, config.blockM);
  launch.grid[1] = gridFor(BatchLinear{0, s.filters}, config.blockN);
  return builder.finish(code, launch, {"fusec_gemm_sm90.h"});
}

/// The description fusec_simt.h's convolutions read: `config`'s fields
/// and the conv's groups and window (TileDescription::convolution).
TileDescription convolutionTile(const fuse::KernelConfig &config, const ConvGeometry &g) {
  return TileDescription::convolution(
      config, {g.group, g.strideH, g.strideW, g.padTop, g.padLeft, g.dilationH, g.dilationW, g.channelsLast});
}

/// `const FusecConvSizes sizes{...};`: the conv's sizes, named.
std::string convSizes(const ConvGeometry &g) {
  const std::pair<const char *, const std::string *> sizes[] = {{"n", &g.n},   {"c", &g.c},   {"h", &g.h},
                                                                {"w", &g.w},   {"co", &g.co}, {"ho", &g.ho},
                                                                {"wo", &g.wo}, {"kh", &g.kh}, {"kw", &g.kw}};
  std::string text = "  const FusecConvSizes sizes{";
  for (const auto &[name, value] : sizes)
    text += std::string(text.back() == '{' ? "" : ", ") + "/*" + name + "=*/" + *value;
  return text + "};\n";
}

/// The functor `input(on, c, ih, iw)`: the input element there (the
/// prologue applied; a slice of a concatenation read through its pitch).
FailureOr<std::string> inputFunctor(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                    const ConvGeometry &g) {
  auto prologue = prologueFunctor(builder, conv, input);
  if (failed(prologue))
    return failure();
  std::string element = builder.load(input.source, g.inputIndex("on", "c", "ih", "iw"));
  if (!prologue->empty())
    element = "prologue(" + element + ", c)";
  return *prologue + "  auto input = [&](long long on, long long c, long long ih, long long iw) { return " + element +
         "; };\n";
}

/// The functor `epilogue(on, co, oh, ow, acc)`: the bias, the fused
/// epilogue and the stores of output (on, co, oh, ow).
FailureOr<std::string> epilogueFunctor(KernelBuilder &builder, fuse::ConvOp conv, ArrayRef<Operation *> epilogue,
                                       const ConvGeometry &g) {
  std::string text = "  auto epilogue = [&](long long on, long long co, long long oh, long long ow, float acc) {\n";
  if (failed(emitEpilogue(builder, conv, epilogue, text, "    ", g)))
    return failure();
  return text + "  };\n";
}

/// The SIMT implicit GEMM (FusecSimtConv of fusec_simt.h): T x T tiles of
/// pixels (rows, grid.x: they grow with the batch, 2^31 - 1 blocks) by
/// output channels (columns, grid.y).
FailureOr<GeneratedKernel> emitImplicitGemm(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                            ArrayRef<Operation *> epilogue, const fuse::KernelConfig &config) {
  ConvGeometry g = geometryOf(conv);
  const int64_t tile = config.blockM;
  std::string code = "  using Conv = FusecSimtConv<" + builder.declareTile(convolutionTile(config, g)) + ">;\n";
  code += "  __shared__ Conv::Tile tileA, tileB;\n";
  code += "  static_assert(Conv::kSmemBytes == " + std::to_string(config.sharedBytes(false)) +
          ", \"the config's shared size\");\n";
  code += convSizes(g);
  // The weights are the Co x K matrix they are stored as, k as the taps.
  code += "  const long long K = sizes.taps();\n";
  auto inputCode = inputFunctor(builder, conv, input, g);
  if (failed(inputCode))
    return failure();
  code += *inputCode;
  code += "  auto weight = [&](long long co, long long k) { return fusec_ld(&" + builder.inputName(conv.getWeight()) +
          "[co * K + k]); };\n";
  auto epilogueCode = epilogueFunctor(builder, conv, epilogue, g);
  if (failed(epilogueCode))
    return failure();
  code += *epilogueCode;
  code += "  Conv::run(sizes, (long long)blockIdx.x * Conv::kTile, (long long)blockIdx.y * Conv::kTile, tileA, tileB, "
          "input, weight, epilogue);\n";

  KernelLaunch launch;
  launch.block = {tile, tile, 1};
  const fuse::ConvShape s = fuse::convShapeOf(conv);
  launch.grid[0] = gridFor(linearNumel({s.batch, s.outHeight, s.outWidth}), tile);
  launch.grid[1] = gridFor(linearNumel({s.filters}), tile);
  return builder.finish(code, launch, {"fusec_simt.h"});
}

/// The direct convolution (FusecDirectConv of fusec_simt.h): one thread
/// per output element, blocks of the config's blockM threads.
FailureOr<GeneratedKernel> emitDirectConv(KernelBuilder &builder, fuse::ConvOp conv, const ConvInput &input,
                                          ArrayRef<Operation *> epilogue, const fuse::KernelConfig &config) {
  ConvGeometry g = geometryOf(conv);
  std::string code = "  using Conv = FusecDirectConv<" + builder.declareTile(convolutionTile(config, g)) + ">;\n";
  code += convSizes(g);
  code += "  const long long perGroupIn = Conv::inputChannelsPerGroup(sizes);\n";
  auto inputCode = inputFunctor(builder, conv, input, g);
  if (failed(inputCode))
    return failure();
  code += *inputCode;
  code += "  auto weight = [&](long long co, long long c, long long kh, long long kw) { return fusec_ld(&" +
          builder.inputName(conv.getWeight()) + "[" + g.weightIndex("co", "c", "kh", "kw", "perGroupIn") + "]); };\n";
  auto epilogueCode = epilogueFunctor(builder, conv, epilogue, g);
  if (failed(epilogueCode))
    return failure();
  code += *epilogueCode;
  code += "  Conv::run(sizes, input, weight, epilogue);\n";

  KernelLaunch launch;
  launch.block = {config.blockM, 1, 1};
  launch.grid[0] = gridFor(linearNumel(shapeOf(conv.getOutput())), config.blockM);
  return builder.finish(code, launch, {"fusec_simt.h"});
}

} // namespace

FailureOr<GeneratedKernel> emitConvKernel(KernelBuilder &builder) {
  std::vector<Operation *> epilogue;
  ConvInput input;
  auto found = findConv(builder, input, epilogue);
  if (failed(found))
    return failure();
  fuse::ConvOp conv = *found;
  auto config = kernelConfigFor(builder, conv);
  if (failed(config))
    return failure();
  switch (config->kind) {
  case fuse::KernelTemplate::TensorCoreConv:
    return emitTensorCoreConv(builder, conv, input, epilogue, *config);
  case fuse::KernelTemplate::SimtConv:
    return emitImplicitGemm(builder, conv, input, epilogue, *config);
  case fuse::KernelTemplate::WgmmaGemm:
    return emitWgmmaConv(builder, conv, input, epilogue, *config);
  default:
    return emitDirectConv(builder, conv, input, epilogue, *config);
  }
}

} // namespace fusec::codegen
