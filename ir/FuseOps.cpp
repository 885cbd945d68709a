//===- FuseOps.cpp - fuse dialect operations ----------------------------===//
#include "ir/FuseOps.h"
#include "ir/ConstantData.h"
#include "ir/ShapeUtils.h"
#include "support/ScalarOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace fusec::fuse;

#include "ir/FuseInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "ir/FuseOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                           DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
                                           SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  if (!adaptor.getValue())
    return emitOptionalError(loc, "'fuse.constant' needs a 'value' attribute");
  inferred.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto valueType = llvm::dyn_cast<RankedTensorType>(getValue().getType());
  if (!valueType || valueType != getType())
    return emitOpError() << "value type " << getValue().getType() << " does not match the result type " << getType();
  if (!valueType.hasStaticShape())
    return emitOpError() << "constants must have a static shape";
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// QuantizeLinearOp and DequantizeLinearOp
//===----------------------------------------------------------------------===//

namespace {

/// The constant operands of a quantization op, read for folding: the
/// input's elements as f32 (a float input) or integers (a quantized one),
/// the scale's, and the zero point's; each parameter element's index for
/// each input element (numpy broadcasting of the parameters' shape).
struct QuantizationConstants {
  std::vector<float> floats;
  std::vector<int64_t> integers;
  std::vector<float> scale;
  std::vector<int64_t> zeroPoint;
  std::vector<int64_t> parameterIndex;
};

/// The integers of a constant of i8, ui8 (or any integer type up to 64
/// bits), from the bytes a plan would store.
std::optional<std::vector<int64_t>> integerElements(ElementsAttr value) {
  auto type = llvm::dyn_cast<IntegerType>(value.getElementType());
  if (!type || type.getWidth() % 8 != 0)
    return std::nullopt;
  std::vector<uint8_t> storage;
  std::optional<ArrayRef<uint8_t>> bytes = constantBytes(value, storage);
  const size_t width = type.getWidth() / 8, count = size_t(value.getNumElements());
  if (!bytes || bytes->size() != count * width)
    return std::nullopt;
  std::vector<int64_t> result(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    for (size_t byte = 0; byte < width; ++byte)
      bits |= uint64_t((*bytes)[i * width + byte]) << (8 * byte);
    const bool negative = !type.isUnsigned() && width < 8 && (bits >> (8 * width - 1)) & 1;
    result[i] = negative ? int64_t(bits | (~uint64_t(0) << (8 * width))) : int64_t(bits);
  }
  return result;
}

std::optional<QuantizationConstants> quantizationConstants(Attribute input, Attribute scale, Attribute zeroPoint,
                                                           RankedTensorType inputType) {
  auto inputValue = llvm::dyn_cast_or_null<ElementsAttr>(input);
  auto scaleValue = llvm::dyn_cast_or_null<ElementsAttr>(scale);
  auto zeroValue = llvm::dyn_cast_or_null<ElementsAttr>(zeroPoint);
  if (!inputValue || !scaleValue || !zeroValue || !inputType.hasStaticShape())
    return std::nullopt;
  QuantizationConstants constants;
  if (llvm::isa<FloatType>(inputValue.getElementType())) {
    auto floats = getConstantData(inputValue);
    if (!floats)
      return std::nullopt;
    constants.floats = std::move(*floats);
  } else {
    auto integers = integerElements(inputValue);
    if (!integers)
      return std::nullopt;
    constants.integers = std::move(*integers);
  }
  auto scales = getConstantData(scaleValue);
  auto zeros = integerElements(zeroValue);
  if (!scales || !zeros)
    return std::nullopt;
  constants.scale = std::move(*scales);
  constants.zeroPoint = std::move(*zeros);
  // Shape inference checked that the parameters broadcast to the input.
  ArrayRef<int64_t> shape = inputType.getShape();
  auto parameterShape = llvm::cast<ShapedType>(scaleValue.getType()).getShape();
  const size_t rank = shape.size(), offset = rank - parameterShape.size();
  std::vector<int64_t> strides(rank, 0);
  for (int64_t d = int64_t(parameterShape.size()) - 1, stride = 1; d >= 0; --d) {
    if (parameterShape[d] != 1)
      strides[offset + d] = stride;
    stride *= parameterShape[d];
  }
  const int64_t count = inputType.getNumElements();
  constants.parameterIndex.resize(size_t(count));
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d)
      at += index[d] * strides[d];
    constants.parameterIndex[size_t(flat)] = at;
    for (int64_t d = int64_t(rank) - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return constants;
}

} // namespace

