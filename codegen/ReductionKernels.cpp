//===- ReductionKernels.cpp - Softmax, LayerNorm, Reduce*, GAP ------------===//
//
// One 256-thread block per reduced row (or output element), on the typed
// device template of codegen/include/fusec_reduction.h, which holds every
// loop and block reduction. This file generates only what the template
// cannot know: the row's sizes, the functors that read an element of the
// row with the fused elementwise prologue evaluated there (`load`) and that
// evaluate the fused epilogue on a result and store it (`output`, `store`),
// the Reduce* arithmetic of support/Reductions.h as a type (`Op`, `Choice`),
// and one call of the template.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"
#include "ir/OpClassification.h"
#include "support/Reductions.h"

#include "llvm/ADT/STLFunctionalExtras.h"

using namespace mlir;

namespace fusec::codegen {
namespace {

/// Threads per block: FusecRowReduction's kThreads.
constexpr int64_t kThreads = 256;
/// Functor bodies are indented once inside the kernel, twice in the text.
const char *const kIndent = "    ";

/// The template instance every reduction kernel calls, as `Rows`.
std::string rowsAlias() { return "  using Rows = FusecRowReduction</*kThreads=*/" + std::to_string(kThreads) + ">;\n"; }

/// `auto name = [&](parameters) { body };`.
std::string functor(const std::string &name, const std::string &parameters, const std::string &body) {
  return "  auto " + name + " = [&](" + parameters + ") {\n" + body + "  };\n";
}

/// A type named `name` with the static device functions `functions` (each
/// "signature", "return expression").
std::string staticFunctions(const std::string &name, ArrayRef<std::pair<std::string, std::string>> functions) {
  std::string text = "  struct " + name + " {\n";
  for (const auto &[signature, expression] : functions)
    text += std::string(kIndent) + "__device__ static " + signature + " { return " + expression + "; }\n";
  return text + "  };\n";
}

/// Appends to `body` the prologue evaluated at the core's linear input
/// index `linear` and `const float x = <input there>;`. Prologue values read
/// outside the kernel are stored at `linear` with `storePrologueOutputs`
/// (kernels whose output shape differs from the input's). The prologue's
/// values stay bound for an epilogue with `keepPrologueBound`.
LogicalResult emitInputValue(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue, std::string &body,
                             const std::string &linear, bool keepPrologueBound, bool storePrologueOutputs) {
  Value input = core->getOperand(0);
  auto coords = builder.emitLinearCoordinates(body, kIndent, shapeOf(input), linear, builder.fresh("x"));
  if (failed(builder.emitElementwise(body, kIndent, prologue, coords)))
    return failure();
  body += std::string(kIndent) + "const float x = " + builder.valueAt(input, coords) + ";\n";
  if (storePrologueOutputs)
    for (auto [index, value] : llvm::enumerate(builder.yields()))
      if (Operation *producer = value.getDefiningOp(); producer && llvm::is_contained(prologue, producer))
        body += std::string(kIndent) + "out" + std::to_string(index) + "[" + linear +
                "] = " + storeExpression(fuse::elementTypeOf(value), builder.valueAt(value, coords)) + ";\n";
  if (!keepPrologueBound)
    for (Operation *op : prologue)
      builder.unbind(op->getResult(0));
  return success();
}

/// Appends to `body` the epilogue on the core's result `value` at output
/// index `linear`, and the stores there.
LogicalResult emitEpilogue(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue, std::string &body,
                           const std::string &linear, const std::string &value) {
  auto shape = shapeOf(core->getResult(0));
  auto coords = builder.emitLinearCoordinates(body, kIndent, shape, linear, builder.fresh("y"));
  builder.bind(core->getResult(0), roundedTo(fuse::elementTypeOf(core->getResult(0)), value));
  if (failed(builder.emitElementwise(body, kIndent, epilogue, coords)))
    return failure();
  builder.emitStores(body, kIndent, shape, linear, coords);
  for (Operation *op : epilogue)
    builder.unbind(op->getResult(0));
  return success();
}

/// The functor `load(position) -> float`: the core's input at `linear`, an
/// expression of `position` (after `preamble`, lines that define what it
/// uses).
FailureOr<std::string> loadFunctor(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue,
                                   const std::string &position, const std::string &linear, std::string preamble = "",
                                   bool storePrologueOutputs = false) {
  std::string body = std::move(preamble);
  if (failed(emitInputValue(builder, core, prologue, body, linear, /*keepPrologueBound=*/false, storePrologueOutputs)))
    return failure();
  return functor("load", "long long " + position, body + kIndent + "return x;\n");
}

/// The functor `output(l, normalize)` of the row templates (normalize: a
/// Rows::<normalizer>): x read at `linear` (an expression of l),
/// `const float y = <result(body)>` (which may append lines to the body
/// first), the epilogue on y at `at`, the same index, and the stores.
FailureOr<std::string> outputFunctor(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue,
                                     ArrayRef<Operation *> epilogue, const std::string &normalizer,
                                     const std::string &linear, llvm::function_ref<std::string(std::string &)> result) {
  std::string body;
  if (failed(emitInputValue(builder, core, prologue, body, linear, /*keepPrologueBound=*/true,
                            /*storePrologueOutputs=*/false)))
    return failure();
  body += std::string(kIndent) + "const long long at = " + linear + ";\n";
  body += std::string(kIndent) + "const float y = " + result(body) + ";\n";
  if (failed(emitEpilogue(builder, core, epilogue, body, "at", "y")))
    return failure();
  for (Operation *op : prologue)
    builder.unbind(op->getResult(0));
  return functor("output", "long long l, const Rows::" + normalizer + " &normalize", body);
}

/// The functor `store(result)` of the one-result templates: the epilogue
/// on `result` (of C type `type`) at output index `outIndex`, and the
/// stores.
FailureOr<std::string> storeFunctor(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue,
                                    const std::string &type) {
  std::string body;
  if (failed(emitEpilogue(builder, core, epilogue, body, "outIndex", "result")))
    return failure();
  return functor("store", type + " result", body);
}

/// Softmax: a block per row of the axis, element l at base + l * inner.
FailureOr<GeneratedKernel> emitSoftmax(KernelBuilder &builder, fuse::SoftmaxOp softmax, ArrayRef<Operation *> prologue,
                                       ArrayRef<Operation *> epilogue) {
  Operation *core = softmax;
  auto in = shapeOf(core->getOperand(0));
  const size_t axis = softmax.getAxis();
  auto load = loadFunctor(builder, core, prologue, "l", "base + l * inner");
  if (failed(load))
    return failure();
  auto output = outputFunctor(builder, core, prologue, epilogue, "SoftmaxNormalizer", "base + l * inner",
                              [](std::string &) { return std::string("normalize(x)"); });
  if (failed(output))
    return failure();
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  // A block per row: every dimension but the axis.
  std::vector<int64_t> rows(in.begin(), in.end());
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(axis));
  setGrid(launch, 0, rows, 1);
  return builder.finish(rowsAlias() + "  __shared__ float scratch[Rows::kScratchFloats];\n" + "  const long long L = " +
                            dimExpr(in[axis]) + ", inner = " + productExpr(in, axis + 1, in.size()) + ";\n" +
                            "  const long long base = Rows::rowBase(blockIdx.x, L, inner);\n" + *load + *output +
                            "  Rows::softmax(L, scratch, load, output);\n",
                        launch, {"fusec_reduction.h"});
}

/// Rows of at most this many elements per thread keep a conv prologue's
/// values in registers (layerNormCached): 2048 channels.
constexpr int64_t kMaxCachedPerThread = 8;

/// Appends the lines computing `const float <name>`, the channels-last
/// depthwise `conv` at output coordinates `coords` (n, h, w, c): its bias
/// plus the taps of the window inside the image, summed in (kh, kw) order in
/// float, rounded to the conv's element type.
void emitDepthwiseConvValue(KernelBuilder &builder, fuse::ConvOp conv, std::string &body,
                            const std::vector<std::string> &coords, const std::string &name) {
  auto in = shapeOf(conv.getInput()), weight = shapeOf(conv.getWeight());
  ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPads(), dilations = conv.getDilations();
  const std::string &n = coords[0], &h = coords[1], &w = coords[2], &c = coords[3];
  const std::string sum = builder.fresh("conv"), kh = builder.fresh("kh"), kw = builder.fresh("kw");
  const std::string ih = builder.fresh("ih"), iw = builder.fresh("iw");
  auto line = [&](const std::string &indent, const std::string &text) { body += kIndent + indent + text + "\n"; };
  auto str = [](int64_t value) { return std::to_string(value); };
  line("", "float " + sum + " = " + (conv.getBias() ? builder.load(conv.getBias(), c) : std::string("0.0f")) + ";");
  line("", "for (long long " + kh + " = 0; " + kh + " < " + str(weight[1]) + "; ++" + kh + ") {");
  line("  ", "const long long " + ih + " = " + h + " * " + str(strides[0]) + " - " + str(pads[0]) + " + " + kh + " * " +
                 str(dilations[0]) + ";");
  line("  ", "if (" + ih + " < 0 || " + ih + " >= " + str(in[1]) + ") continue;");
  line("  ", "for (long long " + kw + " = 0; " + kw + " < " + str(weight[2]) + "; ++" + kw + ") {");
  line("    ", "const long long " + iw + " = " + w + " * " + str(strides[1]) + " - " + str(pads[1]) + " + " + kw +
                   " * " + str(dilations[1]) + ";");
  line("    ", "if (" + iw + " < 0 || " + iw + " >= " + str(in[2]) + ") continue;");
  const std::string pixel =
      "((" + n + " * " + str(in[1]) + " + " + ih + ") * " + str(in[2]) + " + " + iw + ") * " + str(in[3]) + " + " + c;
  const std::string tap = "(" + c + " * " + str(weight[1]) + " + " + kh + ") * " + str(weight[2]) + " + " + kw;
  line("    ", sum + " += " + builder.load(conv.getInput(), pixel) + " * " + builder.load(conv.getWeight(), tap) + ";");
  line("  ", "}");
  line("", "}");
  line("", "const float " + name + " = " + roundedTo(fuse::elementTypeOf(conv.getResult()), sum) + ";");
}

/// LayerNormalization over the channels of a channels-last depthwise conv
/// it computes (rule conv-into-norm): a block per pixel, each element's conv
/// evaluated once and kept in registers (layerNormCached), the scale, bias
/// and epilogue applied to the normalized value.
FailureOr<GeneratedKernel> emitLayerNormOfConv(KernelBuilder &builder, fuse::LayerNormOp norm, fuse::ConvOp conv,
                                               ArrayRef<Operation *> prologue, ArrayRef<Operation *> epilogue) {
  if (prologue.size() != 1 || norm.getInput() != conv.getResult())
    return conv.emitError() << "a conv computing a LayerNorm's input is its only prologue";
  for (Value operand : conv->getOperands())
    if (!llvm::isa<BlockArgument>(operand))
      return conv.emitError() << "a conv computing a LayerNorm's input reads kernel inputs";
  auto in = shapeOf(norm.getInput());
  if (llvm::any_of(in, isRangeDim))
    return norm.emitError() << "a LayerNorm computing its input with a conv runs over no range";
  const int64_t perThread = (in.back() + kThreads - 1) / kThreads;
  if (in.size() != 4 || norm.getAxis() != 3 || perThread > kMaxCachedPerThread)
    return norm.emitError() << "a LayerNorm computing its input with a conv normalises the channels of an NHWC "
                               "image, at most "
                            << kMaxCachedPerThread * kThreads;
  std::string loadBody;
  auto loadCoords = emitCoordinates(loadBody, kIndent, in, "base + l", builder.fresh("x"));
  emitDepthwiseConvValue(builder, conv, loadBody, loadCoords, "x");
  const std::string load = functor("load", "long long l", loadBody + kIndent + "return x;\n");
  std::string outputBody = std::string(kIndent) + "const long long at = base + l;\n";
  auto coords = emitCoordinates(outputBody, kIndent, in, "at", "n");
  std::string y = "normalize(x) * " + builder.valueAt(norm.getScale(), coords);
  if (norm.getBias())
    y += " + " + builder.valueAt(norm.getBias(), coords);
  outputBody += std::string(kIndent) + "const float y = " + y + ";\n";
  if (failed(emitEpilogue(builder, norm, epilogue, outputBody, "at", "y")))
    return failure();
  const std::string output =
      functor("output", "long long l, const Rows::LayerNormNormalizer &normalize, float x", outputBody);
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  setGrid(launch, 0, in.take_front(3), 1);
  return builder.finish(rowsAlias() + "  __shared__ float scratch[Rows::kScratchFloats];\n" +
                            "  const long long L = " + std::to_string(in[3]) + ";\n" +
                            "  const long long base = Rows::rowBase(blockIdx.x, L, 1);\n" + load + output +
                            "  Rows::layerNormCached<" + std::to_string(perThread) + ">(L, " +
                            floatLiteral(norm.getEpsilon().convertToDouble()) + ", scratch, load, output);\n",
                        launch, {"fusec_reduction.h"});
}

/// LayerNormalization: a block per row of the axes from `axis` on (one
/// contiguous run), element l at base + l; scale and bias applied to the
/// normalized value at its coordinates.
FailureOr<GeneratedKernel> emitLayerNorm(KernelBuilder &builder, fuse::LayerNormOp norm, ArrayRef<Operation *> prologue,
                                         ArrayRef<Operation *> epilogue) {
  if (auto conv = prologue.empty() ? fuse::ConvOp() : llvm::dyn_cast<fuse::ConvOp>(prologue.front()))
    return emitLayerNormOfConv(builder, norm, conv, prologue, epilogue);
  Operation *core = norm;
  auto in = shapeOf(core->getOperand(0));
  const size_t axis = norm.getAxis();
  auto load = loadFunctor(builder, core, prologue, "l", "base + l");
  if (failed(load))
    return failure();
  auto output =
      outputFunctor(builder, core, prologue, epilogue, "LayerNormNormalizer", "base + l", [&](std::string &body) {
        auto coords = emitCoordinates(body, kIndent, in, "at", "n");
        std::string y = "normalize(x) * " + builder.valueAt(norm.getScale(), coords);
        if (norm.getBias())
          y += " + " + builder.valueAt(norm.getBias(), coords);
        return y;
      });
  if (failed(output))
    return failure();
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  setGrid(launch, 0, in.take_front(axis), 1);
  return builder.finish(rowsAlias() + "  __shared__ float scratch[Rows::kScratchFloats];\n" +
                            "  const long long L = " + productExpr(in, axis, in.size()) + ";\n" +
                            "  const long long base = Rows::rowBase(blockIdx.x, L, 1);\n" + *load + *output +
                            "  Rows::layerNorm(L, " + floatLiteral(norm.getEpsilon().convertToDouble()) +
                            ", scratch, load, output);\n",
                        launch, {"fusec_reduction.h"});
}

/// ArgMax / ArgMin: a block per output element, element l of its axis at
/// base + l * inner; the choice is support/Reductions.h's argPrefers.
FailureOr<GeneratedKernel> emitArgReduce(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue,
                                         ArrayRef<Operation *> epilogue) {
  auto in = shapeOf(core->getOperand(0));
  const bool largest = llvm::isa<fuse::ArgMaxOp>(core);
  const size_t axis = core->getAttrOfType<IntegerAttr>("axis").getInt();
  const bool last = core->getAttrOfType<BoolAttr>("select_last_index").getValue();
  const std::string choice = staticFunctions(
      "Choice", {{"bool prefers(float value, long long index, float current, long long currentIndex)",
                  reductions::argPrefersExpression(largest, last, "value", "index", "current", "currentIndex")}});
  auto load = loadFunctor(builder, core, prologue, "l", "base + l * inner");
  if (failed(load))
    return failure();
  auto store = storeFunctor(builder, core, epilogue, "long long");
  if (failed(store))
    return failure();
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  setGrid(launch, 0, shapeOf(core->getResult(0)), 1);
  return builder.finish(
      rowsAlias() + "  __shared__ float choiceValue[Rows::kThreads];\n" +
          "  __shared__ long long choiceIndex[Rows::kThreads];\n" + "  const long long outIndex = blockIdx.x;\n" +
          "  const long long L = " + dimExpr(in[axis]) + ", inner = " + productExpr(in, axis + 1, in.size()) + ";\n" +
          "  const long long base = Rows::rowBase(outIndex, L, inner);\n" + choice + *load + *store +
          "  Rows::argReduce<Choice>(L, choiceValue, choiceIndex, load, store);\n",
      launch, {"fusec_reduction.h"});
}

/// Reduce* and GlobalAveragePool (a ReduceMean over H and W): a block per
/// output element, whose kept coordinates come from outIndex; element r is
/// the r-th of the reduced dimensions. The arithmetic is
/// support/Reductions.h's.
FailureOr<GeneratedKernel> emitReduce(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue,
                                      ArrayRef<Operation *> epilogue) {
  auto in = shapeOf(core->getOperand(0));
  SmallVector<int64_t> axes;
  reductions::Kind kind = reductions::Kind::Mean;
  if (auto reduceAxes = core->getAttrOfType<DenseI64ArrayAttr>("axes")) {
    axes.assign(reduceAxes.asArrayRef().begin(), reduceAxes.asArrayRef().end());
    auto named = reductions::kindOf(llvm::cast<fuse::OnnxOpInterface>(core).getOnnxName().str());
    if (!named)
      return core->emitError() << "codegen has no reduction for this op";
    kind = *named;
  } else {
    for (size_t d = 2; d < in.size(); ++d)
      axes.push_back(d);
  }
  SmallVector<int64_t> kept, reduced;
  for (size_t d = 0; d < in.size(); ++d)
    (llvm::is_contained(axes, int64_t(d)) ? reduced : kept).push_back(in[d]);
  std::string sizes = "  const long long outIndex = blockIdx.x;\n  const long long R = " + numelExpr(reduced) + ";\n";
  auto keptCoords = emitCoordinates(sizes, "  ", kept, "outIndex", "k");

  // The input's coordinates: the kept ones of the block, the reduced ones
  // of element r.
  std::string preamble;
  auto reducedCoords = emitCoordinates(preamble, kIndent, reduced, "r", "q");
  std::vector<std::string> inputCoords;
  inputCoords.reserve(in.size());
  size_t nextKept = 0, nextReduced = 0;
  for (size_t d = 0; d < in.size(); ++d)
    inputCoords.push_back(llvm::is_contained(axes, int64_t(d)) ? reducedCoords[nextReduced++] : keptCoords[nextKept++]);
  preamble += std::string(kIndent) + "const long long at = " + linearOffset(in, inputCoords) + ";\n";
  auto load = loadFunctor(builder, core, prologue, "r", "at", preamble, /*storePrologueOutputs=*/true);
  if (failed(load))
    return failure();
  auto store = storeFunctor(builder, core, epilogue, "float");
  if (failed(store))
    return failure();
  const std::string op = staticFunctions(
      "Op",
      {{"float identity()", reductions::initialExpression(kind)},
       {"float contribution(float x)", reductions::contributionExpression(kind, "x")},
       {"float combine(float a, float b)", reductions::combineExpression(kind, "a", "b")},
       {"float finish(float v, [[maybe_unused]] long long count)", reductions::finishExpression(kind, "v", "count")}});
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  setGrid(launch, 0, shapeOf(core->getResult(0)), 1);
  return builder.finish(rowsAlias() + "  __shared__ float scratch[Rows::kScratchFloats];\n" + sizes + op + *load +
                            *store + "  Rows::reduce<Op>(R, scratch, load, store);\n",
                        launch, {"fusec_reduction.h"});
}

} // namespace

FailureOr<GeneratedKernel> emitReductionKernel(KernelBuilder &builder) {
  Operation *core = nullptr;
  for (Operation *op : builder.bodyOps())
    if (fuse::classifyOp(op) == fuse::OpClass::Reduction)
      core = op;
  if (!core)
    return builder.getKernel().emitError() << "reduction kernel without a reduction";
  std::vector<Operation *> prologue, epilogue;
  splitAroundCore(builder, core, prologue, epilogue);
  if (auto softmax = llvm::dyn_cast<fuse::SoftmaxOp>(core))
    return emitSoftmax(builder, softmax, prologue, epilogue);
  if (auto norm = llvm::dyn_cast<fuse::LayerNormOp>(core))
    return emitLayerNorm(builder, norm, prologue, epilogue);
  if (llvm::isa<fuse::ArgMaxOp, fuse::ArgMinOp>(core))
    return emitArgReduce(builder, core, prologue, epilogue);
  return emitReduce(builder, core, prologue, epilogue);
}

} // namespace fusec::codegen
