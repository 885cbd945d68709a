//===- ElementType.h - The element types a plan's tensors may have ---------===//
//
// Every tensor of a plan is dense, in C order and little-endian, with one of
// these element types (manifest spelling in parentheses): f32, f16 (IEEE
// binary16), bf16 (the upper half of an f32), i64, i32 and i1 (one byte
// holding 0 or 1), and i8 and u8, the quantized types (QuantizeLinear's
// results, DequantizeLinear's operands). docs/plan-format.md ("Element
// types") gives the rules.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_ELEMENTTYPE_H
#define FUSEC_RUNTIME_ELEMENTTYPE_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace fusec::runtime {

enum class ElementType { F32, F16, BF16, I64, I32, I1, I8, U8 };

/// The manifest spelling: "f32", "f16", "bf16", "i64", "i32", "i1", "i8", "u8".
const char *elementTypeName(ElementType type);
/// The type a manifest spelling names, or nullopt.
std::optional<ElementType> parseElementType(std::string_view name);
/// Bytes per element.
size_t elementSize(ElementType type);
/// f32, f16 and bf16.
bool isFloatElementType(ElementType type);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_ELEMENTTYPE_H
