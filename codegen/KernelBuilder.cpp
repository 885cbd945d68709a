//===- KernelBuilder.cpp - Shared pieces of kernel emission ---------------===//
#include "codegen/KernelBuilder.h"

#include "ir/ElementTypes.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"
#include "ir/StridedView.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;

namespace fusec::codegen {

std::string storageType(Type elementType) {
  if (elementType.isF16())
    return "fusec_f16";
  if (elementType.isBF16())
    return "fusec_bf16";
  if (elementType.isSignlessInteger(64))
    return "long long";
  if (elementType.isSignlessInteger(32))
    return "int";
  if (elementType.isSignlessInteger(1))
    return "bool";
  if (elementType.isSignlessInteger(8))
    return "signed char";
  if (elementType.isUnsignedInteger(8))
    return "unsigned char";
  assert(elementType.isF32() && "the dialect admits no other element type");
  return "float";
}

std::string registerType(Type elementType) {
  return fuse::isComputeElementType(elementType) ? "float" : storageType(elementType);
}

std::string storeExpression(Type elementType, const std::string &expression) {
  if (!fuse::isComputeElementType(elementType) || elementType.isF32())
    return expression;
  return "fusec_convert<" + storageType(elementType) + ">::from(" + expression + ")";
}

std::string roundedTo(Type elementType, const std::string &expression) {
  if (elementType.isF16() || elementType.isBF16())
    return "fusec_round<" + storageType(elementType) + ">(" + expression + ")";
  return expression;
}

namespace {

/// Rounding and trigonometry on `x` (a float register), in the math
/// functions CUDA and the host emulation share.
std::string unaryMathExpression(Operation *op, const std::string &x) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](fuse::FloorOp) { return "floorf(" + x + ")"; })
      .Case([&](fuse::CeilOp) { return "ceilf(" + x + ")"; })
      .Case([&](fuse::RoundOp) { return "rintf(" + x + ")"; })
      .Case([&](fuse::SignOp) { return "(" + x + " > 0.0f ? 1.0f : " + x + " < 0.0f ? -1.0f : " + x + ")"; })
      .Case([&](fuse::SinOp) { return "sinf(" + x + ")"; })
      .Case([&](fuse::CosOp) { return "cosf(" + x + ")"; })
      .Case([&](fuse::TanOp) { return "tanf(" + x + ")"; })
      .Case([&](fuse::AsinOp) { return "asinf(" + x + ")"; })
      .Case([&](fuse::AcosOp) { return "acosf(" + x + ")"; })
      .Case([&](fuse::AtanOp) { return "atanf(" + x + ")"; })
      .Case([&](fuse::SinhOp) { return "sinhf(" + x + ")"; })
      .Case([&](fuse::CoshOp) { return "coshf(" + x + ")"; })
      .Case([&](fuse::AsinhOp) { return "asinhf(" + x + ")"; })
      .Case([&](fuse::AcoshOp) { return "acoshf(" + x + ")"; })
      .Case([&](fuse::AtanhOp) { return "atanhf(" + x + ")"; })
      .Default([](Operation *) -> std::string { llvm_unreachable("not a rounding or trigonometric op"); });
}

/// The expression of fuse.cast from `from` (an expression in `input`'s
/// register type) to `output`'s element type.
std::string castExpression(Type input, Type output, const std::string &from) {
  if (fuse::isComputeElementType(output)) {
    // An integer becomes an f16/bf16 by one rounding (the plan's Cast rule):
    // through a float rounded to odd, which the second rounding cannot
    // round twice.
    std::string asFloat = fuse::isComputeElementType(input) ? from
                          : output.isF32()                  ? "float(" + from + ")"
                                                            : "fusec_int_to_float_odd(" + from + ")";
    return roundedTo(output, asFloat);
  }
  return "fusec_convert<" + storageType(output) + ">::from(" + from + ")";
}

} // namespace

KernelBuilder::KernelBuilder(fuse::SuperkernelOp kernel, fuse::KernelConfigAttr variantConfig, std::string variantName)
    : kernel(kernel), variantConfig(variantConfig), variantName(std::move(variantName)) {}

std::vector<Operation *> KernelBuilder::bodyOps() const {
  std::vector<Operation *> ops;
  for (Operation &op : body().without_terminator())
    ops.push_back(&op);
  return ops;
}

