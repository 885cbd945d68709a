//===- Logical.cpp - Comparisons, boolean logic and Where -------------------===//
//
// The ops that build and apply masks. They are typed (OpInfo::typed): the
// comparisons take operands of any one element type and give i1; Not, And,
// Or, Xor take and give i1; Where selects between operands of any one type.
// Integers compare as int64 (exactly), floats as float32; all broadcast like
// numpy.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Broadcast.h"
#include "runtime/cpu/OpRegistry.h"

#include <functional>

namespace fusec::runtime::cpu {

namespace {

void requireType(const OpContext &context, const std::string &what, ElementType actual, ElementType expected) {
  if (actual != expected)
    context.fail(what + " is " + elementTypeName(actual) + ", not " + elementTypeName(expected));
}

/// Equal, Less, ...: `compare` is one of std::equal_to<>, std::less<>, ...
template <typename Compare> void compareOp(const OpContext &context) {
  const ConstView &a = context.operand(0);
  const ConstView &b = context.operand(1);
  requireType(context, "operand 1", b.type, a.type);
  requireType(context, "the result", context.result().type, ElementType::I1);
  int64_t *y = context.result().integers;
  const bool floats = isFloatElementType(a.type);
  forEachBroadcast<2>(context, {&a.shape, &b.shape}, [&](int64_t out, const std::array<int64_t, 2> &in) {
    y[out] = floats ? Compare{}(a.data[in[0]], b.data[in[1]]) : Compare{}(a.integers[in[0]], b.integers[in[1]]);
  });
}

template <typename Combine> void logicalOp(const OpContext &context) {
  const ConstView &a = context.operand(0);
  const ConstView &b = context.operand(1);
  requireType(context, "operand 0", a.type, ElementType::I1);
  requireType(context, "operand 1", b.type, ElementType::I1);
  requireType(context, "the result", context.result().type, ElementType::I1);
  int64_t *y = context.result().integers;
  forEachBroadcast<2>(context, {&a.shape, &b.shape}, [&](int64_t out, const std::array<int64_t, 2> &in) {
    y[out] = Combine{}(a.integers[in[0]] != 0, b.integers[in[1]] != 0);
  });
}

void notOp(const OpContext &context) {
  const ConstView &x = context.operand(0);
  requireType(context, "operand 0", x.type, ElementType::I1);
  requireType(context, "the result", context.result().type, ElementType::I1);
  context.expectResultShape(x.shape);
  const int64_t count = numElements(x.shape);
  for (int64_t i = 0; i < count; ++i)
    context.result().integers[i] = x.integers[i] == 0;
}

void whereOp(const OpContext &context) {
  const ConstView &condition = context.operand(0);
  const ConstView &a = context.operand(1);
  const ConstView &b = context.operand(2);
  const MutableView &y = context.result();
  requireType(context, "the condition", condition.type, ElementType::I1);
  requireType(context, "operand 2", b.type, a.type);
  requireType(context, "the result", y.type, a.type);
  const bool floats = isFloatElementType(a.type);
  forEachBroadcast<3>(context, {&condition.shape, &a.shape, &b.shape},
                      [&](int64_t out, const std::array<int64_t, 3> &in) {
                        const bool pickA = condition.integers[in[0]] != 0;
                        if (floats)
                          y.data[out] = pickA ? a.data[in[1]] : b.data[in[2]];
                        else
                          y.integers[out] = pickA ? a.integers[in[1]] : b.integers[in[2]];
                      });
}

} // namespace

void registerLogicalOps(OpRegistry &registry) {
  const std::pair<const char *, OpFunction> comparisons[] = {{"Equal", compareOp<std::equal_to<>>},
                                                             {"Less", compareOp<std::less<>>},
                                                             {"LessOrEqual", compareOp<std::less_equal<>>},
                                                             {"Greater", compareOp<std::greater<>>},
                                                             {"GreaterOrEqual", compareOp<std::greater_equal<>>}};
  for (const auto &[name, function] : comparisons)
    registry.add(name, OpInfo{function, 2, 2, /*typed=*/true});
  const std::pair<const char *, OpFunction> logical[] = {{"And", logicalOp<std::logical_and<>>},
                                                         {"Or", logicalOp<std::logical_or<>>},
                                                         {"Xor", logicalOp<std::not_equal_to<>>}};
  for (const auto &[name, function] : logical)
    registry.add(name, OpInfo{function, 2, 2, /*typed=*/true});
  registry.add("Not", OpInfo{notOp, 1, 1, /*typed=*/true});
  registry.add("Where", OpInfo{whereOp, 3, 3, /*typed=*/true});
}

} // namespace fusec::runtime::cpu
