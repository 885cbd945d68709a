//===- OpTypeVerifier.cpp - Element types of a plan's ops, checked at load -===//

#include "runtime/plan/OpTypeVerifier.h"

#include "runtime/Error.h"
#include "support/OpRules.h"

namespace fusec::runtime {

namespace {

std::string describeValue(const KernelDesc &kernel, size_t value) {
  return "value " + std::to_string(value) + " (" + elementTypeName(kernel.valueTypes[value]) + ")";
}

} // namespace

void verifyOpElementTypes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName) {
  const std::string where = sourceName + ": kernel '" + kernel.name + "' op " + op.op + " '" + op.name + "': ";
  auto fail = [&](const std::string &reason) { throw Error(where + reason); };
  auto requireType = [&](const std::string &what, size_t value, ElementType type) {
    if (kernel.valueTypes[value] != type)
      fail(what + " " + describeValue(kernel, value) + " must be " + elementTypeName(type));
  };

  const rules::TypeRule rule = rules::typeRuleOf(op.op);
  if (rule == rules::TypeRule::Cast) {
    if (op.operands.size() != 1 || op.results.size() != 1)
      fail("needs one operand and one result, not " + std::to_string(op.operands.size()) + " and " +
           std::to_string(op.results.size()));
    const auto to = op.attrs.find("to");
    if (to == op.attrs.end() || !to->is_string())
      fail("needs a string attribute 'to' naming the result's dtype");
    const ElementType result = kernel.valueTypes[op.results[0]];
    if (to->get<std::string>() != elementTypeName(result))
      fail("attribute 'to' is '" + to->get<std::string>() + "', but the result " +
           describeValue(kernel, op.results[0]) + " is " + elementTypeName(result));
    return;
  }
  if (rule == rules::TypeRule::Float) {
    for (size_t value : op.operands)
      if (!isFloatElementType(kernel.valueTypes[value]))
        fail("operand " + describeValue(kernel, value) +
             " is not a float; only Cast, comparisons, logic, Where, DequantizeLinear and data movement take "
             "integers");
    for (size_t value : op.results)
      if (!isFloatElementType(kernel.valueTypes[value]))
        fail("result " + describeValue(kernel, value) +
             " is not a float; only Cast, comparisons, logic, Where, QuantizeLinear and data movement give "
             "integers");
    return;
  }
  // The arity is the CPU backend's and emulation's to check; the types of
  // what is there are checked here.
  if (op.results.size() != 1 || op.operands.empty())
    fail("needs operands and one result");
  const size_t result = op.results[0];
  switch (rule) {
  case rules::TypeRule::Compare:
    for (size_t value : op.operands)
      requireType("operand", value, kernel.valueTypes[op.operands[0]]);
    requireType("the result", result, ElementType::I1);
    return;
  case rules::TypeRule::Logical:
    for (size_t value : op.operands)
      requireType("operand", value, ElementType::I1);
    requireType("the result", result, ElementType::I1);
    return;
  case rules::TypeRule::Select:
    requireType("the condition", op.operands[0], ElementType::I1);
    for (size_t i = 1; i < op.operands.size(); ++i)
      requireType("operand", op.operands[i], kernel.valueTypes[result]);
    return;
  case rules::TypeRule::Gather:
    requireType("the data", op.operands[0], kernel.valueTypes[result]);
    if (op.operands.size() > 1 && kernel.valueTypes[op.operands[1]] != ElementType::I64 &&
        kernel.valueTypes[op.operands[1]] != ElementType::I32)
      fail("the indices " + describeValue(kernel, op.operands[1]) + " must be i64 or i32");
    return;
  case rules::TypeRule::Index:
    if (!isFloatElementType(kernel.valueTypes[op.operands[0]]))
      fail("operand " + describeValue(kernel, op.operands[0]) + " must be a float");
    requireType("the result", result, ElementType::I64);
    return;
  case rules::TypeRule::Quantize:
  case rules::TypeRule::Dequantize: {
    if (op.operands.size() != 3)
      fail("needs the input, the scale and the zero point");
    const size_t quantized = rule == rules::TypeRule::Quantize ? result : op.operands[0];
    const size_t real = rule == rules::TypeRule::Quantize ? op.operands[0] : result;
    if (kernel.valueTypes[quantized] != ElementType::I8 && kernel.valueTypes[quantized] != ElementType::U8)
      fail(std::string(rule == rules::TypeRule::Quantize ? "the result " : "the input ") +
           describeValue(kernel, quantized) + " must be i8 or u8");
    requireType("the zero point", op.operands[2], kernel.valueTypes[quantized]);
    requireType("the scale", op.operands[1], ElementType::F32);
    if (rule == rules::TypeRule::Dequantize)
      requireType("the result", real, ElementType::F32);
    else if (!isFloatElementType(kernel.valueTypes[real]))
      fail("the input " + describeValue(kernel, real) + " must be a float");
    return;
  }
  case rules::TypeRule::Move:
    for (size_t value : op.operands)
      if (kernel.valueTypes[value] != kernel.valueTypes[result])
        fail("must keep the element type, but turns " + describeValue(kernel, value) + " into " +
             describeValue(kernel, result));
    return;
  case rules::TypeRule::Float:
  case rules::TypeRule::Cast:
    return; // handled above
  }
}

} // namespace fusec::runtime
