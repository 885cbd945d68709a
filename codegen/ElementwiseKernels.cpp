//===- ElementwiseKernels.cpp - Elementwise and data-movement kernels -----===//
//
// One thread per output element in a grid-stride loop (four, with float4
// loads and stores, when the sizes allow). Elementwise groups evaluate their
// whole chain in registers (inputs broadcast by index arithmetic) and write
// every materialized value once. Data-movement ops (pad, transpose,
// reshape, flatten, concat, slice, gather, expand) map each output element
// to the input element it copies.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"
#include "ir/ShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace fusec::codegen {
namespace {

constexpr int64_t kThreads = 256;

const char *kLoopHead = "  const long long total = %TOTAL%;\n"
                        "  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;\n"
                        "       idx += (long long)gridDim.x * blockDim.x) {\n";

std::string loopHead(ArrayRef<int64_t> shape) {
  std::string head = kLoopHead;
  head.replace(head.find("%TOTAL%"), 7, numelExpr(shape));
  return head;
}

KernelLaunch launchOver(ArrayRef<int64_t> shape) {
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  setGrid(launch, 0, shape, kThreads);
  return launch;
}

FailureOr<std::string> emitDataMovement(KernelBuilder &builder, Operation *op, std::string &code,
                                        const std::vector<std::string> &out);

/// The element of `value` at `coords` (coordinates of its own shape): a load
/// when it is a kernel input, otherwise the element the data-movement op of
/// the kernel that computes it copies, emitted recursively. Kernels of
/// chained data movement (Slice -> Reshape -> Transpose) thus read each input
/// element once and write only the last op's result.
FailureOr<std::string> emitValueAt(KernelBuilder &builder, Value value, std::string &code,
                                   const std::vector<std::string> &coords) {
  if (Operation *op = value.getDefiningOp())
    return emitDataMovement(builder, op, code, coords);
  return builder.load(value, linearOffset(shapeOf(value), coords));
}

/// `value` at `coords`, computed inside a block of its own: for reads that
/// happen only under a condition (a Concat branch, Pad's interior), so that
/// a recursively emitted load never runs with coordinates outside its tensor.
/// Declares `result` and returns the block.
FailureOr<std::string> emitGuardedValue(KernelBuilder &builder, Value value, const std::vector<std::string> &coords,
                                        const std::string &result) {
  std::string block;
  auto element = emitValueAt(builder, value, block, coords);
  if (failed(element))
    return failure();
  return "{\n" + block + "      " + result + " = " + *element + ";\n    }";
}

/// Resize: per resized axis the source coordinate (rules::
/// resizeSourceCoordinate's formula in float), then the nearest index, or
/// the two (linear) or four (cubic, rules::resizeCubicTaps) clamped
/// neighbours and their weights; the result sums the 2^k or 4^k neighbours
/// of the k resized axes.
FailureOr<std::string> emitResize(KernelBuilder &builder, fuse::ResizeOp resize, std::string &code,
                                  const std::vector<std::string> &out) {
  const std::string indent = "    ";
  auto shape = shapeOf(resize.getInput());
  auto sizes = resize.getSizes();
  auto scales = resize.getScales();
  const bool linear = resize.getMode() == "linear";
  const bool cubic = resize.getMode() == "cubic";
  if (llvm::any_of(shape, isRangeDim))
    return resize.emitError() << "codegen has no Resize over a dimension that runs over a range";
  const std::string coordinates = resize.getCoordinateTransformationMode().str();
  const std::string nearest = resize.getNearestMode().str();
  // For each axis: the index expressions of its taps and their weights.
  std::vector<std::vector<std::string>> indices(shape.size()), weights(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (sizes[d] == -1 || (sizes[d] == shape[d] && scales[d] == 1.0f)) {
      indices[d] = {out[d]};
      weights[d] = {""};
      continue;
    }
    const std::string input = std::to_string(shape[d]);
    const std::string scale = floatLiteral(scales[d]);
    const double outputWidth = double(scales[d]) * double(shape[d]);
    std::string x = builder.fresh("x");
    std::string source;
    if (coordinates == "align_corners")
      source = outputWidth == 1 ? "0.0f"
                                : "(float)" + out[d] + " * " + floatLiteral(double(shape[d] - 1) / (outputWidth - 1));
    else if (coordinates == "asymmetric")
      source = "(float)" + out[d] + " / " + scale;
    else if (coordinates == "tf_half_pixel_for_nn")
      source = "((float)" + out[d] + " + 0.5f) / " + scale;
    else if (coordinates == "pytorch_half_pixel" && outputWidth == 1)
      source = "-0.5f";
    else
      source = "((float)" + out[d] + " + 0.5f) / " + scale + " - 0.5f";
    code += indent + "const float " + x + " = " + source + ";\n";
    auto clamp = [&](const std::string &value) {
      return "(long long)fminf(fmaxf(" + value + ", 0.0f), " + input + ".0f - 1.0f)";
    };
    if (cubic) {
      // rules::resizeCubicTaps in float: an integral x takes the taps from
      // x - 2 with weights (0, 0, 1, 0).
      const double a = resize.getCubicCoeffA().convertToDouble();
      const std::string base = builder.fresh("cb"), s = builder.fresh("cs");
      code += indent + "float " + base + " = floorf(" + x + ");\n";
      code += indent + "float " + s + " = " + x + " - " + base + ";\n";
      code += indent + "if (" + s + " == 0.0f) { " + s + " = 1.0f; " + base + " -= 1.0f; }\n";
      const std::string A = floatLiteral(a), A2 = floatLiteral(a + 2.0), A3 = floatLiteral(a + 3.0),
                        A5 = floatLiteral(5.0 * a), A8 = floatLiteral(8.0 * a), A4 = floatLiteral(4.0 * a);
      auto outer = [&](const std::string &d) {
        return "((" + A + " * " + d + " - " + A5 + ") * " + d + " + " + A8 + ") * " + d + " - " + A4;
      };
      auto inner = [&](const std::string &d) {
        return "(" + A2 + " * " + d + " - " + A3 + ") * " + d + " * " + d + " + 1.0f";
      };
      const std::string distances[4] = {"(1.0f + " + s + ")", s, "(1.0f - " + s + ")", "(2.0f - " + s + ")"};
      const std::string sum = builder.fresh("csum");
      if (resize.getExcludeOutside())
        code += indent + "float " + sum + " = 0.0f;\n";
      for (int i = 0; i < 4; ++i) {
        const std::string at = builder.fresh("ci"), weight = builder.fresh("cw");
        code += indent + "const float " + at + " = " + base + " + " + floatLiteral(i - 1) + ";\n";
        code +=
            indent + "float " + weight + " = " + (i == 0 || i == 3 ? outer(distances[i]) : inner(distances[i])) + ";\n";
        if (resize.getExcludeOutside()) {
          code += indent + "if (" + at + " < 0.0f || " + at + " > " + input + ".0f - 1.0f) " + weight + " = 0.0f;\n";
          code += indent + sum + " += " + weight + ";\n";
        }
        const std::string index = builder.fresh("c");
        code += indent + "const long long " + index + " = " + clamp(at) + ";\n";
        indices[d].push_back(index);
        weights[d].push_back(weight);
      }
      if (resize.getExcludeOutside())
        for (const std::string &weight : weights[d])
          code += indent + weight + " /= " + sum + ";\n";
      continue;
    }
    if (!linear) {
      std::string rounded = nearest == "round_prefer_floor"  ? "ceilf(" + x + " - 0.5f)"
                            : nearest == "round_prefer_ceil" ? "floorf(" + x + " + 0.5f)"
                            : nearest == "floor"             ? "floorf(" + x + ")"
                                                             : "ceilf(" + x + ")";
      std::string index = builder.fresh("n");
      code += indent + "const long long " + index + " = " + clamp(rounded) + ";\n";
      indices[d] = {index};
      weights[d] = {""};
      continue;
    }
    std::string low = builder.fresh("l"), high = builder.fresh("h"), frac = builder.fresh("w");
    code += indent + "const float " + low + "f = floorf(" + x + ");\n";
    code += indent + "const float " + frac + " = " + x + " - " + low + "f;\n";
    code += indent + "const long long " + low + " = " + clamp(low + "f") + ";\n";
    code += indent + "const long long " + high + " = " + clamp(low + "f + 1.0f") + ";\n";
    indices[d] = {low, high};
    weights[d] = {"(1.0f - " + frac + ")", frac};
  }
  // Every combination of taps, as a sum of weighted loads.
  std::string result = builder.fresh("z");
  code += indent + "float " + result + " = 0.0f;\n";
  std::vector<size_t> choice(shape.size(), 0);
  while (true) {
    std::vector<std::string> in;
    std::string weight;
    for (size_t d = 0; d < shape.size(); ++d) {
      in.push_back(indices[d][choice[d]]);
      if (!weights[d][choice[d]].empty())
        weight += (weight.empty() ? "" : " * ") + weights[d][choice[d]];
    }
    auto value = emitValueAt(builder, resize.getInput(), code, in);
    if (failed(value))
      return failure();
    code += indent + result + " += " + (weight.empty() ? *value : weight + " * " + *value) + ";\n";
    size_t d = shape.size();
    while (d > 0 && ++choice[d - 1] == indices[d - 1].size())
      choice[--d] = 0;
    if (d == 0)
      break;
  }
  return result;
}

/// The element of the result of data-movement op `op` at output coordinates
/// `out`.
FailureOr<std::string> emitDataMovement(KernelBuilder &builder, Operation *op, std::string &code,
                                        const std::vector<std::string> &out) {
  const std::string indent = "    ";
  auto resultType = registerType(fuse::elementTypeOf(op->getResult(0)));
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<fuse::ReshapeOp, fuse::FlattenOp>([&](auto) -> FailureOr<std::string> {
        // The same linear index in the input's shape.
        Value input = op->getOperand(0);
        std::string linear = builder.fresh("r");
        code += indent + "const long long " + linear + " = " + linearOffset(shapeOf(op->getResult(0)), out) + ";\n";
        if (!input.getDefiningOp())
          return builder.load(input, linear);
        auto in = emitCoordinates(code, indent, shapeOf(input), linear, builder.fresh("r") + "_");
        return emitValueAt(builder, input, code, in);
      })
      .Case([&](fuse::TransposeOp transpose) -> FailureOr<std::string> {
        auto perm = transpose.getPerm();
        std::vector<std::string> in(perm.size());
        for (size_t i = 0; i < perm.size(); ++i)
          in[perm[i]] = out[i];
        return emitValueAt(builder, transpose.getInput(), code, in);
      })
      .Case([&](fuse::PadOp pad) -> FailureOr<std::string> {
        auto shape = shapeOf(pad.getInput());
        auto pads = pad.getPads();
        size_t rank = shape.size();
        std::vector<std::string> in;
        std::string inside = "true";
        for (size_t d = 0; d < rank; ++d) {
          std::string c = builder.fresh("p");
          code += indent + "long long " + c + " = " + out[d] + " - " + std::to_string(pads[d]) + "LL;\n";
          std::string size = dimExpr(shape[d]);
          if (pad.getMode() == "reflect") {
            code += indent + "if (" + c + " < 0) " + c + " = -" + c + ";\n";
            code += indent + "if (" + c + " >= " + size + ") " + c + " = 2 * (" + size + " - 1) - " + c + ";\n";
          } else if (pad.getMode() == "edge") {
            code += indent + c + " = " + c + " < 0 ? 0 : (" + c + " >= " + size + " ? " + size + " - 1 : " + c + ");\n";
          } else {
            inside += " && " + c + " >= 0 && " + c + " < " + size;
          }
          in.push_back(c);
        }
        if (pad.getMode() != "constant")
          return emitValueAt(builder, pad.getInput(), code, in);
        std::string result = builder.fresh("p");
        auto interior = emitGuardedValue(builder, pad.getInput(), in, result);
        if (failed(interior))
          return failure();
        code += indent + resultType + " " + result + " = " + floatLiteral(pad.getValue().convertToDouble()) + ";\n";
        code += indent + "if (" + inside + ") " + *interior + "\n";
        return result;
      })
      .Case([&](fuse::ConcatOp concat) -> FailureOr<std::string> {
        int64_t axis = concat.getAxis();
        std::string result = builder.fresh("c");
        code += indent + resultType + " " + result + " = 0;\n";
        int64_t start = 0;
        for (auto [i, operand] : llvm::enumerate(concat.getInputs())) {
          auto shape = shapeOf(operand);
          if (fuse::isSymbolic(shape[axis]))
            return concat.emitError() << "codegen has no Concat along a run-time dimension";
          std::vector<std::string> in = out;
          in[axis] = "(" + out[axis] + " - " + std::to_string(start) + "LL)";
          auto branch = emitGuardedValue(builder, operand, in, result);
          if (failed(branch))
            return failure();
          code += indent + (i ? "else if (" : "if (") + out[axis] + " < " + std::to_string(start + shape[axis]) +
                  "LL) " + *branch + "\n";
          start += shape[axis];
        }
        return result;
      })
      .Case([&](fuse::SliceOp slice) -> FailureOr<std::string> {
        auto starts = slice.getStarts(), steps = slice.getSteps();
        std::vector<std::string> in;
        in.reserve(out.size());
        for (size_t d = 0; d < out.size(); ++d)
          in.push_back(starts[d] == 0 && steps[d] == 1 ? out[d]
                                                       : "(" + std::to_string(starts[d]) + "LL + " + out[d] + " * " +
                                                             std::to_string(steps[d]) + "LL)");
        return emitValueAt(builder, slice.getInput(), code, in);
      })
      .Case([&](fuse::GatherOp gather) -> FailureOr<std::string> {
        // The CPU backend rejects an index outside [-extent, extent); a
        // kernel cannot report it, so it clamps and never reads outside the
        // tensor.
        auto shape = shapeOf(gather.getInput());
        auto indexShape = shapeOf(gather.getIndices());
        size_t axis = gather.getAxis();
        std::vector<std::string> indexCoords(out.begin() + axis, out.begin() + axis + indexShape.size());
        auto loaded = emitValueAt(builder, gather.getIndices(), code, indexCoords);
        if (failed(loaded))
          return failure();
        std::string index = builder.fresh("g");
        std::string extent = dimExpr(shape[axis]);
        code += indent + "long long " + index + " = (long long)" + *loaded + ";\n";
        code += indent + "if (" + index + " < 0) " + index + " += " + extent + ";\n";
        code += indent + index + " = " + index + " < 0 ? 0LL : (" + index + " >= " + extent + " ? " + extent +
                " - 1 : " + index + ");\n";
        std::vector<std::string> in(out.begin(), out.begin() + axis);
        in.push_back(index);
        in.insert(in.end(), out.begin() + axis + indexShape.size(), out.end());
        return emitValueAt(builder, gather.getInput(), code, in);
      })
      .Case([&](fuse::GatherElementsOp gather) -> FailureOr<std::string> {
        // The index sits at the result's own coordinates; clamped like
        // Gather's.
        auto loaded = emitValueAt(builder, gather.getIndices(), code, out);
        if (failed(loaded))
          return failure();
        size_t axis = gather.getAxis();
        std::string index = builder.fresh("g");
        std::string extent = dimExpr(shapeOf(gather.getInput())[axis]);
        code += indent + "long long " + index + " = (long long)" + *loaded + ";\n";
        code += indent + "if (" + index + " < 0) " + index + " += " + extent + ";\n";
        code += indent + index + " = " + index + " < 0 ? 0LL : (" + index + " >= " + extent + " ? " + extent +
                " - 1 : " + index + ");\n";
        std::vector<std::string> in = out;
        in[axis] = index;
        return emitValueAt(builder, gather.getInput(), code, in);
      })
      .Case([&](fuse::ExpandOp expand) -> FailureOr<std::string> {
        // Broadcast dimensions of the input (size 1) read index 0.
        auto shape = shapeOf(expand.getInput());
        std::vector<std::string> in;
        in.reserve(shape.size());
        size_t lead = out.size() - shape.size();
        for (size_t d = 0; d < shape.size(); ++d)
          in.push_back(shape[d] == 1 ? "0LL" : out[lead + d]);
        return emitValueAt(builder, expand.getInput(), code, in);
      })
      .Case([&](fuse::ResizeOp resize) -> FailureOr<std::string> { return emitResize(builder, resize, code, out); })
      .Default([&](Operation *other) -> FailureOr<std::string> {
        return other->emitError() << "codegen has no data-movement kernel for this op";
      });
}

} // namespace