std::vector<Value> KernelBuilder::yields() const {
  auto operands = body().getTerminator()->getOperands();
  return std::vector<Value>(operands.begin(), operands.end());
}

std::string KernelBuilder::inputName(Value blockArgument) const {
  return "in" + std::to_string(llvm::cast<BlockArgument>(blockArgument).getArgNumber());
}

std::string KernelBuilder::load(Value blockArgument, const std::string &offset) const {
  // An operand stored inside a concatenation's buffer: its rows are the
  // root's pitch apart (ir/SliceViews.h).
  const unsigned index = llvm::cast<BlockArgument>(blockArgument).getArgNumber();
  if (std::optional<fuse::SliceView> view = fuse::sliceViewOf(kernel.getInputs()[index]))
    return "fusec_ld(&" + inputName(blockArgument) + "[" +
           fuse::sliceViewOffset(shapeOf(blockArgument), *view, offset) + "])";
  return "fusec_ld(&" + inputName(blockArgument) + "[" + offset + "])";
}

bool KernelBuilder::hasSliceViews() const {
  return llvm::any_of(kernel.getInputs(), [](Value v) { return fuse::sliceViewOf(v).has_value(); }) ||
         llvm::any_of(kernel.getResults(), [](Value v) { return fuse::sliceViewOf(v).has_value(); });
}

std::string KernelBuilder::valueAt(Value value, const std::vector<std::string> &coords) {
  auto it = bound.find(value);
  if (it != bound.end())
    return it->second;
  assert(llvm::isa<BlockArgument>(value) && "unbound value computed inside the kernel");
  ArrayRef<int64_t> shape = shapeOf(value);
  for (const LinearCoordinates &known : linearCoordinates)
    if (known.coords == coords && ArrayRef<int64_t>(known.shape) == shape)
      return load(value, known.linear);
  if (!iterationDims.empty() && coords.size() == iterationShape.size())
    if (auto offset = broadcastOffset(shape, coords, iterationShape, iterationDims))
      return load(value, *offset);
  return load(value, broadcastOffset(shape, coords));
}

std::string KernelBuilder::scalarArgument(uint32_t value) {
  arguments.push_back(value);
  return "fusec_args.value[" + std::to_string(arguments.size() - 1) + "]";
}

std::string KernelBuilder::divisorArgument(uint32_t divisor) {
  assert(divisor >= 1 && divisor < (1u << 31) && "FusecDivisor divides by 1 to 2^31 - 1");
  const FastDivisor fast = fastDivisor(divisor);
  const std::string value = scalarArgument(divisor), multiplier = scalarArgument(fast.multiplier),
                    shift = scalarArgument(fast.shift);
  return "FusecDivisor{" + value + ", " + multiplier + ", " + shift + "}";
}

std::vector<std::string> KernelBuilder::emitLinearCoordinates(std::string &code, const std::string &indent,
                                                              ArrayRef<int64_t> shape, const std::string &linear,
                                                              const std::string &prefix) {
  std::vector<std::string> coords = emitCoordinates(code, indent, shape, linear, prefix);
  linearCoordinates.push_back({coords, std::vector<int64_t>(shape.begin(), shape.end()), linear});
  return coords;
}

void KernelBuilder::setIterationDims(ArrayRef<int64_t> shape, std::vector<std::string> dims) {
  assert(shape.size() == dims.size() && "one expression per dimension");
  iterationShape.assign(shape.begin(), shape.end());
  iterationDims = std::move(dims);
}

FastDivisor fastDivisor(uint32_t divisor) {
  assert(divisor >= 1 && divisor < (1u << 31) && "FusecDivisor divides by 1 to 2^31 - 1");
  uint32_t shift = 0;
  while ((uint64_t{1} << shift) < divisor)
    ++shift;
  // Below 2^32: (2^shift - divisor) < divisor.
  const uint64_t multiplier = ((uint64_t{1} << 32) * ((uint64_t{1} << shift) - divisor)) / divisor + 1;
  return FastDivisor{static_cast<uint32_t>(multiplier), shift};
}

