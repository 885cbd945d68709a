//===- ElementTypeTest.cpp - Typed tensors, the CPU reference's rounding ---===//
//
// One-kernel plans over [4]-element tensors whose values have other types
// than f32: the CPU reference must round each op result to its value's type,
// Cast must convert as docs/plan-format.md says, and every API must refuse
// silent conversions.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "runtime/ElementConversion.h"
#include "runtime/Error.h"
#include "runtime/Session.h"
#include "runtime/c_api/runtime_c.h"
#include "runtime/cpu/KernelInterpreter.h"
#include "support/FileIO.h"
#include "support/HalfFloat.h"
#include "tools/fuserun/RandomInputs.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

/// A CPU plan of one kernel: input x (values[0]'s type) -> ops -> output y
/// (the last value's type), every value of shape `shape`.
std::vector<uint8_t> typedPlanBytes(const std::vector<std::string> &valueTypes, const std::vector<json> &ops,
                                    const Shape &shape = {4}) {
  json values = json::array();
  for (const std::string &type : valueTypes)
    values.push_back({{"dtype", type}, {"shape", shape}});
  const std::string &in = valueTypes.front(), &out = valueTypes.back();
  json manifest = {
      {"format_version", plan::formatVersionString()},
      {"compiler_version", "fusec test"},
      {"target", "cpu"},
      {"source_hash", "0123456789abcdef"},
      {"batch_buckets", {1}},
      {"inputs", {{{"name", "x"}, {"dtype", in}, {"shape", shape}, {"buffer", 0}}}},
      {"outputs", {{{"name", "y"}, {"dtype", out}, {"shape", shape}, {"buffer", 1}}}},
      {"buffers",
       {{{"id", 0}, {"name", "x"}, {"kind", "input"}, {"dtype", in}, {"shape", shape}},
        {{"id", 1}, {"name", "y"}, {"kind", "output"}, {"dtype", out}, {"shape", shape}}}},
      {"arena", {{"per_batch", 0}, {"fixed", 0}, {"lower_bound", {{"per_batch", 0}, {"fixed", 0}}}}},
      {"kernels",
       {{{"name", "k0"},
         {"kind", "elementwise"},
         {"inputs", {0}},
         {"outputs", {1}},
         {"values", values},
         {"ops", json(ops)},
         {"yields", {valueTypes.size() - 1}}}}},
  };
  return plan::encodePlan(manifest, {{plan::kWeightsSection, {}}});
}

std::shared_ptr<const Plan> typedPlan(const std::vector<std::string> &valueTypes, const std::vector<json> &ops,
                                      const Shape &shape = {4}) {
  return std::make_shared<const Plan>(Plan::fromBytes(typedPlanBytes(valueTypes, ops, shape), "typed.plan"));
}

json op(const std::string &name, std::vector<size_t> operands, size_t result, json attrs = json::object()) {
  return {{"op", name},
          {"name", name + std::to_string(result)},
          {"operands", operands},
          {"results", {result}},
          {"attrs", attrs}};
}

json cast(size_t operand, size_t result, const std::string &to) { return op("Cast", {operand}, result, {{"to", to}}); }

/// A tensor of `type` holding `values` (converted exactly as Cast would).
Tensor typedTensor(ElementType type, const std::vector<double> &values) {
  Tensor tensor(Shape{static_cast<int64_t>(values.size())}, type);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *at = static_cast<uint8_t *>(tensor.rawData()) + i * elementSize(type);
    if (isFloatElementType(type)) {
      const float value = static_cast<float>(values[i]);
      storeFloats(&value, 1, type, at);
    } else {
      const int64_t value = static_cast<int64_t>(values[i]);
      storeIntegers(&value, 1, type, at);
    }
  }
  return tensor;
}

Tensor runY(const std::shared_ptr<const Plan> &plan, const Tensor &x) {
  Session session(plan, Device::Cpu);
  return session.run(1, {{"x", x}}).at("y");
}

} // namespace

TEST_CASE("typed tensors own bytes and refuse float access to other types") {
  Tensor half(Shape{3}, ElementType::F16);
  CHECK(half.byteSize() == 6);
  CHECK(half.elementType() == ElementType::F16);
  CHECK(half.toDoubles() == std::vector<double>{0, 0, 0});
  CHECK_THROWS_WITH(half.data(), Contains("this tensor is f16"));
  CHECK_THROWS_WITH(half.values(), Contains("this tensor is f16"));
  const uint8_t flags[] = {1, 0, 1};
  CHECK(Tensor::fromBytes({3}, ElementType::I1, flags, 3).toDoubles() == std::vector<double>{1, 0, 1});
  CHECK_THROWS_WITH(Tensor::fromBytes({3}, ElementType::I64, flags, 3),
                    Contains("a i64 tensor of shape [3] needs 24 bytes, got 3"));
  CHECK(Tensor({2}, {1.5f, -2}).toDoubles() == std::vector<double>{1.5, -2});
  CHECK(Tensor({2}).elementType() == ElementType::F32);
}

