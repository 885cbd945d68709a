//===- OpRegistry.h - CPU implementations of plan ops, by op name -----------===//
//
// Each op family (Conv.cpp, Pooling.cpp, ...) registers its ops here. The
// CPU backend, and tests that exercise a single op, look ops up by their
// ONNX name and call them through executeOp().
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_OPREGISTRY_H
#define FUSEC_RUNTIME_CPU_OPREGISTRY_H

#include "runtime/cpu/OpContext.h"

#include <map>
#include <string>

namespace fusec::runtime::cpu {

/// Computes the op's single result from its operands.
using OpFunction = void (*)(const OpContext &context);

struct OpInfo {
  OpFunction function = nullptr;
  size_t minOperands = 0;
  /// SIZE_MAX for variadic ops (Concat).
  size_t maxOperands = 0;
  /// Whether the op takes and gives integer and bool values too (reading
  /// each view's `type`); the others compute in float32 only.
  bool typed = false;
};

class OpRegistry {
public:
  /// The registry holding every op the CPU backend implements.
  static const OpRegistry &builtin();

  void add(const std::string &name, OpInfo info);
  /// nullptr if no op has this name.
  const OpInfo *lookup(const std::string &name) const;

private:
  std::map<std::string, OpInfo> ops_;
};

/// Runs `op` of `kernel`: looks it up, checks the operand and result counts,
/// and calls it. Throws Error naming the kernel and the op on any failure.
void executeOp(const KernelDesc &kernel, const OpDesc &op, std::vector<ConstView> operands,
               std::vector<MutableView> results);

// One registration function per op family.
void registerConvOps(OpRegistry &registry);
void registerPoolingOps(OpRegistry &registry);
void registerElementwiseOps(OpRegistry &registry);
void registerMatMulOps(OpRegistry &registry);
void registerNormalizationOps(OpRegistry &registry);
void registerReductionOps(OpRegistry &registry);
void registerDataMovementOps(OpRegistry &registry);
void registerLogicalOps(OpRegistry &registry);
void registerAttentionOps(OpRegistry &registry);
void registerResizeOps(OpRegistry &registry);
void registerQuantizationOps(OpRegistry &registry);

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_OPREGISTRY_H