LogicalResult KernelBuilder::emitElementwise(std::string &code, const std::string &indent, ArrayRef<Operation *> ops,
                                             const std::vector<std::string> &coords) {
  for (Operation *op : ops) {
    auto operand = [&](unsigned i) { return valueAt(op->getOperand(i), coords); };
    std::string expression;
    bool ok =
        llvm::TypeSwitch<Operation *, bool>(op)
            .Case([&](fuse::CastOp cast) {
              expression = castExpression(fuse::elementTypeOf(cast.getInput()), fuse::elementTypeOf(cast.getOutput()),
                                          operand(0));
              return true;
            })
            .Case([&](fuse::QuantizeLinearOp quantize) {
              expression = "fusec_quantize<" + storageType(fuse::elementTypeOf(quantize.getOutput())) + ">(" +
                           operand(0) + ", " + operand(1) + ", " + operand(2) + ")";
              return true;
            })
            .Case([&](fuse::DequantizeLinearOp) {
              expression = "fusec_dequantize(" + operand(0) + ", " + operand(1) + ", " + operand(2) + ")";
              return true;
            })
            .Case([&](fuse::ReluOp) { return expression = "fmaxf(" + operand(0) + ", 0.0f)", true; })
            .Case([&](fuse::SigmoidOp) { return expression = "fusec_sigmoid(" + operand(0) + ")", true; })
            .Case([&](fuse::TanhOp) { return expression = "tanhf(" + operand(0) + ")", true; })
            .Case([&](fuse::ErfOp) { return expression = "erff(" + operand(0) + ")", true; })
            .Case([&](fuse::SqrtOp) { return expression = "sqrtf(" + operand(0) + ")", true; })
            .Case([&](fuse::GeluOp gelu) {
              expression =
                  (gelu.getApproximate() == "tanh" ? "fusec_gelu_tanh(" : "fusec_gelu_erf(") + operand(0) + ")";
              return true;
            })
            .Case([&](fuse::ClipOp clip) {
              expression = operand(0);
              if (clip.getMin())
                expression = "fmaxf(" + expression + ", " + floatLiteral(clip.getMin()->convertToDouble()) + ")";
              if (clip.getMax())
                expression = "fminf(" + expression + ", " + floatLiteral(clip.getMax()->convertToDouble()) + ")";
              return true;
            })
            .Case([&](fuse::AddOp) { return expression = "(" + operand(0) + " + " + operand(1) + ")", true; })
            .Case([&](fuse::SubOp) { return expression = "(" + operand(0) + " - " + operand(1) + ")", true; })
            .Case([&](fuse::MulOp) { return expression = "(" + operand(0) + " * " + operand(1) + ")", true; })
            .Case([&](fuse::DivOp) { return expression = "(" + operand(0) + " / " + operand(1) + ")", true; })
            .Case([&](fuse::PowOp) { return expression = "powf(" + operand(0) + ", " + operand(1) + ")", true; })
            .Case([&](fuse::PReluOp) {
              return expression =
                         "(" + operand(0) + " < 0.0f ? " + operand(1) + " * " + operand(0) + " : " + operand(0) + ")",
                     true;
            })
            .Case([&](fuse::NegOp) { return expression = "(-" + operand(0) + ")", true; })
            .Case([&](fuse::ExpOp) { return expression = "expf(" + operand(0) + ")", true; })
            .Case([&](fuse::LogOp) { return expression = "logf(" + operand(0) + ")", true; })
            .Case([&](fuse::AbsOp) { return expression = "fabsf(" + operand(0) + ")", true; })
            .Case([&](fuse::ReciprocalOp) { return expression = "(1.0f / " + operand(0) + ")", true; })
            .Case<fuse::FloorOp, fuse::CeilOp, fuse::RoundOp, fuse::SignOp, fuse::SinOp, fuse::CosOp, fuse::TanOp,
                  fuse::AsinOp, fuse::AcosOp, fuse::AtanOp, fuse::SinhOp, fuse::CoshOp, fuse::AsinhOp, fuse::AcoshOp,
                  fuse::AtanhOp>(
                [&](auto op) { return expression = unaryMathExpression(op.getOperation(), operand(0)), true; })
            .Case([&](fuse::HardSwishOp) { return expression = "fusec_hard_swish(" + operand(0) + ")", true; })
            .Case([&](fuse::LeakyReluOp op) {
              expression =
                  "fusec_leaky_relu(" + operand(0) + ", " + floatLiteral(op.getAlpha().convertToDouble()) + ")";
              return true;
            })
            .Case([&](fuse::HardSigmoidOp op) {
              expression = "fusec_hard_sigmoid(" + operand(0) + ", " + floatLiteral(op.getAlpha().convertToDouble()) +
                           ", " + floatLiteral(op.getBeta().convertToDouble()) + ")";
              return true;
            })
            .Case([&](fuse::MinOp) { return expression = "fusec_min(" + operand(0) + ", " + operand(1) + ")", true; })
            .Case([&](fuse::MaxOp) { return expression = "fusec_max(" + operand(0) + ", " + operand(1) + ")", true; })
            .Case([&](fuse::ModOp op) {
              expression =
                  "fusec_mod(" + operand(0) + ", " + operand(1) + ", " + (op.getFmod() ? "true" : "false") + ")";
              return true;
            })
            // Comparisons, logic and selection work on the register
            // types of any element type (float, long long, int, bool).
            .Case([&](fuse::EqualOp) { return expression = "(" + operand(0) + " == " + operand(1) + ")", true; })
            .Case([&](fuse::LessOp) { return expression = "(" + operand(0) + " < " + operand(1) + ")", true; })
            .Case([&](fuse::LessOrEqualOp) { return expression = "(" + operand(0) + " <= " + operand(1) + ")", true; })
            .Case([&](fuse::GreaterOp) { return expression = "(" + operand(0) + " > " + operand(1) + ")", true; })
            .Case(
                [&](fuse::GreaterOrEqualOp) { return expression = "(" + operand(0) + " >= " + operand(1) + ")", true; })
            .Case([&](fuse::NotOp) { return expression = "(!" + operand(0) + ")", true; })
            .Case([&](fuse::AndOp) { return expression = "(" + operand(0) + " && " + operand(1) + ")", true; })
            .Case([&](fuse::OrOp) { return expression = "(" + operand(0) + " || " + operand(1) + ")", true; })
            .Case([&](fuse::XorOp) { return expression = "(" + operand(0) + " != " + operand(1) + ")", true; })
            .Case([&](fuse::TriluOp trilu) {
              // Row and column: the last two coordinates of the iteration
              // shape, which is the op's result shape.
              const std::string &row = coords[coords.size() - 2], &column = coords.back();
              expression = "((" + column + " - " + row + ") " + (trilu.getUpper() ? ">=" : "<=") + " (" +
                           std::to_string(trilu.getKAttr().getInt()) + "LL) ? " + operand(0) + " : 0)";
              return true;
            })
            .Case([&](fuse::WhereOp) {
              return expression = "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")", true;
            })
            .Case([&](fuse::BatchNormOp norm) {
              // Per-channel parameters, indexed by the channel coordinate.
              size_t rank = shapeOf(norm.getInput()).size();
              std::string channel = coords[coords.size() - rank + 1];
              auto param = [&](Value v) { return load(v, channel); };
              expression = "((" + operand(0) + " - " + param(norm.getMean()) + ") * " + param(norm.getScale()) +
                           " / sqrtf(" + param(norm.getVariance()) + " + " +
                           floatLiteral(norm.getEpsilon().convertToDouble()) + ") + " + param(norm.getBias()) + ")";
              return llvm::isa<BlockArgument>(norm.getScale()) && llvm::isa<BlockArgument>(norm.getBias()) &&
                     llvm::isa<BlockArgument>(norm.getMean()) && llvm::isa<BlockArgument>(norm.getVariance());
            })
            .Default([](Operation *) { return false; });
    if (!ok)
      return op->emitError() << "codegen cannot express this op in an elementwise expression";
    std::string name = fresh("v");
    Type resultType = fuse::elementTypeOf(op->getResult(0));
    if (!llvm::isa<fuse::CastOp>(op))
      expression = roundedTo(resultType, expression);
    code += indent + registerType(resultType) + " " + name + " = " + expression + ";\n";
    bound[op->getResult(0)] = name;
  }
  return success();
}

