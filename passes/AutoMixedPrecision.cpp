//===- AutoMixedPrecision.cpp - f16/bf16 compute with f32 where it matters ===//
//
// The lists follow torch.autocast's (and OneFlow's AMP lists): the ops that
// carry the FLOPs run on half-precision tensor cores, the ops whose result
// is sensitive to rounding (normalisations, exponentials, reductions) stay
// f32, and the rest run in whatever their inputs are. Every kernel computes
// in f32 registers either way; what the lists decide is which values are
// stored, and therefore rounded, as f16/bf16.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "support/HalfFloat.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"

namespace fusec {
#define GEN_PASS_DEF_AUTOMIXEDPRECISION
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

/// What the op's facts say mixed precision does with it (FuseOps.td); ops
/// without facts follow their inputs.
AmpPrecision listOf(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  return facts ? facts.getAmpPrecision() : AmpPrecision::Follow;
}

/// `data` (f32) rounded to `type` (f16 or bf16), as raw bits.
std::vector<uint16_t> convertToHalf(ArrayRef<float> data, Type type) {
  std::vector<uint16_t> bits(data.size());
  for (size_t i = 0; i < data.size(); ++i)
    bits[i] = type.isF16() ? fusec::floatToHalfBits(data[i]) : fusec::floatToBfloat16Bits(data[i]);
  return bits;
}

struct AutoMixedPrecisionPass : fusec::impl::AutoMixedPrecisionBase<AutoMixedPrecisionPass> {
  using AutoMixedPrecisionBase::AutoMixedPrecisionBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = &getContext();
    half = parseElementType(context, precision);
    if (!half || !(half.isF16() || half.isBF16())) {
      function.emitError() << "fuse-auto-mixed-precision: 'precision' must be f16 or bf16, got '" << precision << "'";
      return signalPassFailure();
    }
    f32 = Float32Type::get(context);
    if (!ioPrecision.empty() && parseElementType(context, ioPrecision) != half) {
      function.emitError() << "fuse-auto-mixed-precision: 'io-precision' must be empty or '" << precision << "', got '"
                           << ioPrecision << "'";
      return signalPassFailure();
    }
    if (!ioPrecision.empty())
      retypeSignature(function);

