//===- OpContext.cpp - What a CPU op implementation sees --------------------===//

#include "runtime/cpu/OpContext.h"

#include "runtime/Error.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"

namespace fusec::runtime::cpu {

OpContext::OpContext(const KernelDesc &kernel, const OpDesc &op, std::vector<ConstView> operands,
                     std::vector<MutableView> results)
    : kernel_(kernel), op_(op), operands_(std::move(operands)), results_(std::move(results)) {}

void OpContext::fail(const std::string &reason) const {
  throw Error("kernel '" + kernel_.name + "' op " + op_.op + " '" + op_.name + "': " + reason);
}

const nlohmann::json &OpContext::attr(const char *name) const {
  auto it = op_.attrs.find(name);
  if (it == op_.attrs.end())
    fail(std::string("missing attribute '") + name + "'");
  return *it;
}

int64_t OpContext::intAttr(const char *name) const {
  const nlohmann::json &value = attr(name);
  if (!value.is_number_integer())
    fail(std::string("attribute '") + name + "' must be an integer, not " + value.dump());
  return value.get<int64_t>();
}

bool OpContext::flagAttr(const char *name) const {
  const int64_t value = intAttr(name);
  check(rules::checkFlag(name, value));
  return value != 0;
}

std::vector<int64_t> OpContext::intsAttr(const char *name) const {
  const nlohmann::json &value = attr(name);
  std::vector<int64_t> result;
  if (value.is_array())
    for (const nlohmann::json &entry : value) {
      if (!entry.is_number_integer())
        break;
      result.push_back(entry.get<int64_t>());
    }
  if (!value.is_array() || result.size() != value.size())
    fail(std::string("attribute '") + name + "' must be an array of integers, not " + value.dump());
  return result;
}

std::vector<int64_t> OpContext::intsAttr(const char *name, size_t count) const {
  std::vector<int64_t> result = intsAttr(name);
  if (result.size() != count)
    fail(std::string("attribute '") + name + "' must have " + std::to_string(count) + " entries, not " +
         std::to_string(result.size()));
  return result;
}

std::vector<double> OpContext::floatsAttr(const char *name, size_t count) const {
  const nlohmann::json &value = attr(name);
  std::vector<double> result;
  if (value.is_array())
    for (const nlohmann::json &entry : value) {
      if (!entry.is_number())
        break;
      result.push_back(entry.get<double>());
    }
  if (!value.is_array() || result.size() != value.size() || result.size() != count)
    fail(std::string("attribute '") + name + "' must be an array of " + std::to_string(count) + " numbers, not " +
         value.dump());
  return result;
}

float OpContext::floatAttr(const char *name) const {
  const nlohmann::json &value = attr(name);
  if (!value.is_number())
    fail(std::string("attribute '") + name + "' must be a number, not " + value.dump());
  return narrowToFloat(value.get<double>());
}

float OpContext::epsilonAttr() const {
  const float epsilon = floatAttr("epsilon");
  check(rules::checkEpsilon(epsilon));
  return epsilon;
}

bool OpContext::hasAttr(const char *name) const { return op_.attrs.count(name) != 0; }

std::optional<float> OpContext::optionalFloatAttr(const char *name) const {
  // JSON has no infinities (nlohmann writes them as null), so null is
  // "unbounded" too.
  auto it = op_.attrs.find(name);
  if (it == op_.attrs.end() || it->is_null())
    return std::nullopt;
  return floatAttr(name);
}

std::string OpContext::stringAttr(const char *name) const {
  const nlohmann::json &value = attr(name);
  if (!value.is_string())
    fail(std::string("attribute '") + name + "' must be a string, not " + value.dump());
  return value.get<std::string>();
}

void OpContext::expectRank(size_t index, size_t rank) const {
  const Shape &shape = operands_[index].shape;
  if (shape.size() != rank)
    fail("operand " + std::to_string(index) + " must have rank " + std::to_string(rank) + ", but its shape is " +
         formatShape(shape));
}

void OpContext::expectResultShape(const Shape &computed) const {
  if (result().shape != computed)
    fail("the plan records result shape " + formatShape(result().shape) + ", but the operands give " +
         formatShape(computed));
}

} // namespace fusec::runtime::cpu