void KernelBuilder::emitStores(std::string &code, const std::string &indent, ArrayRef<int64_t> shape,
                               const std::string &linear, const std::vector<std::string> &coords) {
  for (auto [index, value] : llvm::enumerate(yields())) {
    // A transposed result that is not computed here (a conv's
    // epilogue-transpose) is stored at its own positions
    // (emitTransposedStores); a data-movement kernel binds its result.
    if (shapeOf(value) != shape || (value.getDefiningOp<fuse::TransposeOp>() && !bound.count(value)))
      continue;
    // A result stored into its slice of a concatenation's buffer.
    std::optional<fuse::SliceView> view = fuse::sliceViewOf(kernel->getResult(index));
    const std::string offset = view ? fuse::sliceViewOffset(shape, *view, linear) : linear;
    code += indent + "out" + std::to_string(index) + "[" + offset +
            "] = " + storeExpression(fuse::elementTypeOf(value), valueAt(value, coords)) + ";\n";
  }
}

void KernelBuilder::emitTransposedStores(std::string &code, const std::string &indent, ArrayRef<int64_t> shape,
                                         const std::vector<std::string> &coords) {
  for (auto [index, value] : llvm::enumerate(yields())) {
    auto transpose = value.getDefiningOp<fuse::TransposeOp>();
    if (!transpose || bound.count(value) || shapeOf(transpose.getInput()) != shape)
      continue;
    // Result coordinate i is the iteration's coordinate perm[i].
    std::vector<std::string> permuted;
    for (int64_t axis : transpose.getPerm())
      permuted.push_back(coords[static_cast<size_t>(axis)]);
    const std::string linear = linearOffset(shapeOf(value), permuted);
    std::optional<fuse::SliceView> view = fuse::sliceViewOf(kernel->getResult(index));
    const std::string offset = view ? fuse::sliceViewOffset(shapeOf(value), *view, linear) : linear;
    code += indent + "out" + std::to_string(index) + "[" + offset +
            "] = " + storeExpression(fuse::elementTypeOf(value), valueAt(transpose.getInput(), coords)) + ";\n";
  }
}

