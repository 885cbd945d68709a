//===- OpContext.h - What a CPU op implementation sees ----------------------===//
//
// An op implementation gets its operands and results as views with resolved
// (batch-substituted) shapes, reads its attributes through typed getters, and
// checks that the result shapes the plan recorded are the ones the op
// computes. Every failure is reported as
//   kernel 'k3_conv' op Conv 'conv1': <reason>
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_OPCONTEXT_H
#define FUSEC_RUNTIME_CPU_OPCONTEXT_H

#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <optional>
#include <string>
#include <vector>

namespace fusec::runtime::cpu {

/// A value as an op implementation sees it. `type` is the value's element
/// type in the plan: float values (f16/bf16 held as float32, the interpreter
/// rounds results afterwards) are in `data`, integer and bool values (as
/// int64, bool as 0/1) in `integers`. Only ops registered as typed
/// (OpInfo::typed) see integer values; executeOp refuses them to the others.
struct ConstView {
  const float *data = nullptr;
  Shape shape;
  ElementType type = ElementType::F32;
  const int64_t *integers = nullptr;
};

struct MutableView {
  float *data = nullptr;
  Shape shape;
  ElementType type = ElementType::F32;
  int64_t *integers = nullptr;
};

class OpContext {
public:
  OpContext(const KernelDesc &kernel, const OpDesc &op, std::vector<ConstView> operands,
            std::vector<MutableView> results);

  size_t numOperands() const { return operands_.size(); }
  const ConstView &operand(size_t index) const { return operands_[index]; }
  const MutableView &result() const { return results_.front(); }

  int64_t intAttr(const char *name) const;
  /// An integer attribute that means a boolean; fails unless it is 0 or 1.
  bool flagAttr(const char *name) const;
  std::vector<int64_t> intsAttr(const char *name) const;
  /// intsAttr() that also requires exactly `count` entries.
  std::vector<int64_t> intsAttr(const char *name, size_t count) const;
  float floatAttr(const char *name) const;
  /// An array of `count` numbers.
  std::vector<double> floatsAttr(const char *name, size_t count) const;
  /// A normalisation epsilon: finite and non-negative.
  float epsilonAttr() const;
  /// For attributes whose absence (or null) has a meaning (Clip's bounds).
  std::optional<float> optionalFloatAttr(const char *name) const;
  std::string stringAttr(const char *name) const;
  /// Whether the op carries `name` (ops whose attributes have defaults).
  bool hasAttr(const char *name) const;

  /// The same op on other operand and result views (an op run on a
  /// re-laid-out copy of its operands).
  OpContext withViews(std::vector<ConstView> operands, std::vector<MutableView> results) const {
    return OpContext(kernel_, op_, std::move(operands), std::move(results));
  }

  /// Requires operand `index` to have rank `rank`.
  void expectRank(size_t index, size_t rank) const;
  /// Fails unless the plan's result shape is `computed`.
  void expectResultShape(const Shape &computed) const;

  [[noreturn]] void fail(const std::string &reason) const;
  /// Fails with `error` unless it is empty (a rule of support/OpRules.h).
  void check(const std::string &error) const {
    if (!error.empty())
      fail(error);
  }

private:
  const nlohmann::json &attr(const char *name) const;

  const KernelDesc &kernel_;
  const OpDesc &op_;
  std::vector<ConstView> operands_;
  std::vector<MutableView> results_;
};

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_OPCONTEXT_H
