//===- FuseOps.cpp - fuse dialect operations ----------------------------===//
#include "ir/FuseOps.h"
#include "ir/ConstantData.h"
#include "ir/ShapeUtils.h"

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