GeneratedKernel KernelBuilder::finish(const std::string &bodyCode, KernelLaunch launch,
                                      llvm::ArrayRef<std::string> headers) const {
  GeneratedKernel result;
  result.name = functionName();
  result.kind = kernel.getKind().str();
  if (fuse::KernelConfigAttr attr = config()) {
    llvm::raw_string_ostream printed(result.config);
    mlir::Attribute(attr).print(printed);
  }
  const size_t numInputs = kernel.getInputs().size(), numOutputs = kernel.getNumResults();
  result.launch = std::move(launch);
  std::string params, thunkArgs;
  size_t argument = 0;
  for (size_t i = 0; i < numInputs; ++i, ++argument) {
    std::string type = storageType(fuse::elementTypeOf(kernel.getInputs()[i]));
    params += "const " + type + " *__restrict__ in" + std::to_string(i) + ", ";
    thunkArgs += "(const " + type + " *)args[" + std::to_string(argument) + "], ";
  }
  for (size_t i = 0; i < numOutputs; ++i, ++argument) {
    std::string type = storageType(fuse::elementTypeOf(kernel.getResult(i)));
    params += type + " *__restrict__ out" + std::to_string(i) + ", ";
    thunkArgs += "(" + type + " *)args[" + std::to_string(argument) + "], ";
  }
  if (result.launch.splitMaxSlices > 1) {
    params += "float *__restrict__ fusec_partials, unsigned *__restrict__ fusec_tile_counters, ";
    thunkArgs +=
        "(float *)args[" + std::to_string(argument) + "], (unsigned *)args[" + std::to_string(argument + 1) + "], ";
    argument += 2;
  }
  params += "int batch";
  thunkArgs += "*(const int *)args[" + std::to_string(argument) + "]";
  result.launch.arguments = arguments;
  // Each range dimension the kernel's tensors have is one more scalar
  // argument, its size, which the runtime sets for the size it runs at.
  std::string rangeSizes;
  for (int64_t dim : rangeDims()) {
    result.launch.rangeArguments.push_back({result.launch.arguments.size(), fuse::symbolName(dim)});
    rangeSizes += "  const long long " + rangeVariable(dim) + " = (long long)fusec_args.value[" +
                  std::to_string(result.launch.arguments.size()) + "];\n";
    result.launch.arguments.push_back(0);
  }
  if (!result.launch.arguments.empty()) {
    const std::string type = "FusecArguments<" + std::to_string(result.launch.arguments.size()) + ">";
    params += ", const " + type + " fusec_args";
    thunkArgs += ", *(const " + type + " *)args[" + std::to_string(argument + 1) + "]";
  }
  // Tensor maps last, by value: __grid_constant__ keeps them in parameter
  // space, where TMA reads them.
  const size_t firstMap = argument + 1 + (result.launch.arguments.empty() ? 0 : 1);
  for (size_t i = 0; i < result.launch.tensorMaps.size(); ++i) {
    params += ", const __grid_constant__ FusecTensorMap fusec_map" + std::to_string(i);
    thunkArgs += ", *(const FusecTensorMap *)args[" + std::to_string(firstMap + i) + "]";
  }
  const std::string bounds = launchBounds ? "__launch_bounds__(" + std::to_string(launchBounds->first) + ", " +
                                                std::to_string(launchBounds->second) + ") "
                                          : "";
  std::string includes = "#include \"" + std::string(kPreludeName) + "\"\n";
  for (const std::string &header : headers)
    includes += "#include \"" + header + "\"\n";
  result.source = "// Generated by fusec: superkernel " + result.name + " (" + result.kind + ").\n" + includes + "\n" +
                  declarations + "extern \"C\" __global__ void " + bounds + result.name + "(" + params + ") {\n" +
                  rangeSizes + bodyCode + "}\n\n" + "#ifdef FUSEC_EMULATION\nextern \"C\" void " + result.name +
                  "__emulated(void **args) { " + result.name + "(" + thunkArgs + "); }\n#endif\n";
  return result;
}

