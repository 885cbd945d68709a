//===- OpTypeVerifier.cpp - Element types of a plan's ops, checked at load -===//

#include "runtime/plan/OpTypeVerifier.h"

#include "runtime/Error.h"

namespace fusec::runtime {

namespace {

std::string describeValue(const KernelDesc &kernel, size_t value) {
  return "value " + std::to_string(value) + " (" + elementTypeName(kernel.valueTypes[value]) + ")";
}

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
  for (size_t value : op.operands)
    if (!isFloatElementType(kernel.valueTypes[value]))
      fail("operand " + describeValue(kernel, value) + " is not a float; only Cast and Identity take integers");
  for (size_t value : op.results)
    if (!isFloatElementType(kernel.valueTypes[value]))
      fail("result " + describeValue(kernel, value) + " is not a float; only Cast and Identity give integers");
}

} // namespace fusec::runtime
