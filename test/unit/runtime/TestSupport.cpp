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
using runtime::ElementType;
using runtime::Shape;
using runtime::Tensor;

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fusec-test-XXXXXX").string();
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

void requireTensor(const Tensor &actual, const Shape &expectedShape, const std::vector<float> &expected,
                   float tolerance) {
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

namespace {

/// Runs `op` with `attrs` in a one-op kernel named as the error messages the
/// tests check expect ("kernel 'test_kernel' op X 'test_op': ...").
void executeTestOp(const std::string &op, const json &attrs, std::vector<runtime::cpu::ConstView> operands,
                   runtime::cpu::MutableView result) {
  runtime::KernelDesc kernel;
  kernel.name = "test_kernel";
  runtime::OpDesc desc;
  desc.op = op;
  desc.name = "test_op";
  desc.attrs = attrs;
  runtime::cpu::executeOp(kernel, desc, std::move(operands), {std::move(result)});
}

} // namespace

Tensor runOp(const std::string &op, const json &attrs, const std::vector<Tensor> &operands, const Shape &resultShape) {
  std::vector<runtime::cpu::ConstView> views;
  views.reserve(operands.size());
  for (const Tensor &operand : operands)
    views.push_back({operand.data(), operand.shape()});
  Tensor result(resultShape);
  executeTestOp(op, attrs, std::move(views), {result.data(), resultShape});
  return result;
}

Typed typedFloats(Shape shape, std::vector<float> values) {
  return {std::move(shape), ElementType::F32, std::move(values), {}};
}
Typed typedInts(Shape shape, std::vector<int64_t> values, ElementType type) {
  return {std::move(shape), type, {}, std::move(values)};
}
Typed typedBools(Shape shape, std::vector<int64_t> values) {
  return typedInts(std::move(shape), std::move(values), ElementType::I1);
}

Typed runTypedOp(const std::string &op, const json &attrs, const std::vector<Typed> &operands, const Shape &shape,
                 ElementType type) {
  std::vector<runtime::cpu::ConstView> views;
  views.reserve(operands.size());
  for (const Typed &operand : operands)
    views.push_back({operand.floats.data(), operand.shape, operand.type, operand.integers.data()});
  Typed result{shape, type, {}, {}};
  const auto count = static_cast<size_t>(runtime::numElements(shape));
  // Poisoned, so that elements an op forgets to write show.
  result.floats.assign(count, -7.0f);
  result.integers.assign(count, -7);
  executeTestOp(op, attrs, std::move(views), {result.floats.data(), shape, type, result.integers.data()});
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
const std::vector<std::vector<float>> kSmallPlanInputRows = {{2, 1}, {-1, -1}, {0, 3}};
const std::vector<std::vector<float>> kSmallPlanOutputRows = {{10, 8, 1.25f}, {-1.5f, -18, 5.25f}, {14, 12, 7.25f}};

json smallPlanManifest() {
  json manifest = json::parse(R"({
    "format_version": "",
    "compiler_version": "fusec test",
    "target": "cpu",
    "source_hash": "0123456789abcdef",
    "batch_buckets": [1, 2, 4],
    "inputs":  [{"name": "x", "dtype": "f32", "shape": [-1, 2], "buffer": 0}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [-1, 3], "buffer": 5}],
    "buffers": [
      {"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": [-1, 2]},
      {"id": 1, "name": "W", "kind": "weight", "dtype": "f32", "shape": [3, 2], "offset": 0},
      {"id": 2, "name": "b", "kind": "weight", "dtype": "f32", "shape": [3], "offset": 24},
      {"id": 3, "name": "t0", "kind": "arena", "dtype": "f32", "shape": [-1, 3],
       "offset": {"per_batch": 64, "fixed": 0}},
      {"id": 4, "name": "c", "kind": "weight", "dtype": "f32", "shape": [3], "offset": 48},
      {"id": 5, "name": "y", "kind": "output", "dtype": "f32", "shape": [-1, 3]},
      {"id": 6, "name": "t1", "kind": "arena", "dtype": "f32", "shape": [-1, 3],
       "offset": {"per_batch": 0, "fixed": 0}}
    ],
    "arena": {"per_batch": 128, "fixed": 0,
              "lower_bound": {"per_batch": 24, "fixed": 0}},
    "kernels": [
      {"name": "k0_gemm", "kind": "gemm", "inputs": [0, 1, 2], "outputs": [3],
       "values": [{"dtype": "f32", "shape": [-1, 2]}, {"dtype": "f32", "shape": [3, 2]}, {"dtype": "f32", "shape": [3]},
                  {"dtype": "f32", "shape": [-1, 3]}],
       "ops": [{"op": "Gemm", "name": "fc", "operands": [0, 1, 2],
                "results": [3],
                "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0,
                          "transB": 1}}],
       "yields": [3]},
      {"name": "k1_relu", "kind": "elementwise", "inputs": [3], "outputs": [6],
       "values": [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [-1, 3]}],
       "ops": [{"op": "Relu", "name": "relu", "operands": [0], "results": [1]}],
       "yields": [1]},
      {"name": "k2_add_add", "kind": "elementwise", "inputs": [6, 4, 3],
       "outputs": [5],
       "values": [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [3]}, {"dtype": "f32", "shape": [-1, 3]},
                  {"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [-1, 3]}],
       "ops": [{"op": "Add", "name": "add_c", "operands": [0, 1],
                "results": [3], "attrs": {}},
               {"op": "Add", "name": "add_skip", "operands": [3, 2],
                "results": [4], "attrs": {}}],
       "yields": [4]}
    ]
  })");
  manifest["format_version"] = plan::formatVersionString();
  return manifest;
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