std::vector<int64_t> KernelBuilder::rangeDims() const {
  std::set<int64_t> dims;
  auto collect = [&](Value value) {
    for (int64_t dim : shapeOf(value))
      if (isRangeDim(dim))
        dims.insert(dim);
  };
  for (Value input : kernel.getInputs())
    collect(input);
  for (Value result : kernel.getResults())
    collect(result);
  kernel.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (llvm::isa<RankedTensorType>(result.getType()))
        collect(result);
  });
  // By name, so that the arguments' order does not depend on the order the
  // process met the names in.
  std::vector<int64_t> ordered(dims.begin(), dims.end());
  llvm::sort(ordered, [](int64_t a, int64_t b) { return fuse::symbolName(a) < fuse::symbolName(b); });
  return ordered;
}

void splitAroundCore(KernelBuilder &builder, Operation *core, std::vector<Operation *> &prologue,
                     std::vector<Operation *> &epilogue) {
  llvm::SetVector<Operation *> feeds;
  std::vector<Value> worklist(core->getOperands().begin(), core->getOperands().end());
  while (!worklist.empty()) {
    Operation *producer = worklist.back().getDefiningOp();
    worklist.pop_back();
    if (!producer || !feeds.insert(producer))
      continue;
    worklist.insert(worklist.end(), producer->getOperands().begin(), producer->getOperands().end());
  }
  for (Operation *op : builder.bodyOps()) {
    if (op == core)
      continue;
    (feeds.contains(op) ? prologue : epilogue).push_back(op);
  }
}

FailureOr<Operation *> findTemplateCore(KernelBuilder &builder, fuse::OpClass coreClass,
                                        std::vector<Operation *> &epilogue) {
  Operation *core = nullptr;
  for (Operation *op : builder.bodyOps())
    if (fuse::classifyOp(op) == coreClass)
      core = op;
  StringRef kind = fuse::kernelKindName(coreClass);
  if (!core)
    return builder.getKernel().emitError() << kind << " kernel without a " << kind << " op";
  std::vector<Operation *> prologue;
  splitAroundCore(builder, core, prologue, epilogue);
  // A matrix product may read A as rows of a kernel input through the view
  // ops before it (rule operand-views): they are addressing, not a prologue.
  Value rowsOf;
  if (coreClass == fuse::OpClass::Gemm)
    if (std::optional<fuse::MatrixRows> rows = fuse::matrixRowsOf(core->getOperand(0));
        rows && llvm::isa<BlockArgument>(rows->input)) {
      rowsOf = core->getOperand(0);
      for (Value value = rowsOf; value != rows->input; value = value.getDefiningOp()->getOperand(0))
        llvm::erase(prologue, value.getDefiningOp());
    }
  if (!prologue.empty() && !fuse::templateFusion(coreClass).prologue)
    return prologue.front()->emitError() << kind << " kernels take no fused prologue";
  for (Value operand : core->getOperands())
    if (!llvm::isa<BlockArgument>(operand) && operand != rowsOf)
      return core->emitError() << kind << " operands must be kernel inputs";
  return core;
}

