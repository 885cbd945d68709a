//===- ReductionKernels.cpp - Softmax, LayerNorm, Reduce*, GAP ------------===//
//
// One 256-thread block per reduced row (or output element): each thread
// strides over the row, a warp-shuffle + shared-memory block reduction
// combines the partial results, and the fused elementwise prologue (on the
// reduction's input) and epilogue (on its output) are evaluated inline.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"
#include "ir/OpClassification.h"
#include "runtime/support/Reductions.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec::codegen {
namespace {

constexpr int64_t kThreads = 256;

/// Emits `float <name> = <core input at linear input index `linear`>`,
/// evaluating the prologue there.
LogicalResult emitInputValue(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> prologue, std::string &code,
                             const std::string &indent, const std::string &linear, const std::string &name,
                             bool keepPrologueBound = false, bool storePrologueOutputs = false) {
  Value input = core->getOperand(0);
  auto coords = builder.emitLinearCoordinates(code, indent, shapeOf(input), linear, builder.fresh("x"));
  if (failed(builder.emitElementwise(code, indent, prologue, coords)))
    return failure();
  code += indent + "float " + name + " = " + builder.valueAt(input, coords) + ";\n";
  // Prologue values read outside the kernel are written where they are
  // computed (kernels whose output shape differs from the input's).
  if (storePrologueOutputs)
    for (auto [index, value] : llvm::enumerate(builder.yields()))
      if (Operation *producer = value.getDefiningOp(); producer && llvm::is_contained(prologue, producer))
        code += indent + "out" + std::to_string(index) + "[" + linear +
                "] = " + storeExpression(fuse::elementTypeOf(value), builder.valueAt(value, coords)) + ";\n";
  if (!keepPrologueBound)
    for (Operation *op : prologue)
      builder.unbind(op->getResult(0));
  return success();
}

/// Stores the core result `value` at output index `linear` after the epilogue.
LogicalResult emitOutput(KernelBuilder &builder, Operation *core, ArrayRef<Operation *> epilogue, std::string &code,
                         const std::string &indent, const std::string &linear, const std::string &value) {
  auto shape = shapeOf(core->getResult(0));
  auto coords = builder.emitLinearCoordinates(code, indent, shape, linear, builder.fresh("y"));
  builder.bind(core->getResult(0), roundedTo(fuse::elementTypeOf(core->getResult(0)), value));
  if (failed(builder.emitElementwise(code, indent, epilogue, coords)))
    return failure();
  builder.emitStores(code, indent, shape, linear, coords);
  for (Operation *op : epilogue)
    builder.unbind(op->getResult(0));
  return success();
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
  auto in = shapeOf(core->getOperand(0));
  std::string code = "  __shared__ float scratch[32];\n";
  const std::string i1 = "  ", i2 = "    ";
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};