/// Four elements per thread with 16-byte loads and stores: every kernel
/// input of the full iteration shape is read as float4, every output written
/// as float4; broadcast inputs are read element by element. Needs an element
/// count that is a multiple of 4 at every batch (buffers are 64-byte aligned).
FailureOr<GeneratedKernel> emitVectorizedElementwise(KernelBuilder &builder, ArrayRef<Operation *> ops,
                                                     ArrayRef<int64_t> shape) {
  BatchLinear count = linearNumel(shape);
  std::string code = "  const long long vectors = " + numelExpr(shape) + " / 4;\n";
  code += "  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < vectors;\n";
  code += "       q += (long long)gridDim.x * blockDim.x) {\n";
  std::vector<Value> vectorInputs;
  for (BlockArgument arg : builder.body().getArguments())
    if (shapeOf(arg) == shape && !arg.use_empty()) {
      vectorInputs.push_back(arg);
      code += "    const float4 " + builder.inputName(arg) + "v = __ldg(reinterpret_cast<const float4 *>(" +
              builder.inputName(arg) + ") + q);\n";
    }
  auto yields = builder.yields();
  for (size_t i = 0; i < yields.size(); ++i)
    code += "    float4 out" + std::to_string(i) + "v;\n";
  const char *lanes[] = {"x", "y", "z", "w"};
  for (int lane = 0; lane < 4; ++lane) {
    code += "    {\n      const long long idx = q * 4 + " + std::to_string(lane) + ";\n";
    auto coords = builder.emitLinearCoordinates(code, "      ", shape, "idx", builder.fresh("i"));
    for (Value input : vectorInputs)
      builder.bind(input, builder.inputName(input) + "v." + lanes[lane]);
    if (failed(builder.emitElementwise(code, "      ", ops, coords)))
      return failure();
    for (auto [index, value] : llvm::enumerate(yields))
      code += "      out" + std::to_string(index) + "v." + lanes[lane] + " = " + builder.valueAt(value, coords) + ";\n";
    for (Value input : vectorInputs)
      builder.unbind(input);
    for (Operation *op : ops)
      builder.unbind(op->getResult(0));
    code += "    }\n";
  }
  for (size_t i = 0; i < yields.size(); ++i)
    code += "    reinterpret_cast<float4 *>(out" + std::to_string(i) + ")[q] = out" + std::to_string(i) + "v;\n";
  code += "  }\n";
  KernelLaunch launch;
  launch.block = {kThreads, 1, 1};
  launch.grid[0] = gridFor({count.perBatch / 4, count.fixed / 4}, kThreads);
  launch.gridRanges[0] = rangeFactorsOf(shape);
  return builder.finish(code, launch);
}

