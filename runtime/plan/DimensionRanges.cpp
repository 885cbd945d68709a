//===- DimensionRanges.cpp - Named dimensions a plan runs over a range -----===//

#include "runtime/plan/DimensionRanges.h"

#include "runtime/Error.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanFormat.h"
#include "support/OpRules.h"

#include <algorithm>
#include <set>

namespace fusec::runtime {

std::string formatRanges(const std::vector<DimensionRange> &ranges) {
  std::string text;
  for (const DimensionRange &range : ranges)
    text += (text.empty() ? "" : ", ") + range.name + "=" + std::to_string(range.min) + ":" +
            std::to_string(range.opt) + ":" + std::to_string(range.max);
  return text;
}

std::string formatShape(const Shape &shape, const std::vector<DimensionRange> &ranges) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    std::optional<size_t> range = plan::rangeIndexOf(shape[i]);
    if (shape[i] == plan::kBatchDim)
      text += "batch";
    else if (range && *range < ranges.size())
      text += ranges[*range].name;
    else
      text += std::to_string(shape[i]);
  }
  return text + "]";
}

void verifyRanges(const std::vector<DimensionRange> &ranges, const std::map<std::string, int64_t> &dims,
                  const std::string &sourceName) {
  std::set<std::string> names;
  for (const DimensionRange &range : ranges) {
    const std::string what = sourceName + ": the range of dimension '" + range.name + "'";
    if (range.name.empty())
      throw Error(sourceName + ": a dimension range has an empty name");
    if (!names.insert(range.name).second)
      throw Error(what + " is listed twice");
    if (dims.count(range.name))
      throw Error(what + " is also a fixed size (" + formatDims(dims) + ")");
    if (range.min < 1 || range.min > range.opt || range.opt > range.max)
      throw Error(what + " must satisfy 1 <= min <= opt <= max, got " + formatRanges({range}));
  }
}

namespace {

Shape specializeShape(const Shape &shape, const std::vector<int64_t> &sizes) {
  Shape result = shape;
  for (int64_t &dim : result)
    if (std::optional<size_t> range = plan::rangeIndexOf(dim))
      // A code past the last range stays: the verifier names it.
      dim = *range < sizes.size() ? sizes[*range] : dim;
  return result;
}

/// `launch` at the range sizes `sizes` (by index): each grid dimension's
/// work multiplied by its ranges' sizes, and the range arguments set.
void specializeLaunch(LaunchDesc &launch, const std::vector<int64_t> &sizes, const std::string &kernel) {
  auto sizeOf = [&](int64_t code) {
    std::optional<size_t> range = plan::rangeIndexOf(code);
    if (!range || *range >= sizes.size())
      throw Error("kernel '" + kernel + "': its launch names range code " + std::to_string(code) +
                  ", which is no range of the plan");
    return sizes[*range];
  };
  for (size_t axis = 0; axis < launch.grid.size(); ++axis) {
    for (int64_t code : launch.gridRanges[axis]) {
      const int64_t size = sizeOf(code);
      BatchLinear &work = launch.grid[axis].work;
      if (__builtin_mul_overflow(work.perBatch, size, &work.perBatch) ||
          __builtin_mul_overflow(work.fixed, size, &work.fixed))
        throw Error("kernel '" + kernel + "': its grid overflows at " + std::to_string(size));
    }
    launch.gridRanges[axis].clear();
  }
  for (const auto &[position, code] : launch.rangeArguments) {
    if (position >= launch.arguments.size())
      throw Error("kernel '" + kernel + "': range argument " + std::to_string(position) + " is past its " +
                  std::to_string(launch.arguments.size()) + " arguments");
    launch.arguments[position] = static_cast<uint32_t>(sizeOf(code));
  }
  launch.rangeArguments.clear();
}

} // namespace

PlanManifest specializeManifest(const PlanManifest &manifest, const std::map<std::string, int64_t> &sizes) {
  std::vector<int64_t> byIndex;
  for (const DimensionRange &range : manifest.ranges) {
    auto it = sizes.find(range.name);
    if (it == sizes.end())
      throw Error("no size is given for dimension '" + range.name + "' (the plan runs it at " + formatRanges({range}) +
                  ", min:opt:max)");
    if (!range.contains(it->second))
      throw Error("dimension '" + range.name + "' = " + std::to_string(it->second) + " is outside the plan's range " +
                  std::to_string(range.min) + ":" + std::to_string(range.max));
    byIndex.push_back(it->second);
  }
  for (const auto &entry : sizes) {
    // (Not a structured binding: lambdas capture those from C++20 on.)
    const std::string &name = entry.first;
    if (std::none_of(manifest.ranges.begin(), manifest.ranges.end(),
                     [&](const DimensionRange &range) { return range.name == name; }))
      throw Error("a size is given for dimension '" + name + "', which the plan has no range for" +
                  (manifest.ranges.empty() ? std::string() : " (its ranges: " + formatRanges(manifest.ranges) + ")"));
  }

  PlanManifest result = manifest;
  result.ranges.clear();
  for (const auto &[name, size] : sizes)
    result.dims[name] = size;
  for (TensorDesc &tensor : result.inputs)
    tensor.shape = specializeShape(tensor.shape, byIndex);
  for (TensorDesc &tensor : result.outputs)
    tensor.shape = specializeShape(tensor.shape, byIndex);
  for (BufferDesc &buffer : result.buffers)
    buffer.shape = specializeShape(buffer.shape, byIndex);
  for (KernelDesc &kernel : result.kernels) {
    // Expand's target and Slice's ends may name a range's dimension (its
    // code). A whole slice of a range's dimension ends at the size, as the
    // reader requires of a static axis.
    for (OpDesc &op : kernel.ops) {
      const char *name = op.op == "Expand" ? "shape" : op.op == "Slice" ? "ends" : nullptr;
      if (!name || !op.attrs.contains(name) || !op.attrs[name].is_array())
        continue;
      nlohmann::json &values = op.attrs[name];
      const Shape *input = op.op == "Slice" && !op.operands.empty() && op.operands[0] < kernel.values.size()
                               ? &kernel.values[op.operands[0]]
                               : nullptr;
      for (size_t d = 0; d < values.size(); ++d) {
        if (!values[d].is_number_integer())
          continue;
        if (input && d < input->size() && plan::rangeIndexOf((*input)[d]) && values[d] == rules::kSliceToEnd)
          values[d] = specializeShape({(*input)[d]}, byIndex)[0];
        else
          values[d] = specializeShape({values[d].get<int64_t>()}, byIndex)[0];
      }
    }
    for (Shape &value : kernel.values)
      value = specializeShape(value, byIndex);
    if (kernel.launch)
      specializeLaunch(*kernel.launch, byIndex, kernel.name);
    for (KernelVariant &variant : kernel.variants)
      if (!variant.library)
        specializeLaunch(variant.launch, byIndex, kernel.name);
  }
  return result;
}

std::map<std::string, int64_t> rangeMinimums(const std::vector<DimensionRange> &ranges) {
  std::map<std::string, int64_t> sizes;
  for (const DimensionRange &range : ranges)
    sizes[range.name] = range.min;
  return sizes;
}

std::map<std::string, int64_t> rangeMaximums(const std::vector<DimensionRange> &ranges) {
  std::map<std::string, int64_t> sizes;
  for (const DimensionRange &range : ranges)
    sizes[range.name] = range.max;
  return sizes;
}

} // namespace fusec::runtime