  if (auto softmax = llvm::dyn_cast<fuse::SoftmaxOp>(core)) {
    size_t axis = softmax.getAxis();
    std::string length = dimExpr(in[axis]), inner = productExpr(in, axis + 1, in.size());
    code += i1 + "const long long row = blockIdx.x;\n";
    code += i1 + "const long long L = " + length + ", inner = " + inner + ";\n";
    code += i1 + "const long long base = (row / inner) * L * inner + row % inner;\n";
    code += i1 + "float localMax = -INFINITY;\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l * inner", "x")))
      return failure();
    code += i2 + "localMax = fmaxf(localMax, x);\n" + i1 + "}\n";
    code += i1 + "const float rowMax = fusec_block_max(localMax, scratch);\n";
    code += i1 + "float localSum = 0.0f;\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l * inner", "x")))
      return failure();
    code += i2 + "localSum += expf(x - rowMax);\n" + i1 + "}\n";
    code += i1 + "const float rowSum = fusec_block_sum(localSum, scratch);\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l * inner", "x",
                              /*keepPrologueBound=*/true)))
      return failure();
    code += i2 + "const float y = expf(x - rowMax) / rowSum;\n";
    code += i2 + "const long long at = base + l * inner;\n";
    if (failed(emitOutput(builder, core, epilogue, code, i2, "at", "y")))
      return failure();
    code += i1 + "}\n";
    BatchLinear rows = linearNumel(in);
    int64_t length_ = in[axis];
    launch.grid[0] = {{rows.perBatch / length_, rows.fixed / length_}, 1};
  } else if (auto norm = llvm::dyn_cast<fuse::LayerNormOp>(core)) {
    size_t axis = norm.getAxis();
    code += i1 + "const long long row = blockIdx.x;\n";
    code += i1 + "const long long L = " + productExpr(in, axis, in.size()) + ";\n";
    code += i1 + "const long long base = row * L;\n";
    code += i1 + "float localSum = 0.0f;\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l", "x")))
      return failure();
    code += i2 + "localSum += x;\n" + i1 + "}\n";
    code += i1 + "const float mean = fusec_block_sum(localSum, scratch) / (float)L;\n";
    code += i1 + "float localSquares = 0.0f;\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l", "x")))
      return failure();
    code += i2 + "localSquares += (x - mean) * (x - mean);\n" + i1 + "}\n";
    code += i1 + "const float invStd = 1.0f / sqrtf(fusec_block_sum(localSquares, scratch) / (float)L + " +
            floatLiteral(norm.getEpsilon().convertToDouble()) + ");\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l", "x",
                              /*keepPrologueBound=*/true)))
      return failure();
    code += i2 + "const long long at = base + l;\n";
    auto coords = emitCoordinates(code, i2, in, "at", "n");
    std::string y = "(x - mean) * invStd * " + builder.valueAt(norm.getScale(), coords);
    if (norm.getBias())
      y += " + " + builder.valueAt(norm.getBias(), coords);
    code += i2 + "const float y = " + y + ";\n";
    if (failed(emitOutput(builder, core, epilogue, code, i2, "at", "y")))
      return failure();
    code += i1 + "}\n";
    launch.grid[0] = gridFor(linearNumel(in.take_front(axis)), 1);
  } else if (llvm::isa<fuse::ArgMaxOp, fuse::ArgMinOp>(core)) {
    // One block per output element: each thread keeps its choice over a
    // strided share of the axis, then a shared-memory tree combines the
    // choices with reductions::argPrefers (associative, so any order).
    const bool largest = llvm::isa<fuse::ArgMaxOp>(core);
    const size_t axis = core->getAttrOfType<IntegerAttr>("axis").getInt();
    const bool last = core->getAttrOfType<BoolAttr>("select_last_index").getValue();
    auto prefers = [&](const std::string &value, const std::string &index, const std::string &current,
                       const std::string &currentIndex) {
      return reductions::argPrefersExpression(largest, last, value, index, current, currentIndex);
    };
    code += i1 + "__shared__ float choiceValue[" + std::to_string(kThreads) + "];\n";
    code += i1 + "__shared__ long long choiceIndex[" + std::to_string(kThreads) + "];\n";
    code += i1 + "const long long outIndex = blockIdx.x;\n";
    code +=
        i1 + "const long long L = " + dimExpr(in[axis]) + ", inner = " + productExpr(in, axis + 1, in.size()) + ";\n";
    code += i1 + "const long long base = (outIndex / inner) * L * inner + outIndex % inner;\n";
    code += i1 + "float best = 0.0f;\n" + i1 + "long long bestIndex = -1;\n";
    code += i1 + "for (long long l = threadIdx.x; l < L; l += blockDim.x) {\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "base + l * inner", "x")))
      return failure();
    code += i2 + "if " + prefers("x", "l", "best", "bestIndex") + " { best = x; bestIndex = l; }\n" + i1 + "}\n";
    code += i1 + "choiceValue[threadIdx.x] = best;\n" + i1 + "choiceIndex[threadIdx.x] = bestIndex;\n";
    code += i1 + "__syncthreads();\n";
    code += i1 + "for (int half = blockDim.x / 2; half > 0; half /= 2) {\n";
    code += i2 + "if (threadIdx.x < half) {\n";
    code += i2 + "  const float other = choiceValue[threadIdx.x + half], mine = choiceValue[threadIdx.x];\n";
    code += i2 + "  const long long otherIndex = choiceIndex[threadIdx.x + half], mineIndex = " +
            "choiceIndex[threadIdx.x];\n";
    code += i2 + "  if " + prefers("other", "otherIndex", "mine", "mineIndex") +
            " { choiceValue[threadIdx.x] = other; choiceIndex[threadIdx.x] = otherIndex; }\n";
    code += i2 + "}\n" + i2 + "__syncthreads();\n" + i1 + "}\n";
    code += i1 + "if (threadIdx.x == 0) {\n";
    if (failed(emitOutput(builder, core, epilogue, code, i2, "outIndex", "choiceIndex[0]")))
      return failure();
    code += i1 + "}\n";
    launch.grid[0] = gridFor(linearNumel(shapeOf(core->getResult(0))), 1);
  } else {
    // Reduce* / GlobalAveragePool (a mean over H, W): one block per output
    // element; the arithmetic is runtime/support/Reductions.h's.
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
    auto out = shapeOf(core->getResult(0));
    code += i1 + "const long long outIndex = blockIdx.x;\n";
    code += i1 + "const long long R = " + numelExpr(reduced) + ";\n";
    auto keptCoords = emitCoordinates(code, i1, kept, "outIndex", "k");
    code += i1 + "float local = " + reductions::initialExpression(kind) + ";\n";
    code += i1 + "for (long long r = threadIdx.x; r < R; r += blockDim.x) {\n";
    auto reducedCoords = emitCoordinates(code, i2, reduced, "r", "q");
    std::vector<std::string> inputCoords;
    inputCoords.reserve(in.size());
    size_t nextKept = 0, nextReduced = 0;
    for (size_t d = 0; d < in.size(); ++d)
      inputCoords.push_back(llvm::is_contained(axes, int64_t(d)) ? reducedCoords[nextReduced++]
                                                                 : keptCoords[nextKept++]);
    code += i2 + "const long long at = " + linearOffset(in, inputCoords) + ";\n";
    if (failed(emitInputValue(builder, core, prologue, code, i2, "at", "x",
                              /*keepPrologueBound=*/false, /*storePrologueOutputs=*/true)))
      return failure();
    // Sums of any contribution use the shuffle-add reduction; Max, Min and
    // Prod combine through fusec_block_reduce.
    const bool additive = reductions::initial(kind) == 0.0;
    const std::string contribution = reductions::contributionExpression(kind, "x");
    if (additive)
      code += i2 + "local += " + contribution + ";\n" + i1 + "}\n";
    else
      code += i2 + "local = " + reductions::combineExpression(kind, "local", contribution) + ";\n" + i1 + "}\n";
    const std::string combined = additive ? "fusec_block_sum(local, scratch)"
                                          : "fusec_block_reduce(local, " + reductions::initialExpression(kind) +
                                                ", scratch, [](float a, float b) { return " +
                                                reductions::combineExpression(kind, "a", "b") + "; })";
    code += i1 + "const float result = " + reductions::finishExpression(kind, combined, "R") + ";\n";
    code += i1 + "if (threadIdx.x == 0) {\n";
    if (failed(emitOutput(builder, core, epilogue, code, i2, "outIndex", "result")))
      return failure();
    code += i1 + "}\n";
    launch.grid[0] = gridFor(linearNumel(out), 1);
  }
  return builder.finish(code, launch);
}

} // namespace fusec::codegen
