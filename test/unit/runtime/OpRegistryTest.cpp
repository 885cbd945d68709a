//===- OpRegistryTest.cpp - Op lookup and operand checks --------------------===//

#include "TestSupport.h"

#include "runtime/cpu/OpRegistry.h"
#include "support/OpRules.h"

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;
using test::runOp;

TEST_CASE("every op of the plan format is registered") {
  for (const char *op : {"Conv",
                         "BatchNormalization",
                         "Relu",
                         "Sigmoid",
                         "Tanh",
                         "Erf",
                         "Sqrt",
                         "Identity",
                         "Gelu",
                         "Clip",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Pad",
                         "Gemm",
                         "MatMul",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "Softmax",
                         "LayerNormalization",
                         "ReduceMean",
                         "Reshape",
                         "Flatten",
                         "Transpose",
                         "Concat",
                         "Slice",
                         "Gather",
                         "Expand",
                         "Attention"}) {
    INFO(op);
    CHECK(cpu::OpRegistry::builtin().lookup(op) != nullptr);
  }
  CHECK(cpu::OpRegistry::builtin().lookup("Conv2D") == nullptr);
}

TEST_CASE("the CPU ops that take integers are exactly those the type rules allow them") {
  // The importer, the plan verifier and the CPU backend all follow
  // rules::typeRuleOf; Cast is run by the interpreter itself.
  for (const char *op :
       {"Relu", "Add",   "Conv",     "MatMul",  "Pad",     "Softmax",   "Attention", "Equal", "Less",   "Not",
        "And",  "Where", "Identity", "Reshape", "Flatten", "Transpose", "Concat",    "Slice", "Gather", "Expand"}) {
    INFO(op);
    const cpu::OpInfo *info = cpu::OpRegistry::builtin().lookup(op);
    REQUIRE(info != nullptr);
    CHECK(info->typed == (rules::typeRuleOf(op) != rules::TypeRule::Float));
  }
}

TEST_CASE("unknown ops and wrong operand counts name the kernel and op") {
  CHECK_THROWS_WITH(runOp("Frobnicate", json::object(), {Tensor({1})}, {1}),
                    Contains("kernel 'test_kernel' op Frobnicate 'test_op': "
                             "the CPU backend has no implementation of "
                             "'Frobnicate'"));
  CHECK_THROWS_WITH(runOp("Relu", json::object(), {Tensor({1}), Tensor({1})}, {1}),
                    Contains("op Relu 'test_op': expected 1 operands, got 2"));
  CHECK_THROWS_WITH(runOp("Gemm", json::object(), {Tensor({1, 1})}, {1, 1}),
                    Contains("op Gemm 'test_op': expected 2 to 3 operands, "
                             "got 1"));
  CHECK_THROWS_WITH(runOp("Concat", {{"axis", 0}}, {}, {1}), Contains("expected 1 or more operands, got 0"));
  CHECK_THROWS_WITH(runOp("Relu", json::object(), {Tensor({2})}, {3}),
                    Contains("the plan records result shape [3], but the "
                             "operands give [2]"));
}