FailureOr<fuse::KernelConfig> kernelConfigFor(KernelBuilder &builder, Operation *core) {
  fuse::KernelConfigAttr attr = builder.config();
  // Configs are chosen once, by fuse-select-kernel-configs with the
  // compile's precision and target; codegen choosing again here could
  // compile a kernel other than the one the plan was priced and tuned for.
  if (!attr)
    return builder.getKernel().emitError()
           << "superkernel '" << builder.getKernel().getSymName()
           << "' has no #fuse.config: run fuse-select-kernel-configs before emitting CUDA";
  fuse::KernelConfig config = fuse::KernelConfig::fromAttr(attr);
  if (failed(fuse::checkKernelConfig(core, config)))
    return failure();
  return config;
}

void emitPipelineSharedMemory(std::string &code, int64_t bytes, KernelLaunch &launch, llvm::StringRef owner,
                              llvm::StringRef array) {
  // The launch reserves what the config says: the template must agree.
  code +=
      ("  static_assert(" + owner + "::kSmemBytes == " + std::to_string(bytes) + ", \"the config's shared size\");\n")
          .str();
  const std::string staticArray =
      ("  __shared__ float4 " + array + "[" + owner + "::kSmemFloats / 4]; // float4: 16-byte aligned\n").str();
  if (bytes <= fuse::kStaticSharedBytes) {
    code += staticArray;
    return;
  }
  code += "#ifdef FUSEC_EMULATION\n" + staticArray + "#else\n";
  code += ("  extern __shared__ float4 " + array + "[]; // " + owner + "::kSmemBytes, dynamic: above 48 KiB\n#endif\n")
              .str();
  launch.sharedBytes = bytes;
}

std::string emitSplitK(std::string &code, const fuse::KernelConfig &config, int64_t kTiles, KernelLaunch &launch,
                       int64_t partialFloats) {
  if (config.splitK <= 1)
    return "";
  // The runtime chooses the slices per launch (support/SplitK.h).
  code += "  FusecSplitK split;\n";
  code += "  split.slices = gridDim.z;\n";
  code += "  split.slice = blockIdx.z;\n";
  code += "  split.tile = blockIdx.x + gridDim.x * blockIdx.y;\n";
  code += "  split.partials = fusec_partials;\n";
  code += "  split.counters = fusec_tile_counters;\n";
  launch.splitMaxSlices = config.splitK;
  launch.splitKTiles = kTiles;
  launch.splitPartialFloats = partialFloats > 0 ? partialFloats : config.blockM * config.blockN;
  return ", split";
}

std::string operandElementType(fuse::OperandType operands) {
  switch (operands) {
  case fuse::OperandType::F16:
    return "fusec_f16";
  case fuse::OperandType::BF16:
    return "fusec_bf16";
  case fuse::OperandType::F32:
    break;
  }
  return "float";
}

TileDescription::TileDescription(const fuse::KernelConfig &config) {
  // Field by field, by name, in KernelConfig's order (TileDescriptionTest
  // checks every field is here under the name the templates read).
  append(Member::Kind::Text, "kTemplate", "\"" + fuse::templateName(config.kind).str() + "\"");
  add("kBlockM", config.blockM);
  add("kBlockN", config.blockN);
  add("kBlockK", config.blockK);
  add("kWarpM", config.warpM);
  add("kWarpN", config.warpN);
  add("kStages", config.stages);
  add("kPasses", config.passes);
  // Whether the kernel is split-capable: the most slices is the launch's
  // (support/SplitK.h), so kernels that differ only in it share a program.
  add("kSplitK", config.splitK > 1);
  add("kAVector", config.aVector);
  add("kBVector", config.bVector);
  append(Member::Kind::Type, "Element", operandElementType(config.operands));
}

TileDescription TileDescription::attention(const fuse::KernelConfig &config, int64_t headDim, int64_t valueDim) {
  TileDescription description(config);
  description.add("kHeadDim", headDim);
  description.add("kValueDim", valueDim);
  return description;
}

