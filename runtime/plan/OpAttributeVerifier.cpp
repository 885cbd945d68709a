//===- OpAttributeVerifier.cpp - Op attributes of a plan, checked at load ---===//

#include "runtime/plan/OpAttributeVerifier.h"

#include "runtime/Error.h"
#include "runtime/plan/PlanFormat.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"
#include "support/Reductions.h"

#include <algorithm>
#include <cmath>

namespace fusec::runtime {

namespace {

class OpChecker {
public:
  OpChecker(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName)
      : kernel_(kernel), op_(op), sourceName_(sourceName) {}

  void verify() const {
    const std::string &name = op_.op;
    if (name == "Conv")
      verifyConv();
    else if (name == "MaxPool" || name == "AveragePool")
      verifyPool(name == "MaxPool");
    else if (name == "Pad")
      verifyPad();
    else if (name == "BatchNormalization" || name == "LayerNormalization")
      check(rules::checkEpsilon(narrowToFloat(number("epsilon"))));
    else if (name == "Gemm")
      flag("transA"), flag("transB");
    else if (reductions::kindOf(name))
      flag("keepdims");
    else if (name == "Trilu") {
      flag("upper"), integer("k");
      if (operandShape(0).size() < 2)
        fail("needs a tensor of rank 2 or more");
    } else if (name == "ArgMax" || name == "ArgMin")
      verifyArgReduce();
    else if (name == "Mod")
      flag("fmod");
    else if (name == "LeakyRelu")
      finite("alpha");
    else if (name == "HardSigmoid")
      finite("alpha"), finite("beta");
    else if (name == "Slice")
      verifySlice();
    else if (name == "Gather")
      verifyGather();
    else if (name == "GatherElements")
      verifyGatherElements();
    else if (name == "Expand")
      verifyExpand();
    else if (name == "Resize")
      verifyResize();
    else if (name == "Attention")
      check(rules::checkAttention(operandShape(0), operandShape(1), operandShape(2), flag("causal"), number("scale")));
  }

private:
  [[noreturn]] void fail(const std::string &reason) const {
    throw Error(sourceName_ + ": kernel '" + kernel_.name + "' op " + op_.op + " '" + op_.name + "': " + reason);
  }
  void check(const std::string &error) const {
    if (!error.empty())
      fail(error);
  }

  const nlohmann::json &attr(const char *name) const {
    auto it = op_.attrs.find(name);
    if (it == op_.attrs.end())
      fail(std::string("missing attribute '") + name + "'");
    return *it;
  }
  bool has(const char *name) const { return op_.attrs.count(name) != 0; }
  int64_t integer(const char *name) const {
    const nlohmann::json &value = attr(name);
    if (!value.is_number_integer())
      fail(std::string("attribute '") + name + "' must be an integer, not " + value.dump());
    return value.get<int64_t>();
  }
  bool flag(const char *name) const {
    const int64_t value = integer(name);
    check(rules::checkFlag(name, value));
    return value != 0;
  }
  double number(const char *name) const {
    const nlohmann::json &value = attr(name);
    if (!value.is_number())
      fail(std::string("attribute '") + name + "' must be a number, not " + value.dump());
    return value.get<double>();
  }
  double finite(const char *name) const {
    const double value = number(name);
    if (!std::isfinite(value))
      fail(std::string("attribute '") + name + "' must be finite, not " + std::to_string(value));
    return value;
  }
  std::vector<int64_t> integers(const char *name, size_t count) const {
    const nlohmann::json &value = attr(name);
    std::vector<int64_t> result;
    if (value.is_array() && value.size() == count)
      for (const nlohmann::json &entry : value)
        if (entry.is_number_integer())
          result.push_back(entry.get<int64_t>());
    if (result.size() != count)
      fail(std::string("attribute '") + name + "' must be an array of " + std::to_string(count) + " integers, not " +
           value.dump());
    return result;
  }

  const Shape &operandShape(size_t index) const {
    if (index >= op_.operands.size())
      fail("needs operand " + std::to_string(index) + ", but has " + std::to_string(op_.operands.size()));
    return kernel_.values[op_.operands[index]];
  }
  const Shape &resultShape() const {
    if (op_.results.empty())
      fail("has no result");
    return kernel_.values[op_.results.front()];
  }
  void expectRank(const Shape &shape, size_t rank, const std::string &what) const {
    if (shape.size() != rank)
      fail(what + " must have rank " + std::to_string(rank) + ", but its shape is " + formatShape(shape));
  }
  void expectResultDim(size_t dim, int64_t computed) const {
    const Shape &result = resultShape();
    if (dim >= result.size() || result[dim] != computed)
      fail("the plan records result shape " + formatShape(result) + ", but the attributes give " +
           std::to_string(computed) + " for dimension " + std::to_string(dim));
  }

  /// `channels_last` (absent: false): the image operands are NHWC, a
  /// conv's weight OHWI.
  bool channelsLast() const { return has("channels_last") && flag("channels_last"); }