TEST_CASE("the CPU reference rounds every op result to its value's type") {
  const std::vector<double> x = {1.0 / 3, 1000.1, 70000, -1e-8};
  SECTION("an f16 intermediate") {
    // y = relu(x) [rounded to f16] + relu(x) [f16], computed in f32.
    const Tensor y = runY(typedPlan({"f32", "f16", "f32"}, {op("Relu", {0}, 1), op("Add", {1, 1}, 2)}),
                          typedTensor(ElementType::F32, x));
    const std::vector<double> got = y.toDoubles();
    CHECK(got[0] == 2.0 * roundToHalf(static_cast<float>(x[0])));
    CHECK(got[0] != 2.0 * static_cast<float>(x[0]));
    CHECK(got[1] == 2.0 * roundToHalf(1000.1f));
    CHECK(std::isinf(got[2])); // 70000 overflows f16
    CHECK(got[3] == 0);
  }
  SECTION("f16 and bf16 inputs and outputs are stored in their formats") {
    const Tensor y = runY(typedPlan({"bf16", "f16"}, {op("Relu", {0}, 1)}), typedTensor(ElementType::BF16, x));
    REQUIRE(y.elementType() == ElementType::F16);
    const auto *bits = static_cast<const uint16_t *>(y.rawData());
    CHECK(bits[0] == floatToHalfBits(roundToBfloat16(static_cast<float>(x[0]))));
    CHECK(y.toDoubles()[1] == roundToHalf(roundToBfloat16(1000.1f)));
    CHECK(bits[2] == 0x7c00); // bf16 70144 is beyond f16
  }
  SECTION("mixed float operands") {
    const Tensor y = runY(typedPlan({"f32", "bf16", "f32"}, {cast(0, 1, "bf16"), op("Add", {0, 1}, 2)}),
                          typedTensor(ElementType::F32, x));
    CHECK(y.toDoubles()[0] == static_cast<float>(static_cast<float>(x[0]) + roundToBfloat16(static_cast<float>(x[0]))));
  }
}

TEST_CASE("Cast truncates toward zero, saturates, maps NaN to 0 and tests for non-zero") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {2.7, -2.7, nan, 3e9, -3e9, inf, -0.5, 0};
  const Tensor input = typedTensor(ElementType::F32, x);
  CHECK(runY(typedPlan({"f32", "i32"}, {cast(0, 1, "i32")}, {8}), input).toDoubles() ==
        std::vector<double>{2, -2, 0, 2147483647, -2147483648.0, 2147483647, 0, 0});
  const Tensor i64 = runY(typedPlan({"f32", "i64"}, {cast(0, 1, "i64")}, {8}), input);
  const auto *wide = static_cast<const int64_t *>(i64.rawData());
  CHECK(wide[3] == 3000000000);
  CHECK(wide[4] == -3000000000);
  CHECK(wide[5] == std::numeric_limits<int64_t>::max());
  CHECK(runY(typedPlan({"f32", "i1"}, {cast(0, 1, "i1")}, {8}), input).toDoubles() ==
        std::vector<double>{1, 1, 1, 1, 1, 1, 1, 0});
  // Integer to integer saturates too; i1 is 0 or 1 as a number.
  CHECK(runY(typedPlan({"i64", "i32"}, {cast(0, 1, "i32")}), typedTensor(ElementType::I64, {5e9, -5e9, -7, 1}))
            .toDoubles() == std::vector<double>{2147483647, -2147483648.0, -7, 1});
  CHECK(runY(typedPlan({"i1", "f16"}, {cast(0, 1, "f16")}), typedTensor(ElementType::I1, {1, 0, 1, 1})).toDoubles() ==
        std::vector<double>{1, 0, 1, 1});
  CHECK(runY(typedPlan({"i32", "i1"}, {cast(0, 1, "i1")}), typedTensor(ElementType::I32, {0, -3, 2, 0})).toDoubles() ==
        std::vector<double>{0, 1, 1, 0});
}

TEST_CASE("Cast from integers rounds once, to nearest even, into the target type") {
  // 65519 rounds down to 65504; 65520 is a tie that goes to infinity.
  const Tensor half =
      runY(typedPlan({"i32", "f16"}, {cast(0, 1, "f16")}), typedTensor(ElementType::I32, {65519, 65520, -2049, 3}));
  CHECK(half.toDoubles() == std::vector<double>{65504, std::numeric_limits<double>::infinity(), -2048, 3});
  // 2^24 + 2^16 + 1 is nearer 2^24 + 2^17 in bf16; rounding through f32
  // first would give a tie and 2^24.
  const Tensor bf16 = runY(typedPlan({"i64", "bf16"}, {cast(0, 1, "bf16")}),
                           typedTensor(ElementType::I64, {16842753, -16842753, 0, 1}));
  CHECK(bf16.toDoubles() == std::vector<double>{16908288, -16908288, 0, 1});
  // i64 through f32: 2^53 + 1 rounds to 2^53.
  int64_t big[4] = {(int64_t(1) << 53) + 1, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    -1};
  const Tensor f32 =
      runY(typedPlan({"i64", "f32"}, {cast(0, 1, "f32")}), Tensor::fromBytes({4}, ElementType::I64, big, sizeof(big)));
  CHECK(f32.values() == std::vector<float>{9007199254740992.0f, 9223372036854775808.0f, -9223372036854775808.0f, -1});
}