std::vector<uint8_t> smallPlanBytes() { return plan::encodePlan(smallPlanManifest(), smallPlanSections()); }

/// A plan of one kernel running `op` (with `attrs`) on x: [batch, 1, 4, 4]
/// into y of shape `resultShape`.
std::vector<uint8_t> windowPlanBytes(const std::string &op, const json &attrs, const json &resultShape) {
  json manifest = {
      {"format_version", plan::formatVersionString()},
      {"compiler_version", "fusec test"},
      {"target", "cpu"},
      {"source_hash", "0123456789abcdef"},
      {"batch_buckets", {1}},
      {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {-1, 1, 4, 4}}, {"buffer", 0}}}},
      {"outputs", {{{"name", "y"}, {"dtype", "f32"}, {"shape", resultShape}, {"buffer", 1}}}},
      {"buffers",
       {{{"id", 0}, {"name", "x"}, {"kind", "input"}, {"dtype", "f32"}, {"shape", {-1, 1, 4, 4}}},
        {{"id", 1}, {"name", "y"}, {"kind", "output"}, {"dtype", "f32"}, {"shape", resultShape}}}},
      {"arena", {{"per_batch", 0}, {"fixed", 0}, {"lower_bound", {{"per_batch", 0}, {"fixed", 0}}}}},
      {"kernels",
       {{{"name", "k0"},
         {"kind", "pool"},
         {"inputs", {0}},
         {"outputs", {1}},
         {"values", {{{"dtype", "f32"}, {"shape", {-1, 1, 4, 4}}}, {{"dtype", "f32"}, {"shape", resultShape}}}},
         {"ops", {{{"op", op}, {"name", "op1"}, {"operands", {0}}, {"results", {1}}, {"attrs", attrs}}}},
         {"yields", {1}}}}},
  };
  return plan::encodePlan(manifest, {{plan::kWeightsSection, {}}});
}

// Checked with `ptxas -arch=sm_75` and `-arch=sm_90`. One thread per
// element; `batch` is the kernels' last parameter, as in generated kernels.
extern const char *const kHostStepPlanPtx = R"(//
// Two elementwise kernels over [batch, 4] tensors.
//
.version 7.0
.target sm_75
.address_size 64