  /// The two spatial output sizes of a window over an NCHW (or, with
  /// `channels_last`, NHWC) `input`.
  void verifyWindow(const Shape &input, const int64_t kernel[2], const std::vector<int64_t> &strides,
                    const std::vector<int64_t> &pads, const std::vector<int64_t> &dilations, bool ceilMode) const {
    expectRank(input, 4, "operand 0");
    expectRank(resultShape(), 4, "the result");
    const size_t firstSpatial = channelsLast() ? 1 : 2;
    for (int dim = 0; dim < 2; ++dim) {
      if (input[firstSpatial + dim] == plan::kBatchDim)
        fail("spatial dimension " + std::to_string(dim) + " must be static, not the batch");
      const rules::WindowAxis axis{
          input[firstSpatial + dim], kernel[dim], strides[dim], dilations[dim], pads[dim], pads[dim + 2]};
      int64_t outputs = 0;
      const std::string error = rules::windowOutputSize(axis, ceilMode, outputs);
      if (!error.empty())
        fail("spatial dimension " + std::to_string(dim) + ": " + error);
      expectResultDim(firstSpatial + dim, outputs);
    }
  }

  void verifyConv() const {
    const Shape &weight = operandShape(1);
    expectRank(weight, 4, "operand 1 (the weight)");
    if (integer("group") < 1)
      fail("'group' must be >= 1, got " + std::to_string(integer("group")));
    const size_t firstSpatial = channelsLast() ? 1 : 2;
    const int64_t kernel[2] = {weight[firstSpatial], weight[firstSpatial + 1]};
    verifyWindow(operandShape(0), kernel, integers("strides", 2), integers("pads", 4), integers("dilations", 2),
                 /*ceilMode=*/false);
  }

  void verifyPool(bool isMax) const {
    const std::vector<int64_t> kernelShape = integers("kernel_shape", 2);
    const int64_t kernel[2] = {kernelShape[0], kernelShape[1]};
    const bool ceilMode = flag("ceil_mode");
    if (!isMax)
      flag("count_include_pad");
    const std::vector<int64_t> dilations = isMax ? integers("dilations", 2) : std::vector<int64_t>{1, 1};
    verifyWindow(operandShape(0), kernel, integers("strides", 2), integers("pads", 4), dilations, ceilMode);
  }

  void verifyPad() const {
    const Shape &input = operandShape(0);
    const size_t rank = input.size();
    const std::vector<int64_t> pads = integers("pads", 2 * rank);
    const nlohmann::json &mode = attr("mode");
    if (!mode.is_string())
      fail("attribute 'mode' must be a string, not " + mode.dump());
    check(rules::checkPadMode(mode.get<std::string>()));
    expectRank(resultShape(), rank, "the result");
    for (size_t d = 0; d < rank; ++d) {
      if (input[d] == plan::kBatchDim) {
        if (pads[d] != 0 || pads[d + rank] != 0)
          fail("cannot pad the batch dimension (axis " + std::to_string(d) + ")");
        expectResultDim(d, plan::kBatchDim);
        continue;
      }
      int64_t outputs = 0;
      const std::string error =
          rules::padOutputSize(input[d], pads[d], pads[d + rank], mode.get<std::string>(), outputs);
      if (!error.empty())
        fail("axis " + std::to_string(d) + ": " + error);
      expectResultDim(d, outputs);
    }
  }

  void expectResultShape(const Shape &computed) const {
    if (resultShape() != computed)
      fail("the plan records result shape " + formatShape(resultShape()) + ", but the operands and attributes give " +
           formatShape(computed));
  }

  /// Every index a slice reads lies inside its input, at every batch size.
  void verifySlice() const {
    const Shape &input = operandShape(0);
    const size_t rank = input.size();
    const std::vector<int64_t> starts = integers("starts", rank), ends = integers("ends", rank),
                               steps = integers("steps", rank);
    Shape shape(rank);
    for (size_t d = 0; d < rank; ++d) {
      const rules::SliceAxis axis{starts[d], ends[d], steps[d]};
      if (input[d] == plan::kBatchDim) {
        if (!rules::isWholeSlice(axis))
          fail("axis " + std::to_string(d) + " is the batch dimension, which can only be sliced whole");
        shape[d] = plan::kBatchDim;
        continue;
      }
      const std::string error = rules::sliceOutputSize(input[d], axis, shape[d]);
      if (!error.empty())
        fail("axis " + std::to_string(d) + ": " + error);
    }
    expectResultShape(shape);
  }

