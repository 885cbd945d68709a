//===- OnnxQuantizationTest.cpp - QuantizeLinear/DequantizeLinear import ---===//
//
// QDQ models as quantization tools write them: quantized weights behind a
// DequantizeLinear fold to f32 constants at import, activations' Q/DQ pairs
// become fuse.quantize_linear / fuse.dequantize_linear (per-axis parameters
// reshaped onto their axis), and what fusec does not have is refused with
// the node and the reason.
//
//===----------------------------------------------------------------------===//
#include "OnnxTestModel.h"

#include "compiler/import/OnnxImporter.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace fusec;
using test::TestContext;
using test::TestModel;

namespace {

std::string bytesOf(const std::vector<int8_t> &values) { return std::string(values.begin(), values.end()); }
std::string bytesOf(const std::vector<float> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float));
}

struct QuantizationOps {
  int quantize = 0, dequantize = 0;
  /// DequantizeLinears whose input is a constant: none survive import.
  int ofConstants = 0;
};

QuantizationOps countOps(ModuleOp module) {
  QuantizationOps ops;
  module.walk([&](fuse::QuantizeLinearOp) { ++ops.quantize; });
  module.walk([&](fuse::DequantizeLinearOp op) {
    ++ops.dequantize;
    ops.ofConstants += op.getInput().getDefiningOp<fuse::ConstantOp>() != nullptr;
  });
  return ops;
}

/// test/data/quantized/`name`'s model, imported (the test stops if it fails).
OwningOpRef<ModuleOp> importQuantizedModel(const std::string &name, TestContext &test) {
  auto module =
      import::importOnnxModel(std::string(FUSEC_TEST_DATA_DIR) + "/quantized/" + name + "/model.onnx", test.context);
  INFO(test.diagnostics);
  REQUIRE(module);
  return module;
}

/// x [batch, 4] -> QuantizeLinear -> DequantizeLinear -> y, with the scale
/// and zero point of `scaleDims` (and zero point type `zeroType`).
TestModel roundTrip(const std::vector<int64_t> &scaleDims, int64_t count, int32_t zeroType = onnx::TensorProto::INT8,
                    int64_t opset = 13) {
  TestModel model(opset);
  model.input("x", {"batch", "4"});
  model.initializer("scale", onnx::TensorProto::FLOAT, scaleDims, bytesOf(std::vector<float>(count, 0.5f)));
  model.initializer("zero", zeroType, scaleDims,
                    std::string(count * (zeroType == onnx::TensorProto::UINT16 ? 2 : 1), '\0'));
  model.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"}, "quantize");
  model.node("DequantizeLinear", {"q", "scale", "zero"}, {"y"}, "dequantize");
  model.output("y");
  return model;
}

} // namespace

TEST_CASE("QDQ models import with their quantized weights folded to f32 constants", "[onnx][quantized]") {
  // ONNX Runtime's quantize_static output: every weight and bias (int8 and
  // int32 initializers) behind a DequantizeLinear folds, and so do the Q/DQ
  // pairs on two of GELU's constants (qdq_ffn: 15 QuantizeLinear nodes);
  // the activations' Q/DQ pairs remain, per tensor.
  const std::map<std::string, std::pair<int, int>> expected = {{"qdq_convnet", {9, 9}}, {"qdq_ffn", {13, 13}}};
  for (const auto &[name, counts] : expected) {
    INFO(name);
    TestContext test;
    auto module = importQuantizedModel(name, test);
    const QuantizationOps ops = countOps(*module);
    CHECK(ops.quantize == counts.first);
    CHECK(ops.dequantize == counts.second);
    CHECK(ops.ofConstants == 0);
  }
}

TEST_CASE("per-axis quantization parameters lie along their axis, per-tensor ones stay scalars", "[onnx][quantized]") {
  SECTION("per axis") {
    TestModel model = roundTrip({4}, 4);
    TestModel::setInt(*model.model.mutable_graph()->mutable_node(0), "axis", 1);
    TestContext test;
    auto module = model.import(test);
    INFO(test.diagnostics);
    REQUIRE(module);
    module->walk([&](fuse::QuantizeLinearOp op) {
      CHECK(llvm::cast<RankedTensorType>(op.getScale().getType()).getShape() == ArrayRef<int64_t>{1, 4});
      CHECK(fuse::elementTypeOf(op.getOutput()).isSignlessInteger(8));
    });
    CHECK(countOps(*module).quantize == 1);
  }
  SECTION("no zero point: u8, or opset 21's output_dtype") {
    for (int64_t opset : {13, 21}) {
      TestModel model(opset);
      model.input("x", {"batch", "4"});
      model.initializer("scale", onnx::TensorProto::FLOAT, {}, bytesOf(std::vector<float>{0.25f}));
      onnx::NodeProto &node = model.node("QuantizeLinear", {"x", "scale"}, {"q"}, "quantize");
      if (opset == 21)
        TestModel::setInt(node, "output_dtype", onnx::TensorProto::INT8);
      model.node("DequantizeLinear", {"q", "scale"}, {"y"}, "dequantize");
      model.output("y");
      TestContext test;
      auto module = model.import(test);
      INFO(test.diagnostics);
      REQUIRE(module);
      module->walk([&](fuse::QuantizeLinearOp op) {
        Type type = fuse::elementTypeOf(op.getOutput());
        CHECK((opset == 21 ? type.isSignlessInteger(8) : type.isUnsignedInteger(8)));
      });
    }
  }
}

