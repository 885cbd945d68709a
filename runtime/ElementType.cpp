//===- ElementType.cpp - The element types a plan's tensors may have -------===//

#include "runtime/ElementType.h"

namespace fusec::runtime {

namespace {
constexpr ElementType kAllTypes[] = {ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::I64,
                                     ElementType::I32, ElementType::I1,  ElementType::I8,   ElementType::U8};
} // namespace

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I64:
    return "i64";
  case ElementType::I32:
    return "i32";
  case ElementType::I1:
    return "i1";
  case ElementType::I8:
    return "i8";
  case ElementType::U8:
    return "u8";
  }
  return "unknown";
}

std::optional<ElementType> parseElementType(std::string_view name) {
  for (ElementType type : kAllTypes)
    if (name == elementTypeName(type))
      return type;
  return std::nullopt;
}

size_t elementSize(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I64:
    return 8;
  case ElementType::I1:
  case ElementType::I8:
  case ElementType::U8:
    return 1;
  }
  return 4;
}

bool isFloatElementType(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::BF16;
}

} // namespace fusec::runtime
