//===- OpRegistry.cpp - CPU implementations of plan ops, by op name ---------===//

#include "runtime/cpu/OpRegistry.h"

#include "runtime/Error.h"

namespace fusec::runtime::cpu {

const OpRegistry &OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry result;
    registerConvOps(result);
    registerPoolingOps(result);
    registerElementwiseOps(result);
    registerMatMulOps(result);
    registerNormalizationOps(result);
    registerReductionOps(result);
    registerDataMovementOps(result);
    registerLogicalOps(result);
    registerAttentionOps(result);
    registerResizeOps(result);
    registerQuantizationOps(result);
    return result;
  }();
  return registry;
}

void OpRegistry::add(const std::string &name, OpInfo info) { ops_[name] = info; }

const OpInfo *OpRegistry::lookup(const std::string &name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

namespace {

void checkFloatValues(const std::string &where, const std::vector<ConstView> &operands,
                      const std::vector<MutableView> &results) {
  for (size_t i = 0; i < operands.size(); ++i)
    if (!isFloatElementType(operands[i].type))
      throw Error(where + "operand " + std::to_string(i) + " is " + elementTypeName(operands[i].type) +
                  "; the op takes only float values");
  if (!isFloatElementType(results[0].type))
    throw Error(where + "the result is " + std::string(elementTypeName(results[0].type)) +
                "; the op gives only float values");
}

} // namespace

void executeOp(const KernelDesc &kernel, const OpDesc &op, std::vector<ConstView> operands,
               std::vector<MutableView> results) {
  const std::string where = "kernel '" + kernel.name + "' op " + op.op + " '" + op.name + "': ";
  const OpInfo *info = OpRegistry::builtin().lookup(op.op);
  if (!info)
    throw Error(where + "the CPU backend has no implementation of '" + op.op + "'");
  if (operands.size() < info->minOperands || operands.size() > info->maxOperands) {
    std::string expected = std::to_string(info->minOperands);
    if (info->maxOperands == SIZE_MAX)
      expected += " or more";
    else if (info->maxOperands != info->minOperands)
      expected += " to " + std::to_string(info->maxOperands);
    throw Error(where + "expected " + expected + " operands, got " + std::to_string(operands.size()));
  }
  if (results.size() != 1)
    throw Error(where + "expected 1 result, got " + std::to_string(results.size()));
  if (!info->typed) {
    // These implementations compute in float32; integer values reach only
    // typed ops, Cast and Identity (the plan verifier enforces it).
    checkFloatValues(where, operands, results);
  }
  info->function(OpContext(kernel, op, std::move(operands), std::move(results)));
}
} // namespace fusec::runtime::cpu