  void verifyGather() const {
    const Shape &input = operandShape(0);
    const Shape &indices = operandShape(1);
    const int64_t axis = integer("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()))
      fail("'axis' " + std::to_string(axis) + " is out of range for rank " + std::to_string(input.size()));
    if (input[axis] == plan::kBatchDim)
      fail("the gathered axis must be static, not the batch");
    Shape shape(input.begin(), input.begin() + axis);
    shape.insert(shape.end(), indices.begin(), indices.end());
    shape.insert(shape.end(), input.begin() + axis + 1, input.end());
    expectResultShape(shape);
  }

  /// ArgMax, ArgMin: a static axis, the input's shape without it (or with 1
  /// there, keepdims).
  void verifyArgReduce() const {
    const Shape &input = operandShape(0);
    const int64_t axis = integer("axis");
    const bool keepdims = flag("keepdims");
    flag("select_last_index");
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()))
      fail("'axis' " + std::to_string(axis) + " is out of range for rank " + std::to_string(input.size()));
    if (input[axis] == plan::kBatchDim)
      fail("the reduced axis must be static, not the batch");
    Shape shape;
    for (size_t d = 0; d < input.size(); ++d)
      if (int64_t(d) != axis || keepdims)
        shape.push_back(int64_t(d) == axis ? 1 : input[d]);
    expectResultShape(shape);
  }

  /// The result has the indices' shape; the indices are no longer than the
  /// input along any axis but the gathered one, which is static.
  void verifyGatherElements() const {
    const Shape &input = operandShape(0);
    const Shape &indices = operandShape(1);
    const int64_t axis = integer("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()))
      fail("'axis' " + std::to_string(axis) + " is out of range for rank " + std::to_string(input.size()));
    if (input[axis] == plan::kBatchDim || indices[axis] == plan::kBatchDim)
      fail("the gathered axis must be static, not the batch");
    if (indices.size() != input.size())
      fail("the indices must have the input's rank " + std::to_string(input.size()));
    for (size_t d = 0; d < input.size(); ++d)
      if (int64_t(d) != axis && ((input[d] == plan::kBatchDim) != (indices[d] == plan::kBatchDim) ||
                                 (input[d] != plan::kBatchDim && indices[d] > input[d])))
        fail("the indices are longer than the input along axis " + std::to_string(d));
    expectResultShape(indices);
  }

  /// numpy broadcasting of the input to 'shape', where the batch dimension
  /// is kept by a 1 and made by -1 (kBatchDim).
  void verifyExpand() const {
    const Shape &input = operandShape(0);
    const nlohmann::json &value = attr("shape");
    if (!value.is_array())
      fail("attribute 'shape' must be an array of integers, not " + value.dump());
    const std::vector<int64_t> target = integers("shape", value.size());
    const size_t rank = std::max(input.size(), target.size());
    Shape shape(rank);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t from = i + input.size() >= rank ? input[i + input.size() - rank] : 1;
      const int64_t to = i + target.size() >= rank ? target[i + target.size() - rank] : 1;
      if (to < -1)
        fail("'shape' entries must be >= 0, or -1 for the batch size, got " + std::to_string(to));
      if (from != to && from != 1 && to != 1)
        fail("cannot expand " + formatShape(input) + " to " + formatShape(Shape(target.begin(), target.end())));
      shape[i] = to == 1 ? from : to;
    }
    expectResultShape(shape);
  }

  std::string text(const char *name) const {
    const nlohmann::json &value = attr(name);
    if (!value.is_string())
      fail(std::string("attribute '") + name + "' must be a string, not " + value.dump());
    return value.get<std::string>();
  }

  /// Output extents and scales per axis; the kernels clamp every index they
  /// read into the input.
  void verifyResize() const {
    const Shape &input = operandShape(0);
    const size_t rank = input.size();
    const std::vector<int64_t> sizes = integers("sizes", rank);
    const nlohmann::json &scales = attr("scales");
    if (!scales.is_array() || scales.size() != rank)
      fail("attribute 'scales' must be an array of " + std::to_string(rank) + " numbers, not " + scales.dump());
    check(rules::checkResizeModes(text("mode"), text("coordinate_transformation_mode"), text("nearest_mode")));
    if (has("cubic_coeff_a") &&
        !(attr("cubic_coeff_a").is_number() && std::isfinite(attr("cubic_coeff_a").get<double>())))
      fail("attribute 'cubic_coeff_a' must be a finite number, not " + attr("cubic_coeff_a").dump());
    if (has("exclude_outside"))
      flag("exclude_outside");
    Shape shape(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (!scales[d].is_number())
        fail("attribute 'scales' must hold numbers, not " + scales.dump());
      const double scale = scales[d].get<double>();
      if (sizes[d] == -1) {
        if (scale != 1.0)
          fail("axis " + std::to_string(d) + " keeps its extent (size -1) but has scale " + std::to_string(scale));
        shape[d] = input[d];
        continue;
      }
      if (input[d] == plan::kBatchDim)
        fail("axis " + std::to_string(d) + " is the batch dimension, which Resize keeps (size -1)");
      const std::string error = rules::checkResizeAxis(input[d], sizes[d], scale);
      if (!error.empty())
        fail("axis " + std::to_string(d) + ": " + error);
      shape[d] = sizes[d];
    }
    expectResultShape(shape);
  }

  const KernelDesc &kernel_;
  const OpDesc &op_;
  const std::string &sourceName_;
};

} // namespace

void verifyOpAttributes(const KernelDesc &kernel, const OpDesc &op, const std::string &sourceName) {
  OpChecker(kernel, op, sourceName).verify();
}

} // namespace fusec::runtime
