//===- TypedConstants.cpp - fuse.constant ops of any element type ---------===//
#include "compiler/import/TypedConstants.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/NodeNames.h"
#include "support/HalfFloat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cctype>

using namespace mlir;

namespace fusec::import {
namespace {

/// Resource keys are printed as bare identifiers (as ir/ConstantData.cpp
/// makes them).
std::string resourceKey(StringRef name) {
  std::string key = fuse::identifierFrom(name);
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0])))
    key = "w_" + key;
  return key;
}

/// A dense attribute for small tensors, a resource blob for large ones; the
/// bytes are the plan's layout of `type`'s elements.
template <typename T> ElementsAttr makeData(RankedTensorType type, StringRef name, ArrayRef<T> data) {
  if (static_cast<int64_t>(data.size()) <= fuse::kInlineConstantLimit)
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(data.data()), data.size() * sizeof(T)));
  return llvm::cast<ElementsAttr>(
      DenseResourceElementsAttr::get(type, resourceKey(name), HeapAsmResourceBlob::allocateAndCopyInferAlign(data)));
}

template <typename T> std::vector<T> narrowInts(ArrayRef<int64_t> values) {
  std::vector<T> narrowed(values.begin(), values.end());
  return narrowed;
}

} // namespace

Type elementTypeFor(MLIRContext *context, DType type) {
  return fuse::parseElementType(context, runtime::elementTypeName(type));
}

Value createGraphConstant(OpBuilder &builder, Location loc, const GraphConstant &constant) {
  if (constant.dtype == DType::F32 && constant.mapping) {
    auto type = RankedTensorType::get(constant.shape, builder.getF32Type());
    return builder.create<fuse::ConstantOp>(
        loc, fuse::makeConstantDataInPlace(type, constant.name, constant.mapped, constant.mapping));
  }
  if (constant.dtype == DType::F32)
    return fuse::createConstant(builder, loc, constant.name, constant.shape, constant.data);
  auto type = RankedTensorType::get(constant.shape, elementTypeFor(builder.getContext(), constant.dtype));
  ElementsAttr value;
  switch (constant.dtype) {
  case DType::F16:
  case DType::BF16: {
    // The data holds f16/bf16 values widened exactly, so narrowing them back
    // gives the file's bit patterns.
    bool half = constant.dtype == DType::F16;
    std::vector<uint16_t> bits(constant.data.size());
    for (size_t i = 0; i < bits.size(); ++i)
      bits[i] = half ? floatToHalfBits(constant.data[i]) : floatToBfloat16Bits(constant.data[i]);
    value = makeData<uint16_t>(type, constant.name, bits);
    break;
  }
  case DType::I64:
    value = makeData<int64_t>(type, constant.name, constant.ints);
    break;
  case DType::I32:
    value = makeData<int32_t>(type, constant.name, narrowInts<int32_t>(constant.ints));
    break;
  case DType::I8:
    value = makeData<int8_t>(type, constant.name, narrowInts<int8_t>(constant.ints));
    break;
  case DType::U8:
    value = makeData<uint8_t>(type, constant.name, narrowInts<uint8_t>(constant.ints));
    break;
  case DType::I1:
    // MLIR packs dense i1 data as bits; small masks use its bool builder,
    // large ones a blob of one byte per element as plans store them.
    if (static_cast<int64_t>(constant.ints.size()) <= fuse::kInlineConstantLimit) {
      SmallVector<bool> bools;
      for (int64_t v : constant.ints)
        bools.push_back(v != 0);
      value = DenseElementsAttr::get(type, ArrayRef<bool>(bools));
    } else {
      std::vector<uint8_t> bytes;
      bytes.reserve(constant.ints.size());
      for (int64_t v : constant.ints)
        bytes.push_back(v != 0);
      value = makeData<uint8_t>(type, constant.name, bytes);
    }
    break;
  case DType::F32:
    break;
  }
  return builder.create<fuse::ConstantOp>(loc, value);
}

} // namespace fusec::import
