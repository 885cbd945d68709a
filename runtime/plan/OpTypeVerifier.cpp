//===- OpTypeVerifier.cpp - Element types of a plan's ops, checked at load -===//

#include "runtime/plan/OpTypeVerifier.h"

#include "runtime/Error.h"

namespace fusec::runtime {

namespace {

std::string describeValue(const KernelDesc &kernel, size_t value) {
  return "value " + std::to_string(value) + " (" + elementTypeName(kernel.valueTypes[value]) + ")";
}

bool isComparison(const std::string &op) {
  return op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual";
}

bool isLogical(const std::string &op) { return op == "Not" || op == "And" || op == "Or" || op == "Xor"; }

} // namespace

void verifyOpElementTypes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName) {
  const std::string where = sourceName + ": kernel '" + kernel.name + "' op " + op.op + " '" + op.name + "': ";
  auto fail = [&](const std::string &reason) { throw Error(where + reason); };

  if (op.op == kCastOp) {
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
  if (op.op == kIdentityOp) {
    if (op.operands.size() == 1 && op.results.size() == 1 &&
        kernel.valueTypes[op.operands[0]] != kernel.valueTypes[op.results[0]])
      fail("must keep the element type, but turns " + describeValue(kernel, op.operands[0]) + " into " +
           describeValue(kernel, op.results[0]));
    return;
  }
  auto requireType = [&](const char *what, size_t value, ElementType type) {
    if (kernel.valueTypes[value] != type)
      fail(std::string(what) + " " + describeValue(kernel, value) + " must be " + elementTypeName(type));
  };
  if (isComparison(op.op) || isLogical(op.op) || op.op == "Where") {
    // The arity is the CPU backend's and emulation's to check; the types of
    // what is there are checked here.
    const bool where = op.op == "Where";
    if (op.results.size() != 1 || op.operands.empty())
      fail("needs operands and one result");
    const size_t firstValue = where ? 1 : 0;
    if (where)
      requireType("the condition", op.operands[0], ElementType::I1);
    if (firstValue < op.operands.size()) {
      const ElementType shared = isLogical(op.op) ? ElementType::I1 : kernel.valueTypes[op.operands[firstValue]];
      for (size_t i = firstValue; i < op.operands.size(); ++i)
        requireType("operand", op.operands[i], shared);
      requireType("the result", op.results[0], where ? shared : ElementType::I1);
    }
    return;
  }
  for (size_t value : op.operands)
    if (!isFloatElementType(kernel.valueTypes[value]))
      fail("operand " + describeValue(kernel, value) +
           " is not a float; only Cast, Identity, comparisons, logic and Where take integers");
  for (size_t value : op.results)
    if (!isFloatElementType(kernel.valueTypes[value]))
      fail("result " + describeValue(kernel, value) +
           " is not a float; only Cast, Identity, comparisons, logic and Where give integers");
}

} // namespace fusec::runtime
