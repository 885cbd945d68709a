//===- ElementwiseKernels.cpp - Elementwise and data-movement kernels -----===//
//
// One thread per output element in a grid-stride loop (four, with float4
// loads and stores, when the sizes allow). Elementwise groups evaluate their
// whole chain in registers (inputs broadcast by index arithmetic) and write
// every materialized value once. Data-movement ops
// (pad, transpose, reshape, flatten, concat) map each output element to
// the input element it copies.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelBuilder.h"
#include "ir/ElementTypes.h"

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
  launch.grid[0] = gridFor(linearNumel(shape), kThreads);
  return launch;
}

/// The value of input element `coords` of a data-movement op, for output
/// coordinates `out`.
FailureOr<std::string> emitDataMovement(KernelBuilder &builder, Operation *op, std::string &code,
                                        const std::vector<std::string> &out) {
  const std::string indent = "    ";
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<fuse::ReshapeOp, fuse::FlattenOp>(
          [&](auto) -> FailureOr<std::string> { return builder.load(op->getOperand(0), "idx"); })
      .Case([&](fuse::TransposeOp transpose) -> FailureOr<std::string> {
        auto perm = transpose.getPerm();
        std::vector<std::string> in(perm.size());
        for (size_t i = 0; i < perm.size(); ++i)
          in[perm[i]] = out[i];
        return builder.load(op->getOperand(0), linearOffset(shapeOf(op->getOperand(0)), in));
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
        std::string load = builder.load(pad.getInput(), linearOffset(shape, in));
        if (pad.getMode() != "constant")
          return load;
        return "((" + inside + ") ? " + load + " : " + floatLiteral(pad.getValue().convertToDouble()) + ")";
      })
      .Case([&](fuse::ConcatOp concat) -> FailureOr<std::string> {
        int64_t axis = concat.getAxis();
        std::string result = builder.fresh("c");
        code += indent + registerType(fuse::elementTypeOf(concat.getOutput())) + " " + result + " = 0;\n";
        int64_t start = 0;
        for (auto [i, operand] : llvm::enumerate(concat.getInputs())) {
          auto shape = shapeOf(operand);
          std::vector<std::string> in = out;
          in[axis] = "(" + out[axis] + " - " + std::to_string(start) + "LL)";
          code += indent + (i ? "else if (" : "if (") + out[axis] + " < " + std::to_string(start + shape[axis]) +
                  "LL) " + result + " = " + builder.load(operand, linearOffset(shape, in)) + ";\n";
          start += shape[axis];
        }
        return result;
      })
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
    auto coords = emitCoordinates(code, "      ", shape, "idx", builder.fresh("i"));
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
  if (allF32 && count.perBatch % 4 == 0 && count.fixed % 4 == 0 && anyFullInput && allOutputsFull)
    return emitVectorizedElementwise(builder, ops, shape);
  std::string code = loopHead(shape);
  auto coords = emitCoordinates(code, "    ", shape, "idx", "i");
  if (failed(builder.emitElementwise(code, "    ", ops, coords)))
    return failure();
  builder.emitStores(code, "    ", shape, "idx", coords);
  code += "  }\n";
  return builder.finish(code, launchOver(shape));
}

FailureOr<GeneratedKernel> emitDataMovementKernel(KernelBuilder &builder) {
  auto ops = builder.bodyOps();
  if (ops.size() != 1)
    return builder.getKernel().emitError() << "a data-movement kernel computes one op";
  Operation *op = ops.front();
  auto shape = shapeOf(op->getResult(0));
  std::string code = loopHead(shape);
  auto coords = emitCoordinates(code, "    ", shape, "idx", "i");
  auto value = emitDataMovement(builder, op, code, coords);
  if (failed(value))
    return failure();
  builder.bind(op->getResult(0), *value);
  builder.emitStores(code, "    ", shape, "idx", coords);
  code += "  }\n";
  return builder.finish(code, launchOver(shape));
}

} // namespace fusec::codegen
