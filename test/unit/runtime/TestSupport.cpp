//===- TestSupport.cpp - Helpers shared by the runtime unit tests -----------===//

#include "TestSupport.h"

#include "runtime/cpu/OpRegistry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>

namespace fusec::test {

using nlohmann::json;
using runtime::Shape;
using runtime::Tensor;

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "fusec-test-XXXXXX").string();
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(path_))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Tensor iota(const Shape &shape, float start) {
  std::vector<float> values(static_cast<size_t>(runtime::numElements(shape)));
  std::iota(values.begin(), values.end(), start);
  return Tensor(shape, values);
}

void requireTensor(const Tensor &actual, const Shape &expectedShape,
                   const std::vector<float> &expected, float tolerance) {
  REQUIRE(actual.shape() == expectedShape);
  REQUIRE(actual.values().size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(expected[i]))
      CHECK(std::isnan(actual.values()[i]));
    else
      CHECK(actual.values()[i] == Approx(expected[i]).margin(tolerance));
  }
}

Tensor runOp(const std::string &op, const json &attrs,
             const std::vector<Tensor> &operands, const Shape &resultShape) {
  runtime::KernelDesc kernel;
  kernel.name = "test_kernel";
  runtime::OpDesc desc;
  desc.op = op;
  desc.name = "test_op";
  desc.attrs = attrs;
  std::vector<runtime::cpu::ConstView> views;
  for (const Tensor &operand : operands)
    views.push_back({operand.data(), operand.shape()});
  Tensor result(resultShape);
  runtime::cpu::executeOp(kernel, desc, views, {{result.data(), resultShape}});
  return result;
}

// The small plan, three kernels over two arena buffers whose offsets only
// stay apart if the per-batch part of the offsets is honoured:
//   k0_gemm:    t0 = x * W^T + b          (t0 at 64 * batch)
//   k1_relu:    t1 = Relu(t0)             (t1 at 0)
//   k2_add_add: y = (t1 + c) + t0         (two ops, one kernel)
// Buffers: 0 x, 1 W, 2 b, 3 t0, 4 c, 5 y, 6 t1.
const std::vector<float> kWeightW = {1, 2, 3, 4, -1, 0.5f};
const std::vector<float> kWeightB = {0.5f, -1, 2};
const std::vector<float> kWeightC = {1, -10, 0.25f};
// t0 rows: [4.5, 9, 0.5], [-2.5, -8, 2.5], [6.5, 11, 3.5].
const std::vector<std::vector<float>> kSmallPlanInputRows = {
    {2, 1}, {-1, -1}, {0, 3}};
const std::vector<std::vector<float>> kSmallPlanOutputRows = {
    {10, 8, 1.25f}, {-1.5f, -18, 5.25f}, {14, 12, 7.25f}};

json smallPlanManifest() {
  return json::parse(R"({
    "format_version": "1.0",
    "compiler_version": "fusec test",
    "target": "cpu",
    "source_hash": "0123456789abcdef",
    "batch_buckets": [1, 2, 4],
    "inputs":  [{"name": "x", "dtype": "f32", "shape": [-1, 2], "buffer": 0}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [-1, 3], "buffer": 5}],
    "buffers": [
      {"id": 0, "name": "x", "kind": "input", "shape": [-1, 2]},
      {"id": 1, "name": "W", "kind": "weight", "shape": [3, 2], "offset": 0},
      {"id": 2, "name": "b", "kind": "weight", "shape": [3], "offset": 24},
      {"id": 3, "name": "t0", "kind": "arena", "shape": [-1, 3],
       "offset": {"per_batch": 64, "fixed": 0}},
      {"id": 4, "name": "c", "kind": "weight", "shape": [3], "offset": 48},
      {"id": 5, "name": "y", "kind": "output", "shape": [-1, 3]},
      {"id": 6, "name": "t1", "kind": "arena", "shape": [-1, 3],
       "offset": {"per_batch": 0, "fixed": 0}}
    ],
    "arena": {"per_batch": 128, "fixed": 0,
              "lower_bound": {"per_batch": 24, "fixed": 0}},
    "kernels": [
      {"name": "k0_gemm", "kind": "gemm", "inputs": [0, 1, 2], "outputs": [3],
       "values": [{"shape": [-1, 2]}, {"shape": [3, 2]}, {"shape": [3]},
                  {"shape": [-1, 3]}],
       "ops": [{"op": "Gemm", "name": "fc", "operands": [0, 1, 2],
                "results": [3],
                "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0,
                          "transB": 1}}],
       "yields": [3]},
      {"name": "k1_relu", "kind": "elementwise", "inputs": [3], "outputs": [6],
       "values": [{"shape": [-1, 3]}, {"shape": [-1, 3]}],
       "ops": [{"op": "Relu", "name": "relu", "operands": [0], "results": [1]}],
       "yields": [1]},
      {"name": "k2_add_add", "kind": "elementwise", "inputs": [6, 4, 3],
       "outputs": [5],
       "values": [{"shape": [-1, 3]}, {"shape": [3]}, {"shape": [-1, 3]},
                  {"shape": [-1, 3]}, {"shape": [-1, 3]}],
       "ops": [{"op": "Add", "name": "add_c", "operands": [0, 1],
                "results": [3], "attrs": {}},
               {"op": "Add", "name": "add_skip", "operands": [3, 2],
                "results": [4], "attrs": {}}],
       "yields": [4]}
    ]
  })");
}

std::vector<plan::Section> smallPlanSections() {
  std::vector<float> weights(15, 0.0f);
  std::copy(kWeightW.begin(), kWeightW.end(), weights.begin());
  std::copy(kWeightB.begin(), kWeightB.end(), weights.begin() + 6);
  std::copy(kWeightC.begin(), kWeightC.end(), weights.begin() + 12);
  plan::Section section{plan::kWeightsSection, {}};
  section.bytes.resize(weights.size() * sizeof(float));
  std::memcpy(section.bytes.data(), weights.data(), section.bytes.size());
  return {section};
}

std::vector<uint8_t> smallPlanBytes() {
  return plan::encodePlan(smallPlanManifest(), smallPlanSections());
}

} // namespace fusec::test
