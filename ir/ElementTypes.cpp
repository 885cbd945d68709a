//===- ElementTypes.cpp - The element types fuse tensors may have --------===//
#include "ir/ElementTypes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace fusec::fuse {

std::optional<StringRef> elementTypeName(Type type) {
  if (type.isF32())
    return StringRef("f32");
  if (type.isF16())
    return StringRef("f16");
  if (type.isBF16())
    return StringRef("bf16");
  if (type.isSignlessInteger(64))
    return StringRef("i64");
  if (type.isSignlessInteger(32))
    return StringRef("i32");
  if (type.isSignlessInteger(1))
    return StringRef("i1");
  if (type.isSignlessInteger(8))
    return StringRef("i8");
  if (type.isUnsignedInteger(8))
    return StringRef("u8");
  return std::nullopt;
}

Type parseElementType(MLIRContext *context, StringRef name) {
  Builder builder(context);
  if (name == "f32")
    return builder.getF32Type();
  if (name == "f16")
    return builder.getF16Type();
  if (name == "bf16")
    return builder.getBF16Type();
  if (name == "i64")
    return builder.getI64Type();
  if (name == "i32")
    return builder.getI32Type();
  if (name == "i1")
    return builder.getI1Type();
  if (name == "i8")
    return builder.getI8Type();
  if (name == "u8")
    return builder.getIntegerType(8, /*isSigned=*/false);
  return {};
}

bool isComputeElementType(Type type) { return type.isF32() || type.isF16() || type.isBF16(); }

bool isQuantizedElementType(Type type) { return type.isSignlessInteger(8) || type.isUnsignedInteger(8); }

int64_t elementByteSize(Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : bits / 8;
}

Type elementTypeOf(Value value) { return llvm::cast<ShapedType>(value.getType()).getElementType(); }

RankedTensorType withElementType(Type type, Type element) {
  // clone keeps the encoding that names the type's symbols.
  return llvm::cast<RankedTensorType>(llvm::cast<RankedTensorType>(type).clone(element));
}

} // namespace fusec::fuse