TEST_CASE("Identity carries integers unchanged and other ops refuse them by name") {
  int64_t values[4] = {std::numeric_limits<int64_t>::max(), -1, 0, 42};
  const Tensor y = runY(typedPlan({"i64", "i64"}, {op("Identity", {0}, 1)}),
                        Tensor::fromBytes({4}, ElementType::I64, values, sizeof(values)));
  CHECK(std::memcmp(y.rawData(), values, sizeof(values)) == 0);

  // Past the verifier (which rejects this plan), the interpreter still
  // refuses to run a float op on integers.
  KernelDesc kernel;
  kernel.name = "k_bad";
  kernel.inputs = {0};
  kernel.outputs = {1};
  kernel.values = {{4}, {4}};
  kernel.valueTypes = {ElementType::I32, ElementType::F32};
  kernel.ops = {OpDesc{"Relu", "relu", {0}, {1}}};
  kernel.yields = {1};
  int32_t in[4] = {1, 2, 3, 4};
  float out[4] = {};
  CHECK_THROWS_WITH(cpu::interpretKernel(kernel, 1, {in, out}, std::vector<BufferDesc>(2)),
                    "kernel 'k_bad' op Relu 'relu': operand 0 is i32; the op takes only float values");
}

TEST_CASE("Session refuses inputs of another element type") {
  auto plan = typedPlan({"f16", "f16"}, {op("Relu", {0}, 1)});
  Session session(plan, Device::Cpu);
  CHECK_THROWS_WITH(session.run(1, {{"x", Tensor({4})}}), "input 'x' is f32, the plan takes f16");
  const auto outputs = session.run(1, {{"x", typedTensor(ElementType::F16, {-1, 0.5, 2, -3})}});
  CHECK(outputs.at("y").elementType() == ElementType::F16);
  CHECK(outputs.at("y").toDoubles() == std::vector<double>{0, 0.5, 2, 0});
}

TEST_CASE("random inputs follow each input's element type") {
  for (const char *type : {"f16", "bf16", "i64", "i32", "i1"}) {
    INFO("dtype " << type);
    const auto plan = typedPlan({type, type}, {op("Identity", {0}, 1)}, {64});
    const Tensor x = makeRandomInputs(*plan, 1, 7).at("x");
    CHECK(elementTypeName(x.elementType()) == std::string(type));
    std::set<double> seen;
    for (double value : x.toDoubles()) {
      seen.insert(value);
      if (x.elementType() == ElementType::I1)
        CHECK((value == 0 || value == 1));
      else if (!isFloatElementType(x.elementType()))
        CHECK((value >= 0 && value < 8 && value == std::floor(value)));
      else
        CHECK((value >= -1 && value <= 1));
    }
    CHECK(seen.size() > 1);
  }
}

TEST_CASE("the C API reports element types and runs typed plans") {
  const test::TempDir dir;
  writeFileAtomically(dir.file("typed.plan"), typedPlanBytes({"i32", "f16"}, {cast(0, 1, "f16")}));
  fusec_plan *plan = fusec_plan_load(dir.file("typed.plan").c_str());
  REQUIRE(plan);
  CHECK(std::string(fusec_plan_input_dtype(plan, 0)) == "i32");
  CHECK(std::string(fusec_plan_output_dtype(plan, 0)) == "f16");
  CHECK(fusec_plan_input_dtype(plan, 1) == nullptr);
  fusec_session *session = fusec_session_create(plan, "cpu");
  REQUIRE(session);
  int32_t x[4] = {1, -2, 65520, 7};
  uint16_t y[4] = {};
  // The float entry point refuses a plan whose tensors are not f32.
  const float *floatInputs[] = {reinterpret_cast<const float *>(x)};
  float *floatOutputs[] = {reinterpret_cast<float *>(y)};
  CHECK(fusec_session_run(session, 1, floatInputs, floatOutputs) == 1);
  CHECK_THAT(std::string(fusec_last_error()), Contains("input 'x' is i32, not f32; use fusec_session_run_typed"));
  const void *inputs[] = {x};
  void *outputs[] = {y};
  REQUIRE(fusec_session_run_typed(session, 1, inputs, outputs) == 0);
  CHECK(y[0] == 0x3c00);
  CHECK(y[1] == 0xc000);
  CHECK(y[2] == 0x7c00);
  CHECK(halfBitsToFloat(y[3]) == 7.0f);
  fusec_session_free(session);
  fusec_plan_free(plan);
}