TileDescription TileDescription::hopperGemm(const fuse::KernelConfig &config, bool bNMajor) {
  TileDescription description(config);
  description.add("kBNMajor", bNMajor);
  return description;
}

TileDescription TileDescription::hopperConv(const fuse::KernelConfig &config, const HopperConvGeometry &geometry) {
  TileDescription description = hopperGemm(config, /*bNMajor=*/false);
  description.addWindow(geometry.window);
  description.add("kTapsH", geometry.tapsH);
  description.add("kTapsW", geometry.tapsW);
  description.add("kChannels", geometry.channels);
  description.add("kOutHeight", geometry.outHeight);
  description.add("kOutWidth", geometry.outWidth);
  description.add("kTileHeight", geometry.tileHeight);
  description.add("kTileWidth", geometry.tileWidth);
  return description;
}

TileDescription TileDescription::gemv(const fuse::KernelConfig &config, bool transB, const std::string &storage) {
  TileDescription description(config);
  description.add("kTransB", transB);
  description.addType("Storage", storage);
  return description;
}

TileDescription TileDescription::convolution(const fuse::KernelConfig &config, const ConvWindow &window) {
  TileDescription description(config);
  description.add("kGroup", window.group);
  description.addWindow(window);
  description.add("kChannelsLast", window.channelsLast);
  return description;
}

void TileDescription::addWindow(const ConvWindow &window) {
  add("kStrideH", window.strideH);
  add("kStrideW", window.strideW);
  add("kPadTop", window.padTop);
  add("kPadLeft", window.padLeft);
  add("kDilationH", window.dilationH);
  add("kDilationW", window.dilationW);
}

void TileDescription::append(Member::Kind kind, const std::string &name, std::string value) {
  assert(llvm::none_of(memberList, [&](const Member &member) { return member.name == name; }) &&
         "a tile description names each member once");
  memberList.push_back({kind, name, std::move(value)});
}

TileDescription &TileDescription::add(const std::string &name, int64_t value) {
  append(Member::Kind::Int, name, std::to_string(value));
  return *this;
}

TileDescription &TileDescription::add(const std::string &name, bool value) {
  append(Member::Kind::Bool, name, value ? "true" : "false");
  return *this;
}

TileDescription &TileDescription::addType(const std::string &name, const std::string &type) {
  append(Member::Kind::Type, name, type);
  return *this;
}

std::string TileDescription::render(const std::string &name) const {
  std::string text = "struct " + name + " {\n";
  for (const Member &member : memberList) {
    switch (member.kind) {
    case Member::Kind::Int:
      text += "  static constexpr int " + member.name + " = " + member.value + ";\n";
      break;
    case Member::Kind::Bool:
      text += "  static constexpr bool " + member.name + " = " + member.value + ";\n";
      break;
    case Member::Kind::Text:
      text += "  static constexpr const char *" + member.name + " = " + member.value + ";\n";
      break;
    case Member::Kind::Type:
      text += "  using " + member.name + " = " + member.value + ";\n";
      break;
    }
  }
  return text + "};\n\n";
}

std::string KernelBuilder::declareTile(const TileDescription &description) {
  const std::string name = functionName() + "_tile";
  declarations += description.render(name);
  return name;
}

std::string tensorCoreGemmType(const fuse::KernelConfig &config, const std::string &tile, const std::string &bOperand) {
  return std::string(config.halfOperands() ? "FusecGemmHalf<" : "FusecGemmTf32<") + tile + ", " + bOperand + ">";
}

std::string operandElementArgument(const fuse::KernelConfig &config) {
  return config.operands == fuse::OperandType::F32 ? "" : ", " + operandElementType(config.operands);
}

std::string tensorCoreGemmHeader(const fuse::KernelConfig &config) {
  return config.halfOperands() ? "fusec_gemm_half.h" : "fusec_gemm.h";
}

GridDim gridFor(BatchLinear count, int64_t step) { return {count, step}; }

void setGrid(KernelLaunch &launch, size_t axis, ArrayRef<int64_t> shape, int64_t step) {
  launch.grid[axis] = gridFor(linearNumel(shape), step);
  launch.gridRanges[axis] = rangeFactorsOf(shape);
}

} // namespace fusec::codegen