FailureOr<GeneratedKernel> emitElementwiseKernel(KernelBuilder &builder) {
  auto ops = builder.bodyOps();
  auto shape = shapeOf(ops.back()->getResult(0));
  BatchLinear count = linearNumel(shape);
  bool anyFullInput = llvm::any_of(builder.body().getArguments(),
                                   [&](BlockArgument arg) { return shapeOf(arg) == shape && !arg.use_empty(); });
  bool allOutputsFull = llvm::all_of(builder.yields(), [&](Value v) { return shapeOf(v) == shape; });
  // float4 moves whole f32 vectors; kernels with other element types load
  // and store element by element.
  auto isF32 = [](Value value) { return fuse::elementTypeOf(value).isF32(); };
  bool allF32 = llvm::all_of(builder.body().getArguments(), isF32) && llvm::all_of(builder.yields(), isF32);
  // float4 addresses whole rows of dense tensors; slice views are read and
  // written element by element.
  if (allF32 && count.perBatch % 4 == 0 && count.fixed % 4 == 0 && anyFullInput && allOutputsFull &&
      !builder.hasSliceViews())
    return emitVectorizedElementwise(builder, ops, shape);
  std::string code = loopHead(shape);
  auto coords = builder.emitLinearCoordinates(code, "    ", shape, "idx", "i");
  if (failed(builder.emitElementwise(code, "    ", ops, coords)))
    return failure();
  builder.emitStores(code, "    ", shape, "idx", coords);
  code += "  }\n";
  return builder.finish(code, launchOver(shape));
}

FailureOr<GeneratedKernel> emitDataMovementKernel(KernelBuilder &builder) {
  // One op, or a chain whose last op's result is the only one stored
  // (fuse-form-data-movement-chains).
  auto ops = builder.bodyOps();
  Operation *last = ops.back();
  auto yields = builder.yields();
  if (yields.size() != 1 || yields.front() != last->getResult(0))
    return builder.getKernel().emitError() << "a data-movement kernel stores the result of its last op only";
  auto shape = shapeOf(last->getResult(0));
  std::string code = loopHead(shape);
  auto coords = emitCoordinates(code, "    ", shape, "idx", "i");
  auto value = emitDataMovement(builder, last, code, coords);
  if (failed(value))
    return failure();
  builder.bind(last->getResult(0), *value);
  builder.emitStores(code, "    ", shape, "idx", coords);
  code += "  }\n";
  return builder.finish(code, launchOver(shape));
}

} // namespace fusec::codegen