// The CPU reference's arithmetic (support/ScalarOps.h), element by element.
OpFoldResult QuantizeLinearOp::fold(FoldAdaptor adaptor) {
  auto constants =
      quantizationConstants(adaptor.getInput(), adaptor.getScale(), adaptor.getZeroPoint(), getInput().getType());
  if (!constants || !getType().hasStaticShape())
    return {};
  const bool isSigned = getType().getElementType().isSignlessInteger(8);
  const float low = isSigned ? -128.0f : 0.0f, high = isSigned ? 127.0f : 255.0f;
  std::vector<char> bytes(constants->floats.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    const size_t at = size_t(constants->parameterIndex[i]);
    bytes[i] = char(scalar::quantize(constants->floats[i], constants->scale[at], constants->zeroPoint[at], low, high));
  }
  return DenseElementsAttr::getFromRawBuffer(getType(), bytes);
}

// (q - zero point) * scale in f32, as the CPU reference computes it.
OpFoldResult DequantizeLinearOp::fold(FoldAdaptor adaptor) {
  auto constants =
      quantizationConstants(adaptor.getInput(), adaptor.getScale(), adaptor.getZeroPoint(), getInput().getType());
  if (!constants || !getType().hasStaticShape())
    return {};
  std::vector<float> values(constants->integers.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t at = size_t(constants->parameterIndex[i]);
    values[i] = scalar::dequantize(constants->integers[i], constants->scale[at], constants->zeroPoint[at]);
  }
  return makeConstantData(getType(), constantNameAt(getLoc(), "dequantized"), values);
}

//===----------------------------------------------------------------------===//
// SliceOp and ExpandOp
//===----------------------------------------------------------------------===//

// A slice that keeps every element, and an expand to the input's own shape,
// are the identity. A slice of a constant is a constant (a packed
// projection's weight split into Q and KV parts).
OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && llvm::all_of(getSteps(), [](int64_t step) { return step == 1; }))
    return getInput();
  auto input = llvm::dyn_cast_or_null<ElementsAttr>(adaptor.getInput());
  if (!input || !getType().hasStaticShape())
    return {};
  auto data = getConstantData(input);
  if (!data)
    return {};
  auto inputShape = getInput().getType().getShape();
  auto outputShape = getType().getShape();
  const int64_t rank = inputShape.size();
  SmallVector<int64_t> inputStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inputStrides[d] = inputStrides[d + 1] * inputShape[d + 1];
  std::vector<float> result(size_t(getType().getNumElements()));
  SmallVector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < result.size(); ++flat) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += (getStarts()[d] + index[d] * getSteps()[d]) * inputStrides[d];
    result[flat] = (*data)[size_t(source)];
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == outputShape[d]; --d)
      index[d] = 0;
  }
  return makeConstantData(getType(), constantNameAt(getLoc(), "sliced"), result);
}

OpFoldResult ExpandOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  // The identity, and a transpose of a transpose: output axis i is the
  // inner input's axis inner[perm[i]] (inverse pairs cancel).
  if (llvm::equal(perm, llvm::seq<int64_t>(0, static_cast<int64_t>(perm.size()))))
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t axis : perm)
      composed.push_back(inner.getPerm()[axis]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, static_cast<int64_t>(composed.size()))))
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    return getResult();
  }
  auto input = llvm::dyn_cast_or_null<ElementsAttr>(adaptor.getInput());
  if (!input)
    return {};
  auto data = getConstantData(input);
  if (!data)
    return {};
  auto inputShape = getInput().getType().getShape();
  auto outputShape = getType().getShape();
  int64_t rank = inputShape.size();
  SmallVector<int64_t> inputStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inputStrides[d] = inputStrides[d + 1] * inputShape[d + 1];
  std::vector<float> result(data->size());
  SmallVector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < result.size(); ++flat) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * inputStrides[getPerm()[d]];
    result[flat] = (*data)[source];
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == outputShape[d]; --d)
      index[d] = 0;
  }
  return makeConstantData(getType(), constantNameAt(getLoc(), "transposed"), result);
}

//===----------------------------------------------------------------------===//
// SuperkernelOp
//===----------------------------------------------------------------------===//

LogicalResult SuperkernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments() << " arguments but the superkernel has "
                         << getInputs().size() << " inputs";
  for (auto [index, pair] : llvm::enumerate(llvm::zip(body.getArgumentTypes(), getInputs().getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "body argument " << index << " has type " << std::get<0>(pair) << " but input " << index
                           << " has type " << std::get<1>(pair);
  auto yield = llvm::dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with fuse.yield";
  if (yield.getValues().getTypes() != getOutputs().getTypes())
    return emitOpError() << "fuse.yield returns " << yield.getValues().size() << " values whose types do not match the "
                         << getOutputs().size() << " superkernel results";
  if (getSymName().empty())
    return emitOpError() << "needs a non-empty kernel name";
  if (ArrayAttr variants = getVariantsAttr()) {
    if (!getConfigAttr())
      return emitOpError() << "has variants but no config: the first config is the kernel's own";
    llvm::SmallPtrSet<Attribute, 4> seen = {getConfigAttr()};
    for (Attribute variant : variants)
      if (!seen.insert(variant).second)
        return emitOpError() << "lists the config " << variant << " twice among its config and variants";
  }
  return success();
}