    SmallVector<Operation *> ops;
    function.walk([&](Operation *op) {
      if (isa<ShapeInferenceOpInterface>(op) && !isa<CastOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(retype(op)))
        return signalPassFailure();

    // Results keep the function's declared types.
    Operation *terminator = function.getBody().front().getTerminator();
    OpBuilder builder(terminator);
    for (auto [index, type] : llvm::enumerate(function.getResultTypes())) {
      Value value = terminator->getOperand(index);
      if (value.getType() != type)
        terminator->setOperand(index, castTo(builder, value, llvm::cast<RankedTensorType>(type).getElementType()));
    }
    hoistCastsAboveDataMovement(function);
  }

private:
  /// Makes the function's f32 arguments and results half tensors.
  void retypeSignature(func::FuncOp function) {
    Block &entry = function.getBody().front();
    for (BlockArgument argument : entry.getArguments())
      if (elementTypeOf(argument).isF32())
        argument.setType(withElementType(argument.getType(), half));
    SmallVector<Type> results;
    for (Type type : function.getResultTypes())
      results.push_back(llvm::cast<RankedTensorType>(type).getElementType().isF32() ? withElementType(type, half)
                                                                                    : type);
    function.setType(FunctionType::get(function.getContext(), entry.getArgumentTypes(), results));
  }

  /// The type `op` computes in.
  Type computeType(Operation *op) {
    switch (listOf(op)) {
    case AmpPrecision::Half:
      return half;
    case AmpPrecision::F32:
      return f32;
    case AmpPrecision::Follow:
      break;
    }
    bool anyHalf = false;
    for (Value operand : op->getOperands()) {
      Type type = elementTypeOf(operand);
      // Constants convert to whatever the op computes in; integer and bool
      // operands (Where's condition, compared ids) keep their types.
      if (operand.getDefiningOp<ConstantOp>() || !isComputeElementType(type))
        continue;
      if (type.isF32())
        return f32;
      anyHalf |= type == half;
    }
    return anyHalf ? half : f32;
  }

  LogicalResult retype(Operation *op) {
    Type type = computeType(op);
    OpBuilder builder(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (elementTypeOf(value) == type || !isComputeElementType(elementTypeOf(value)))
        continue;
      if (auto constant = value.getDefiningOp<ConstantOp>()) {
        FailureOr<Value> converted = convertConstant(constant, type);
        if (failed(converted))
          return failure();
        operand.set(*converted);
      } else {
        operand.set(castTo(builder, value, type));
      }
    }
    for (Value result : op->getResults())
      if (isComputeElementType(elementTypeOf(result)))
        result.setType(withElementType(result.getType(), type));
    if (type == half)
      ++numHalfOps;
    return success();
  }

  /// A cast of a value that a data-movement op made (Pad, Reshape, Flatten,
  /// Transpose, Concat, Slice, Expand; not Gather, whose indices are no
  /// data) and nothing else reads moves above that op: moving
  /// data commutes with converting it, and the casts then sit next to the
  /// kernels that compute the data, whose epilogues they join, instead of
  /// in a kernel of their own behind a data-movement kernel.
  void hoistCastsAboveDataMovement(func::FuncOp function) {
    SmallVector<CastOp> worklist;
    function.walk([&](CastOp cast) { worklist.push_back(cast); });
    while (!worklist.empty()) {
      CastOp cast = worklist.pop_back_val();
      Operation *mover = cast.getInput().getDefiningOp();
      if (!mover || !isa<PadOp, ReshapeOp, FlattenOp, TransposeOp, ConcatOp, SliceOp, ExpandOp>(mover) ||
          !mover->hasOneUse())
        continue;
      Type type = elementTypeOf(cast.getOutput());
      if (!isComputeElementType(type))
        continue;
      // A Concat stored in place costs nothing: kept in the half type, it
      // moves half the bytes, and the widening cast joins its reader.
      if (concatsInPlace && isa<ConcatOp>(mover) && type.isF32())
        continue;
      OpBuilder builder(mover);
      SmallVector<Value> operands;
      for (Value operand : mover->getOperands()) {
        if (auto constant = operand.getDefiningOp<ConstantOp>()) {
          FailureOr<Value> converted = convertConstant(constant, type);
          if (failed(converted))
            return signalPassFailure();
          operands.push_back(*converted);
        } else {
          bool existed = casts.count(std::make_pair(operand, type));
          operands.push_back(castTo(builder, operand, type));
          if (!existed)
            worklist.push_back(operands.back().getDefiningOp<CastOp>());
        }
      }
      builder.setInsertionPoint(mover);
      Operation *moved = builder.clone(*mover);
      moved->setOperands(operands);
      moved->getResult(0).setType(cast.getOutput().getType());
      cast.getOutput().replaceAllUsesWith(moved->getResult(0));
      casts.erase(std::make_pair(cast.getInput(), type));
      cast.erase();
      mover->erase();
    }
  }

  /// `value` as `type`: one fuse.cast per value and type, right after the
  /// value is defined so that every user can share it.
  Value castTo(OpBuilder &builder, Value value, Type type) {
    auto key = std::make_pair(value, type);
    if (auto it = casts.find(key); it != casts.end())
      return it->second;
    OpBuilder::InsertionGuard guard(builder);
    if (Operation *producer = value.getDefiningOp())
      builder.setInsertionPointAfter(producer);
    else
      builder.setInsertionPointToStart(llvm::cast<BlockArgument>(value).getOwner());
    auto name = elementTypeName(type);
    Value cast = builder.create<CastOp>(value.getLoc(), withElementType(value.getType(), type), value,
                                        builder.getStringAttr(*name));
    ++numCasts;
    casts[key] = cast;
    return cast;
  }

  /// The constant `constant` holds, converted to `type` at compile time.
  FailureOr<Value> convertConstant(ConstantOp constant, Type type) {
    auto key = std::make_pair(constant.getResult(), type);
    if (auto it = casts.find(key); it != casts.end())
      return it->second;
    if (!elementTypeOf(constant.getResult()).isF32() || !(type == half || type.isF32()))
      return constant.emitError() << "fuse-auto-mixed-precision converts f32 constants only, not "
                                  << elementTypeOf(constant.getResult()) << " to " << type;
    std::optional<std::vector<float>> data = getConstantData(constant.getValue());
    if (!data)
      return constant.emitError() << "constant data is unavailable (elided resource?)";
    auto tensorType = withElementType(constant.getType(), type);
    std::vector<uint16_t> bits = convertToHalf(*data, type);
    ElementsAttr value;
    if (static_cast<int64_t>(bits.size()) <= kInlineConstantLimit) {
      SmallVector<APFloat> elements;
      for (uint16_t element : bits)
        elements.emplace_back(llvm::cast<FloatType>(type).getFloatSemantics(), APInt(16, element));
      value = DenseElementsAttr::get(tensorType, elements);
    } else {
      std::string name = constantNameAt(constant.getLoc(), *elementTypeName(type));
      value = DenseResourceElementsAttr::get(tensorType, name,
                                             HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<uint16_t>(bits)));
    }
    OpBuilder builder(constant);
    builder.setInsertionPointAfter(constant);
    Value converted = builder.create<ConstantOp>(constant.getLoc(), value);
    ++numConvertedConstants;
    casts[key] = converted;
    return converted;
  }

  Type half, f32;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
};

} // namespace