TEST_CASE("ONNX Runtime's operator format lowers to the same ops, its weights and biases folded", "[onnx][quantized]") {
  // QLinearConv: DequantizeLinear of the input and of the weights, the
  // int32 bias as an f32 constant, Conv, QuantizeLinear; QLinearMatMul the
  // same around a MatMul. The weights' DequantizeLinear has constant
  // operands: the pipeline's canonicalization folds it. The graphs' own
  // QuantizeLinear at the input and DequantizeLinear at the output stay.
  for (const char *name : {"qop_convs", "qop_matmuls"}) {
    INFO(name);
    TestContext test;
    auto module = importQuantizedModel(name, test);
    const QuantizationOps ops = countOps(*module);
    CHECK(ops.quantize == 3);
    CHECK(ops.dequantize == 5);
    CHECK(ops.ofConstants == 2);
    int products = 0;
    module->walk([&](Operation *op) { products += llvm::isa<fuse::ConvOp, fuse::MatMulOp>(op); });
    CHECK(products == 2);
  }
}

TEST_CASE("quantization fusec does not have is refused with the node and the reason", "[onnx][quantized]") {
  SECTION("blocked quantization") {
    TestModel model = roundTrip({4}, 4, onnx::TensorProto::INT8, 21);
    TestModel::setInt(*model.model.mutable_graph()->mutable_node(0), "block_size", 2);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("quantize") && Catch::Contains("blocked quantization"));
  }
  SECTION("a 16-bit zero point") {
    TestModel model = roundTrip({}, 1, onnx::TensorProto::UINT16);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("UINT16"));
  }
  SECTION("a per-axis scale of the wrong length") {
    TestModel model = roundTrip({3}, 3);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("quantize") && Catch::Contains("scale has 3 elements") &&
                                     Catch::Contains("axis 1 has [4]"));
  }
  SECTION("an INT32 DequantizeLinear at run time") {
    TestModel model;
    model.input("x", {"batch", "4"}, onnx::TensorProto::INT32);
    model.initializer("scale", onnx::TensorProto::FLOAT, {}, bytesOf(std::vector<float>{0.25f}));
    model.node("DequantizeLinear", {"x", "scale"}, {"y"}, "bias");
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("bias") && Catch::Contains("DequantizeLinear of i32 at run time"));
  }
  SECTION("an axis beside per-tensor parameters is accepted") {
    TestModel model = roundTrip({}, 1);
    TestModel::setInt(*model.model.mutable_graph()->mutable_node(0), "axis", 1);
    TestModel::setInt(*model.model.mutable_graph()->mutable_node(1), "axis", -1);
    TestContext test;
    auto module = model.import(test);
    INFO(test.diagnostics);
    CHECK(module);
  }
  SECTION("a QLinearConv whose bias is not a constant") {
    TestModel model;
    model.input("x", {"batch", "1", "4", "4"}, onnx::TensorProto::UINT8);
    model.input("bias", {"1"}, onnx::TensorProto::INT32);
    model.initializer("s", onnx::TensorProto::FLOAT, {}, bytesOf(std::vector<float>{0.5f}));
    model.initializer("z", onnx::TensorProto::UINT8, {}, std::string(1, '\0'));
    model.initializer("w", onnx::TensorProto::INT8, {1, 1, 1, 1}, bytesOf(std::vector<int8_t>{3}));
    model.initializer("ws", onnx::TensorProto::FLOAT, {}, bytesOf(std::vector<float>{0.25f}));
    model.initializer("wz", onnx::TensorProto::INT8, {}, std::string(1, '\0'));
    model.node("QLinearConv", {"x", "s", "z", "w", "ws", "wz", "s", "z", "bias"}, {"y"}, "qconv");
    model.output("y", onnx::TensorProto::UINT8);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("qconv") && Catch::Contains("bias must be a constant INT32"));
  }
  SECTION("a constant DequantizeLinear folds, with its per-axis scale") {
    TestModel model;
    model.input("x", {"batch", "2"});
    model.initializer("w", onnx::TensorProto::INT8, {2, 2}, bytesOf(std::vector<int8_t>{1, -2, 3, 127}));
    model.initializer("scale", onnx::TensorProto::FLOAT, {2}, bytesOf(std::vector<float>{0.5f, 0.25f}));
    model.initializer("zero", onnx::TensorProto::INT8, {2}, bytesOf(std::vector<int8_t>{1, 0}));
    TestModel::setInt(model.node("DequantizeLinear", {"w", "scale", "zero"}, {"wf"}, "weights"), "axis", 0);
    model.node("MatMul", {"x", "wf"}, {"y"});
    model.output("y");
    TestContext test;
    auto module = model.import(test);
    INFO(test.diagnostics);
    REQUIRE(module);
    CHECK(countOps(*module).dequantize == 0);
    std::vector<float> folded;
    module->walk([&](fuse::ConstantOp constant) {
      if (auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue()))
        for (float value : dense.getValues<float>())
          folded.push_back(value);
    });
    // Row 0: (1 - 1) * 0.5, (-2 - 1) * 0.5; row 1: 3 * 0.25, 127 * 0.25.
    CHECK(folded == std::vector<float>{0.0f, -1.5f, 0.75f, 31.75f});
  }
}