// out[i] = x[i] * w[i % 4]
.visible .entry fusec_test_mul(.param .u64 x, .param .u64 w, .param .u64 out,
                               .param .u32 batch)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;

  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [batch];
  shl.b32 %r6, %r5, 2;
  setp.ge.s32 %p, %r4, %r6;
  @%p bra DONE;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [w];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.s32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f1, [%rd5];
  and.b32 %r7, %r4, 3;
  mul.wide.s32 %rd6, %r7, 4;
  add.s64 %rd6, %rd2, %rd6;
  ld.global.f32 %f2, [%rd6];
  mul.rn.f32 %f3, %f1, %f2;
  add.s64 %rd7, %rd3, %rd4;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}

// out[i] = a[i] + b[i]
.visible .entry fusec_test_add(.param .u64 a, .param .u64 b, .param .u64 out,
                               .param .u32 batch)
{
  .reg .pred %p;
  .reg .b32 %r<7>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;

  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [batch];
  shl.b32 %r6, %r5, 2;
  setp.ge.s32 %p, %r4, %r6;
  @%p bra DONE;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.s32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.f32 %f1, [%rd5];
  add.s64 %rd6, %rd2, %rd4;
  ld.global.f32 %f2, [%rd6];
  add.rn.f32 %f3, %f1, %f2;
  add.s64 %rd7, %rd3, %rd4;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
)";

const std::vector<float> kHostStepPlanWeight = {2, -1, 0.5f, 0};

json hostStepPlanManifest() {
  const size_t ptxSize = std::strlen(kHostStepPlanPtx);
  const json launch = json::parse(R"({
    "block": [64, 1, 1],
    "grid": [{"per_batch": 4, "fixed": 0, "divisor": 64},
             {"per_batch": 0, "fixed": 1, "divisor": 1},
             {"per_batch": 0, "fixed": 1, "divisor": 1}]})");
  auto image = [&](const char *entry) {
    return json::array({{{"format", "ptx"}, {"target", "sm_75"}, {"entry", entry}, {"offset", 0}, {"size", ptxSize}}});
  };
  json manifest = json::parse(R"({
    "format_version": "",
    "compiler_version": "fusec test",
    "target": "sm_75",
    "source_hash": "0123456789abcdef",
    "batch_buckets": [1, 2, 4, 8, 16],
    "inputs":  [{"name": "x", "dtype": "f32", "shape": [-1, 4], "buffer": 0}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [-1, 4], "buffer": 4},
                {"name": "z", "dtype": "f32", "shape": [-1, 4], "buffer": 5}],
    "buffers": [
      {"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": [-1, 4]},
      {"id": 1, "name": "w", "kind": "weight", "dtype": "f32", "shape": [4], "offset": 0},
      {"id": 2, "name": "t0", "kind": "arena", "dtype": "f32", "shape": [-1, 4],
       "offset": {"per_batch": 0, "fixed": 0}},
      {"id": 3, "name": "t1", "kind": "arena", "dtype": "f32", "shape": [-1, 4],
       "offset": {"per_batch": 64, "fixed": 0}},
      {"id": 4, "name": "y", "kind": "output", "dtype": "f32", "shape": [-1, 4]},
      {"id": 5, "name": "z", "kind": "output", "dtype": "f32", "shape": [-1, 4]}
    ],
    "arena": {"per_batch": 128, "fixed": 0,
              "lower_bound": {"per_batch": 32, "fixed": 0}},
    "kernels": [
      {"name": "k0_mul", "kind": "elementwise", "inputs": [0, 1],
       "outputs": [2],
       "values": [{"dtype": "f32", "shape": [-1, 4]}, {"dtype": "f32", "shape": [4]}, {"dtype": "f32", "shape": [-1, 4]}],
       "ops": [{"op": "Mul", "name": "mul", "operands": [0, 1],
                "results": [2]}],
       "yields": [2]},
      {"name": "k1_softmax", "kind": "host", "inputs": [2], "outputs": [3],
       "values": [{"dtype": "f32", "shape": [-1, 4]}, {"dtype": "f32", "shape": [-1, 4]}],
       "ops": [{"op": "Softmax", "name": "softmax", "operands": [0],
                "results": [1], "attrs": {"axis": 1}}],
       "yields": [1]},
      {"name": "k2_add", "kind": "elementwise", "inputs": [3, 2],
       "outputs": [4],
       "values": [{"dtype": "f32", "shape": [-1, 4]}, {"dtype": "f32", "shape": [-1, 4]}, {"dtype": "f32", "shape": [-1, 4]}],
       "ops": [{"op": "Add", "name": "add", "operands": [0, 1],
                "results": [2]}],
       "yields": [2]},
      {"name": "k3_copy_z", "kind": "copy", "inputs": [2], "outputs": [5],
       "values": [{"dtype": "f32", "shape": [-1, 4]}, {"dtype": "f32", "shape": [-1, 4]}],
       "ops": [{"op": "Identity", "name": "z", "operands": [0],
                "results": [1]}],
       "yields": [1]}
    ]
  })");
  manifest["format_version"] = plan::formatVersionString();
  manifest["kernels"][0]["launch"] = launch;
  manifest["kernels"][0]["images"] = image("fusec_test_mul");
  manifest["kernels"][2]["launch"] = launch;
  manifest["kernels"][2]["images"] = image("fusec_test_add");
  return manifest;
}

std::vector<plan::Section> hostStepPlanSections() {
  plan::Section weights{plan::kWeightsSection, {}};
  weights.bytes.resize(kHostStepPlanWeight.size() * sizeof(float));
  std::memcpy(weights.bytes.data(), kHostStepPlanWeight.data(), weights.bytes.size());
  const auto *ptx = reinterpret_cast<const uint8_t *>(kHostStepPlanPtx);
  plan::Section images{plan::kKernelImagesSection, {ptx, ptx + std::strlen(kHostStepPlanPtx)}};
  return {weights, images};
}

std::vector<uint8_t> hostStepPlanBytes() { return plan::encodePlan(hostStepPlanManifest(), hostStepPlanSections()); }

std::vector<float> hostStepPlanZ(const std::vector<float> &x) {
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    z[i] = x[i] * kHostStepPlanWeight[i % 4];
  return z;
}

std::vector<float> hostStepPlanY(const std::vector<float> &x) {
  const std::vector<float> t0 = hostStepPlanZ(x);
  std::vector<float> y(x.size());
  for (size_t row = 0; row < x.size() / 4; ++row) {
    const float *in = &t0[row * 4];
    const float peak = *std::max_element(in, in + 4);
    float sum = 0;
    for (int i = 0; i < 4; ++i)
      sum += std::exp(in[i] - peak);
    for (int i = 0; i < 4; ++i)
      y[row * 4 + i] = std::exp(in[i] - peak) / sum + in[i];
  }
  return y;
}

std::shared_ptr<const runtime::Plan> smallPlan() {
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(smallPlanBytes(), "small.plan"));
}

std::shared_ptr<const runtime::Plan> hostStepPlan() {
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(hostStepPlanBytes(), "host.plan"));
}

runtime::Tensor hostStepInputRows(int64_t batch, float seed) {
  std::vector<float> values(static_cast<size_t>(batch * 4));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = seed + 0.37f * static_cast<float>(i) - static_cast<float>(i % 3) * 1.5f;
  return runtime::Tensor({batch, 4}, values);
}

void requireHostStepOutputs(runtime::Session &session, int64_t batch, float seed) {
  INFO("batch " << batch);
  const runtime::Tensor x = hostStepInputRows(batch, seed);
  const auto outputs = session.run(batch, {{"x", x}});
  requireTensor(outputs.at("y"), {batch, 4}, hostStepPlanY(x.values()), 1e-5f);
  requireTensor(outputs.at("z"), {batch, 4}, hostStepPlanZ(x.values()), 0.0f);
}

} // namespace fusec::test
