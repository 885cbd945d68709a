//===- OnnxImporterTest.cpp - ONNX importer on models and bad input -------===//
#include "compiler/import/OnnxImporter.h"

#include "OnnxTestModel.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "ir/ConstantData.h"
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"
#include "runtime/Session.h"
#include "support/HalfFloat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

using namespace mlir;
using namespace fusec;

using test::TestContext;
using test::TestModel;

namespace {

std::string modelPath(const std::string &name) {
  return std::string(FUSEC_TEST_DATA_DIR) + "/models/" + name + "/model.onnx";
}

func::FuncOp mainFunction(ModuleOp module) { return module.lookupSymbol<func::FuncOp>(import::kEntryFunction); }

/// How many ops of each ONNX type @main holds; anything that is neither a
/// fuse ONNX op nor a constant counts under its MLIR name.
std::map<std::string, int> computeOps(ModuleOp module) {
  std::map<std::string, int> counts;
  mainFunction(module).walk([&](Operation *op) {
    if (auto onnxOp = dyn_cast<fuse::OnnxOpInterface>(op))
      ++counts[onnxOp.getOnnxName().str()];
    else if (!isa<fuse::ConstantOp, func::ReturnOp, func::FuncOp>(op))
      ++counts[op->getName().getStringRef().str()];
  });
  return counts;
}

template <typename OpTy> std::vector<OpTy> opsOfType(ModuleOp module) {
  std::vector<OpTy> ops;
  module.walk([&](OpTy op) { ops.push_back(op); });
  return ops;
}

std::vector<int64_t> shapeOf(Value value) {
  auto shape = cast<RankedTensorType>(value.getType()).getShape();
  return {shape.begin(), shape.end()};
}

} // namespace

//===----------------------------------------------------------------------===//
// The shared models
//===----------------------------------------------------------------------===//

TEST_CASE("the shared ONNX models import to fuse compute ops only", "[onnx]") {
  // Shape arithmetic, Transpose(W) and Constant nodes fold away; Conv+BN stay
  // apart (the compiler folds BN later).
  const std::map<std::string, std::map<std::string, int>> expected = {
      {"mlp", {{"MatMul", 2}, {"Add", 2}, {"Relu", 1}}},
      {"three_part", {{"MatMul", 3}, {"Add", 3}, {"Relu", 2}}},
      {"conv_bn_relu", {{"Conv", 2}, {"BatchNormalization", 2}, {"Relu", 2}}},
      {"pad_conv", {{"Pad", 2}, {"Conv", 2}, {"Relu", 2}, {"Concat", 1}}},
      {"residual_block", {{"Conv", 2}, {"BatchNormalization", 2}, {"Relu", 2}, {"Add", 1}}},
      {"tiny_resnet",
       {{"Add", 4},
        {"BatchNormalization", 12},
        {"Conv", 12},
        {"Flatten", 1},
        {"Gemm", 1},
        {"GlobalAveragePool", 1},
        {"MaxPool", 1},
        {"Relu", 9}}},
      {"multi_consumer", {{"Conv", 1}, {"BatchNormalization", 1}, {"Relu", 1}, {"Add", 1}}},
  };
  for (const auto &[name, ops] : expected) {
    DYNAMIC_SECTION(name) {
      TestContext test;
      auto module = import::importOnnxModel(modelPath(name), test.context);
      INFO(test.diagnostics);
      REQUIRE(module);
      CHECK(computeOps(*module) == ops);

      // Inputs and outputs keep their names; the batch is the one dynamic
      // dimension, the others are meta.json's.
      std::ifstream metaFile(std::string(FUSEC_TEST_DATA_DIR) + "/models/" + name + "/meta.json");
      nlohmann::json meta = nlohmann::json::parse(metaFile);
      func::FuncOp main = mainFunction(*module);
      auto checkSignature = [&](const nlohmann::json &tensors, TypeRange types, auto nameOf) {
        REQUIRE(types.size() == tensors.size());
        for (size_t i = 0; i < types.size(); ++i) {
          CHECK(nameOf(i) == tensors[i]["name"].get<std::string>());
          std::vector<int64_t> shape = {ShapedType::kDynamic};
          for (size_t d = 1; d < tensors[i]["shape"].size(); ++d)
            shape.push_back(tensors[i]["shape"][d].get<int64_t>());
          auto type = cast<RankedTensorType>(types[i]);
          CHECK(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()) == shape);
        }
      };
      checkSignature(meta["inputs"], main.getArgumentTypes(),
                     [&](size_t i) { return main.getArgAttrOfType<StringAttr>(i, import::kTensorNameAttr).str(); });
      checkSignature(meta["outputs"], main.getResultTypes(),
                     [&](size_t i) { return main.getResultAttrOfType<StringAttr>(i, import::kTensorNameAttr).str(); });
    }
  }
}

TEST_CASE("pad_conv's computed pads fold to constants", "[onnx]") {
  TestContext test;
  auto module = import::importOnnxModel(modelPath("pad_conv"), test.context);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto pads = opsOfType<fuse::PadOp>(*module);
  REQUIRE(pads.size() == 2);
  std::vector<float> values;
  for (fuse::PadOp pad : pads) {
    CHECK(pad.getPads() == ArrayRef<int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
    CHECK(pad.getMode() == "constant");
    values.push_back(pad.getValue().convertToFloat());
  }
  std::sort(values.begin(), values.end());
  CHECK(values == std::vector<float>{0.0f, 0.5f});
  for (fuse::PadOp pad : pads)
    CHECK(shapeOf(pad.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 3, 18, 18});
}

TEST_CASE("mlp's Transpose(W) folds into a transposed constant", "[onnx]") {
  TestContext test;
  auto module = import::importOnnxModel(modelPath("mlp"), test.context);
  INFO(test.diagnostics);
  REQUIRE(module);

  onnx::ModelProto model;
  std::ifstream file(modelPath("mlp"), std::ios::binary);
  REQUIRE(model.ParseFromIstream(&file));
  const onnx::TensorProto *weight = nullptr;
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    if (initializer.name() == "0.weight")
      weight = &initializer;
  REQUIRE(weight);
  std::vector<float> w(weight->raw_data().size() / sizeof(float));
  std::memcpy(w.data(), weight->raw_data().data(), weight->raw_data().size());

  auto matmuls = opsOfType<fuse::MatMulOp>(*module);
  REQUIRE(matmuls.size() == 2);
  Value rhs = matmuls.front().getRhs();
  REQUIRE(shapeOf(rhs) == std::vector<int64_t>{32, 64});
  auto data = fuse::getConstantData(rhs);
  REQUIRE(data);
  // W is [64, 32]; the MatMul reads W^T.
  bool transposed = true;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 64; ++j)
      transposed &= (*data)[i * 64 + j] == w[j * 32 + i];
  CHECK(transposed);
}

//===----------------------------------------------------------------------===//
// Folding on small models
//===----------------------------------------------------------------------===//

TEST_CASE("a Reshape target built from Shape keeps the batch dimension", "[onnx]") {
  // Reshape(x, Concat(Gather(Shape(x), [0]), [-1])), the usual flatten.
  TestModel model;
  model.input("x", {"batch", "2", "3"});
  model.node("Shape", {"x"}, {"shape"});
  model.constantInts("zero", {0});
  model.node("Gather", {"shape", "zero"}, {"batch_size"});
  model.constantInts("rest", {-1});
  TestModel::setInt(model.node("Concat", {"batch_size", "rest"}, {"target"}), "axis", 0);
  model.node("Reshape", {"x", "target"}, {"y"}, "flatten");
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  CHECK(computeOps(*module) == std::map<std::string, int>{{"Reshape", 1}});
  auto reshape = opsOfType<fuse::ReshapeOp>(*module).front();
  CHECK(reshape.getShape() == ArrayRef<int64_t>{0, 6});
  CHECK(shapeOf(reshape.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 6});
}

TEST_CASE("Reshape with allowzero = 1 imports as the exporter means it", "[onnx]") {
  // PyTorch's exporter: Reshape(x, Concat(Gather(Shape(x), [0]), [6]))
  // with allowzero = 1 on every Reshape; without a 0 in the shape it means
  // what allowzero = 0 does.
  auto build = [](int64_t rest) {
    TestModel model(14);
    model.input("x", {"batch", "2", "3"});
    model.node("Shape", {"x"}, {"shape"});
    model.constantInts("zero", {0});
    model.node("Gather", {"shape", "zero"}, {"batch_size"});
    model.constantInts("rest", {rest});
    TestModel::setInt(model.node("Concat", {"batch_size", "rest"}, {"target"}), "axis", 0);
    TestModel::setInt(model.node("Reshape", {"x", "target"}, {"y"}, "view"), "allowzero", 1);
    model.output("y");
    return model;
  };
  TestContext test;
  auto module = build(6).import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto reshape = opsOfType<fuse::ReshapeOp>(*module).front();
  CHECK(reshape.getShape() == ArrayRef<int64_t>{0, 6});
  CHECK(shapeOf(reshape.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 6});

  // A 0 there is an empty dimension (allowzero = 0 would copy the input's 2).
  TestContext empty;
  CHECK_FALSE(build(0).import(empty));
  CHECK_THAT(empty.diagnostics, Catch::Matchers::Contains("Reshape with allowzero = 1: the shape's 0 makes an empty "
                                                          "tensor, which fusec does not compute"));
}

TEST_CASE("Shape after a Pad with computed pads is static", "[onnx]") {
  // The pads come from a Concat, which ONNX shape inference on the original
  // model cannot see through; the importer infers on the folded model.
  TestModel model;
  model.input("x", {"batch", "3", "4", "4"});
  model.constantInts("begin", {0, 0, 1, 1});
  model.constantInts("end", {0, 0, 1, 1});
  TestModel::setInt(model.node("Concat", {"begin", "end"}, {"pads"}), "axis", 0);
  model.node("Pad", {"x", "pads"}, {"padded"}, "pad");
  model.node("Shape", {"padded"}, {"shape"});
  model.constantInts("first_three", {0, 1, 2});
  model.node("Gather", {"shape", "first_three"}, {"kept"});
  model.constantInts("rest", {-1});
  TestModel::setInt(model.node("Concat", {"kept", "rest"}, {"target"}), "axis", 0);
  model.node("Reshape", {"padded", "target"}, {"y"}, "reshape");
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto reshape = opsOfType<fuse::ReshapeOp>(*module).front();
  CHECK(reshape.getShape() == ArrayRef<int64_t>{0, 3, 6, 6});
  CHECK(shapeOf(reshape.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 3, 6, 6});
}

TEST_CASE("Squeeze and Unsqueeze of run-time tensors become Reshapes", "[onnx]") {
  TestModel model;
  model.input("x", {"batch", "1", "4"});
  model.constantInts("axis1", {1});
  model.node("Squeeze", {"x", "axis1"}, {"squeezed"});
  model.constantInts("axis0", {0});
  model.node("Unsqueeze", {"squeezed", "axis0"}, {"y"});
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto reshapes = opsOfType<fuse::ReshapeOp>(*module);
  REQUIRE(reshapes.size() == 2);
  CHECK(reshapes[0].getShape() == ArrayRef<int64_t>{0, 4});
  CHECK(reshapes[1].getShape() == ArrayRef<int64_t>{1, -1, 4});
  CHECK(shapeOf(reshapes[1].getResult()) == std::vector<int64_t>{1, ShapedType::kDynamic, 4});
}

TEST_CASE("Dropout imports as its inference form and constant outputs survive", "[onnx]") {
  TestModel model;
  model.input("x", {"batch", "4"});
  model.node("Dropout", {"x"}, {"y", "unused_mask"}, "dropout");
  model.constantInts("shape", {2, 2});
  TestModel::setInt(model.node("Cast", {"shape"}, {"shape_float"}), "to", onnx::TensorProto::FLOAT);
  model.output("y");
  model.output("shape_float");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  CHECK(computeOps(*module).empty());
  func::FuncOp main = mainFunction(*module);
  auto returned = cast<func::ReturnOp>(main.getBody().front().getTerminator());
  CHECK(returned.getOperand(0) == main.getArgument(0));
  CHECK(fuse::getConstantData(returned.getOperand(1)) == std::vector<float>{2.0f, 2.0f});
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_CASE("a file that is not ONNX is reported with its name", "[onnx][errors]") {
  llvm::SmallString<128> path;
  int fd;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("fusec-garbage", "onnx", fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    for (int i = 0; i < 256; ++i)
      os << static_cast<char>((i * 167 + 13) & 0xff);
  }
  TestContext test;
  CHECK_FALSE(import::importOnnxModel(path, test.context));
  llvm::sys::fs::remove(path);
  CHECK_THAT(test.diagnostics, Catch::Contains(path.str().str()) && Catch::Contains("not an ONNX model"));

  TestContext missing;
  CHECK_FALSE(import::importOnnxModel("/nonexistent/model.onnx", missing.context));
  CHECK_THAT(missing.diagnostics, Catch::Contains("/nonexistent/model.onnx") && Catch::Contains("cannot read"));
}

TEST_CASE("unsupported ops are listed in one error with a node each", "[onnx][errors]") {
  TestModel model;
  model.input("x", {"batch", "4", "8"});
  model.node("Relu", {"x"}, {"a"}, "relu");
  model.node("LSTM", {"a"}, {"b"}, "lstm_1");
  model.node("GRU", {"b"}, {"c"}, "up");
  model.node("LSTM", {"c"}, {"d"}, "lstm_2");
  model.node("NonZero", {"d"}, {"e"});
  model.node("FusedConv", {"e"}, {"f"}, "fused").set_domain("com.example");
  model.output("f");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("unsupported ONNX ops: LSTM (node 'lstm_1'), GRU (node 'up'), "
                                               "NonZero (node 'NonZero_4'), com.example.FusedConv (node 'fused')"));
  CHECK(std::count(test.diagnostics.begin(), test.diagnostics.end(), '\n') == 1);
}

TEST_CASE("a Reshape shape known only at run time is an error naming the node", "[onnx][errors]") {
  TestModel model;
  model.input("x", {"batch", "4"});
  model.input("target", {"2"}, onnx::TensorProto::INT64);
  model.node("Reshape", {"x", "target"}, {"y"}, "reshape_node");
  model.output("y");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("reshape_node") &&
                                   Catch::Contains("input 1 ('shape') must be a constant") &&
                                   Catch::Contains("'target' is computed at run time"));
}

TEST_CASE("a run-time node without its first output is an error naming the node", "[onnx][errors]") {
  // Found by fusec-fuzz-onnx: a Reshape of a batch tensor with no outputs
  // reached the batch-group rewrite, which names its results after output 0.
  for (std::vector<std::string> outputs : {std::vector<std::string>{}, std::vector<std::string>{""}}) {
    TestModel model;
    model.input("x", {"batch", "4"});
    model.constantInts("target", {-1, 2});
    model.node("Reshape", {"x", "target"}, outputs, "reshape_node");
    model.node("Relu", {"x"}, {"y"});
    model.output("y");

    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics,
               Catch::Contains("reshape_node") &&
                   Catch::Contains(outputs.empty() ? "Reshape has no outputs" : "Reshape has no first output"));
  }
}

TEST_CASE("a second symbolic dimension needs a size", "[onnx][errors]") {
  TestModel model;
  model.input("x", {"batch", "4"});
  model.input("y", {"batch", "seq"});
  model.node("Add", {"x", "y"}, {"z"});
  model.output("z");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("graph input 'y' has symbolic dimension 'seq', but the batch is "
                                               "'batch' (a plan has one dynamic dimension, the batch: give the "
                                               "others a size or a range, e.g. fusec --dim seq=SIZE or --dim "
                                               "seq=MIN:MAX)"));
}

TEST_CASE("named dimensions given sizes import as static sizes, through shape inference and folding", "[onnx]") {
  // x [batch, seq, 8] and y [batch, 32]: with seq = 4, Shape(x) folds to
  // [batch, 4, 8] and reshapes y; the Add's inferred shape is static but for
  // the batch.
  TestModel model;
  model.input("x", {"batch", "seq", "8"});
  model.input("y", {"batch", "32"});
  model.node("Shape", {"x"}, {"shape"});
  model.node("Reshape", {"y", "shape"}, {"r"});
  model.node("Add", {"x", "r"}, {"z"});
  model.output("z");

  TestContext test;
  auto module = import::importOnnxModel(model.model, "test.onnx", test.context, {{"seq", 4}});
  INFO(test.diagnostics);
  REQUIRE(module);
  func::FuncOp main = mainFunction(*module);
  CHECK(shapeOf(main.getArgument(0)) == std::vector<int64_t>{ShapedType::kDynamic, 4, 8});
  CHECK(shapeOf(main.getBody().front().getTerminator()->getOperand(0)) ==
        std::vector<int64_t>{ShapedType::kDynamic, 4, 8});

  // A size for the batch symbol too: nothing is dynamic.
  TestContext fixed;
  auto all = import::importOnnxModel(model.model, "test.onnx", fixed.context, {{"seq", 4}, {"batch", 2}});
  INFO(fixed.diagnostics);
  REQUIRE(all);
  CHECK(shapeOf(mainFunction(*all).getArgument(1)) == std::vector<int64_t>{2, 32});

  // A size for a name no input has is an error listing the names there are.
  TestContext typo;
  CHECK_FALSE(import::importOnnxModel(model.model, "test.onnx", typo.context, {{"seq", 4}, {"sq", 4}}));
  CHECK_THAT(typo.diagnostics, Catch::Contains("a size is given for dimension 'sq', which no graph "
                                               "input has (they have 'batch', 'seq')"));
}

TEST_CASE("arithmetic on the batch size without a polynomial value is an error", "[onnx][errors]") {
  // batch / 4: no expression over the batch size says what it is.
  TestModel model;
  model.input("x", {"batch", "2", "3"});
  model.node("Shape", {"x"}, {"shape"});
  model.constantInts("four", {4});
  model.node("Div", {"shape", "four"}, {"scaled"}, "quarter");
  model.node("Reshape", {"x", "scaled"}, {"y"});
  model.output("y");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics,
             Catch::Contains("quarter") && Catch::Contains("batch Div 4 has no value before run time"));
}

TEST_CASE("a reshape that merges the batch with the heads imports as one of the batch and the heads",
          "[onnx][batchgroup]") {
  // MultiheadAttention's [seq, batch, 8] -> [seq, batch*2, 4] -> transpose
  // -> softmax -> transpose back -> [seq, batch, 8], with the sizes computed
  // from Shape as the exporter writes them.
  TestModel model;
  model.input("x", {"5", "batch", "8"});
  model.node("Shape", {"x"}, {"shape"});
  model.constantInts("one", {1});
  model.node("Gather", {"shape", "one"}, {"b"});
  model.constantInts("two", {2});
  model.node("Mul", {"b", "two"}, {"bh"});
  model.constantInts("seq", {5});
  model.constantInts("dim", {4});
  TestModel::setInt(model.node("Concat", {"seq", "bh", "dim"}, {"target"}), "axis", 0);
  model.node("Reshape", {"x", "target"}, {"heads"}, "split_heads");
  TestModel::setInts(model.node("Transpose", {"heads"}, {"t"}), "perm", {1, 0, 2});
  TestModel::setInt(model.node("Softmax", {"t"}, {"p"}), "axis", -1);
  TestModel::setInts(model.node("Transpose", {"p"}, {"back"}), "perm", {1, 0, 2});
  model.constantInts("merged", {5, -1, 8});
  model.node("Reshape", {"back", "merged"}, {"y"});
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  // The merged dimension is kept as [batch, 2]: rank-4 tensors, the
  // transposes permuting both, the softmax on the last axis.
  CHECK_THAT(text, Catch::Contains("tensor<5x?x2x4xf32>") && Catch::Contains("tensor<?x2x5x4xf32>") &&
                       Catch::Contains("array<i64: 1, 2, 0, 3>") && Catch::Contains("array<i64: 2, 0, 1, 3>"));

  // The same graph returning the merged tensor is refused: a plan's outputs
  // hold the batch as a dimension of its own.
  TestModel merged;
  merged.input("x", {"5", "batch", "8"});
  merged.constantInts("target", {5, -1, 4});
  merged.node("Reshape", {"x", "target"}, {"y"});
  merged.output("y");
  TestContext refused;
  CHECK_FALSE(merged.import(refused));
  CHECK_THAT(refused.diagnostics, Catch::Contains("graph output 'y' has dimension 1 of size 2*batch"));

  // A Softmax along the merged dimension would normalise over the batch.
  TestModel across;
  across.input("x", {"5", "batch", "8"});
  across.constantInts("target", {5, -1, 4});
  across.node("Reshape", {"x", "target"}, {"heads"});
  TestModel::setInt(across.node("Softmax", {"heads"}, {"y"}, "across"), "axis", 1);
  across.output("y");
  TestContext axis;
  CHECK_FALSE(across.import(axis));
  CHECK_THAT(axis.diagnostics, Catch::Contains("across") && Catch::Contains("Softmax along dimension 1"));

  // An op without a rewrite for the split dimension is refused before it
  // reads the wrong shape.
  TestModel reduced;
  reduced.input("x", {"5", "batch", "8"});
  reduced.constantInts("target", {5, -1, 4});
  reduced.node("Reshape", {"x", "target"}, {"heads"});
  TestModel::setInts(reduced.node("ReduceMax", {"heads"}, {"y"}, "reduce"), "axes", {2});
  reduced.output("y");
  TestContext unsupported;
  CHECK_FALSE(reduced.import(unsupported));
  CHECK_THAT(unsupported.diagnostics,
             Catch::Contains("reduce") && Catch::Contains("ReduceMax reads 'heads' of shape [5, 2*batch, 4]"));

  // A broadcast operand whose size on the merged dimension is not 1.
  TestModel broadcast;
  broadcast.input("x", {"5", "batch", "8"});
  broadcast.constantInts("target", {5, -1, 4});
  broadcast.node("Reshape", {"x", "target"}, {"heads"});
  broadcast.input("bias", {"5", "2", "4"});
  broadcast.node("Add", {"heads", "bias"}, {"y"}, "add_bias");
  broadcast.output("y");
  TestContext mismatch;
  CHECK_FALSE(broadcast.import(mismatch));
  CHECK_THAT(mismatch.diagnostics,
             Catch::Contains("add_bias") && Catch::Contains("broadcasts 'bias' (dimension 1 of size 2) against a "
                                                            "dimension that merges the batch size"));
}

TEST_CASE("an opset outside the supported range is an error", "[onnx][errors]") {
  TestModel model(/*opset=*/6);
  model.input("x", {"batch", "4"});
  model.node("Relu", {"x"}, {"y"});
  model.output("y");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("ai.onnx opset 6 is not supported"));
}

TEST_CASE("negative and implausibly large input dimensions are rejected", "[onnx][errors]") {
  auto importWithDim = [](int64_t size) {
    TestModel model;
    model.input("x", {"batch", "4"});
    model.model.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(1)
        ->set_dim_value(size);
    model.node("Relu", {"x"}, {"y"});
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    return test.diagnostics;
  };
  // -1 used to become the batch dimension in the plan.
  CHECK_THAT(importWithDim(-1), Catch::Contains("graph input 'x' has dimension 1 of size -1 (sizes must be >= 0"));
  CHECK_THAT(importWithDim(int64_t(1) << 61), Catch::Contains("graph input 'x' has an implausibly large shape"));
}

// Found by fusec-fuzz-onnx (test/fuzz/regressions/onnx/size-of-overflowing-shape.onnx):
// Size multiplied the dims ONNX shape inference gave a tensor without a check,
// and a broadcast of two plausible inputs can have more elements than int64_t
// counts.
TEST_CASE("a shape inferred beyond any tensor's size is an error", "[onnx][errors]") {
  TestModel model;
  model.input("x", {"batch", "4294967296", "1"});
  model.input("y", {"batch", "1", "4294967296"});
  model.node("Add", {"x", "y"}, {"sum"});
  model.node("Size", {"sum"}, {"count"}, "count");
  model.node("Reshape", {"x", "count"}, {"z"});
  model.output("z");

  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("count") && Catch::Contains("the shape ONNX shape inference gives 'sum' "
                                                                           "has more elements than a tensor may hold"));
}

TEST_CASE("out-of-range pooling flags name the node", "[onnx][errors]") {
  TestModel model;
  model.input("x", {"batch", "2", "8", "8"});
  onnx::NodeProto &pool = model.node("MaxPool", {"x"}, {"y"}, "pool");
  onnx::AttributeProto &kernel = *pool.add_attribute();
  kernel.set_name("kernel_shape");
  kernel.set_type(onnx::AttributeProto::INTS);
  kernel.add_ints(2);
  kernel.add_ints(2);
  TestModel::setInt(pool, "ceil_mode", -1);
  model.output("y");
  TestContext test;
  CHECK_FALSE(model.import(test));
  CHECK_THAT(test.diagnostics,
             Catch::Contains("pool") && Catch::Contains("MaxPool attribute 'ceil_mode' must be 0 or 1, got -1"));
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {

/// The little-endian bytes of `values`, as raw_data holds them.
template <typename T> std::string rawBytes(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T));
}

Type elementOf(Type type) { return cast<RankedTensorType>(type).getElementType(); }

/// The plan bytes of the fuse.constant defining `value`.
std::vector<uint8_t> constantBytesOf(Value value) {
  auto constant = value.getDefiningOp<fuse::ConstantOp>();
  REQUIRE(constant);
  std::vector<uint8_t> storage;
  auto bytes = fuse::constantBytes(constant.getValue(), storage);
  REQUIRE(bytes);
  return {bytes->begin(), bytes->end()};
}

std::vector<uint8_t> bytesOf(const std::string &raw) { return {raw.begin(), raw.end()}; }

} // namespace

TEST_CASE("int64 token ids are an i64 argument that fuse.cast converts", "[onnx][types]") {
  TestModel model;
  model.input("ids", {"batch", "8"}, onnx::TensorProto::INT64);
  TestModel::setInt(model.node("Cast", {"ids"}, {"ids_f"}, "to_float"), "to", onnx::TensorProto::FLOAT);
  model.initializer("scale", onnx::TensorProto::FLOAT, {}, rawBytes(std::vector<float>{0.5f}));
  model.node("Mul", {"ids_f", "scale"}, {"y"}, "scale_ids");
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  func::FuncOp main = mainFunction(*module);
  CHECK(elementOf(main.getArgumentTypes()[0]).isInteger(64));
  CHECK(shapeOf(main.getArgument(0)) == std::vector<int64_t>{ShapedType::kDynamic, 8});
  CHECK(computeOps(*module) == std::map<std::string, int>{{"Cast", 1}, {"Mul", 1}});
  auto cast = opsOfType<fuse::CastOp>(*module).front();
  CHECK(cast.getTo() == "f32");
  CHECK(cast.getInput() == main.getArgument(0));
  CHECK(elementOf(cast.getType()).isF32());
  CHECK(elementOf(main.getResultTypes()[0]).isF32());
}

TEST_CASE("an fp16 model imports as f16 ops with its weights' bits intact", "[onnx][types]") {
  TestModel model;
  model.input("x", {"batch", "1", "4", "4"}, onnx::TensorProto::FLOAT16);
  // 36 weights (stored as a resource blob) in raw_data, 4 biases (inline)
  // in int32_data; subnormals, -0 and NaN must survive.
  std::vector<uint16_t> weightBits;
  for (int i = 0; i < 36; ++i)
    weightBits.push_back(static_cast<uint16_t>(0x3C00 + 37 * i));
  weightBits[0] = 0x0001; // smallest subnormal
  weightBits[1] = 0x8000; // -0
  weightBits[2] = 0x7E01; // a NaN
  model.initializer("w", onnx::TensorProto::FLOAT16, {4, 1, 3, 3}, rawBytes(weightBits));
  std::vector<uint16_t> biasBits = {0x3555, 0xBC00, 0x03FF, 0x7BFF};
  onnx::TensorProto &bias = model.initializer("b", onnx::TensorProto::FLOAT16, {4}, "");
  bias.clear_raw_data();
  for (uint16_t bits : biasBits)
    bias.add_int32_data(bits);
  onnx::NodeProto &conv = model.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  onnx::AttributeProto &kernel = *conv.add_attribute();
  kernel.set_name("kernel_shape");
  kernel.set_type(onnx::AttributeProto::INTS);
  kernel.add_ints(3);
  kernel.add_ints(3);
  model.node("Relu", {"c"}, {"y"}, "relu");
  model.output("y", onnx::TensorProto::FLOAT16);

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  func::FuncOp main = mainFunction(*module);
  CHECK(elementOf(main.getArgumentTypes()[0]).isF16());
  CHECK(elementOf(main.getResultTypes()[0]).isF16());
  auto convOp = opsOfType<fuse::ConvOp>(*module).front();
  CHECK(elementOf(convOp.getType()).isF16());
  CHECK(elementOf(opsOfType<fuse::ReluOp>(*module).front().getType()).isF16());
  CHECK(elementOf(convOp.getWeight().getType()).isF16());
  CHECK(constantBytesOf(convOp.getWeight()) == bytesOf(rawBytes(weightBits)));
  CHECK(constantBytesOf(convOp.getBias()) == bytesOf(rawBytes(biasBits)));
}

TEST_CASE("bf16 initializers and Casts folded to bf16 are bf16 constants", "[onnx][types]") {
  TestModel model;
  model.input("x", {"batch", "4"}, onnx::TensorProto::BFLOAT16);
  std::vector<uint16_t> biasBits = {0x3F80, 0xC000, 0x0001, 0x3DCD};
  model.initializer("b", onnx::TensorProto::BFLOAT16, {4}, rawBytes(biasBits));
  model.node("Add", {"x", "b"}, {"sum"}, "add_bias");
  // 0.1 is not a bf16 value: folding the Cast must round it (to 0x3DCD).
  model.initializer("tenth", onnx::TensorProto::FLOAT, {1}, rawBytes(std::vector<float>{0.1f}));
  TestModel::setInt(model.node("Cast", {"tenth"}, {"tenth_bf16"}, "to_bf16"), "to", onnx::TensorProto::BFLOAT16);
  model.node("Mul", {"sum", "tenth_bf16"}, {"y"}, "scale");
  model.output("y", onnx::TensorProto::BFLOAT16);

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  CHECK(computeOps(*module) == std::map<std::string, int>{{"Add", 1}, {"Mul", 1}});
  auto add = opsOfType<fuse::AddOp>(*module).front();
  CHECK(elementOf(add.getRhs().getType()).isBF16());
  CHECK(constantBytesOf(add.getRhs()) == bytesOf(rawBytes(biasBits)));
  auto mul = opsOfType<fuse::MulOp>(*module).front();
  CHECK(elementOf(mul.getType()).isBF16());
  CHECK(constantBytesOf(mul.getRhs()) == bytesOf(rawBytes(std::vector<uint16_t>{0x3DCD})));
}

TEST_CASE("folding a Cast through FLOAT16 rounds the value", "[onnx][types]") {
  TestModel model;
  model.input("x", {"batch", "1"});
  model.initializer("tenth", onnx::TensorProto::FLOAT, {1}, rawBytes(std::vector<float>{0.1f}));
  TestModel::setInt(model.node("Cast", {"tenth"}, {"tenth_half"}), "to", onnx::TensorProto::FLOAT16);
  TestModel::setInt(model.node("Cast", {"tenth_half"}, {"tenth_back"}), "to", onnx::TensorProto::FLOAT);
  model.node("Mul", {"x", "tenth_back"}, {"y"}, "scale");
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto mul = opsOfType<fuse::MulOp>(*module).front();
  // 0.1 in f16 is 1638 / 16384.
  CHECK(fuse::getConstantData(mul.getRhs()) == std::vector<float>{0.0999755859375f});
}

TEST_CASE("integer exponents take the base's type and Casts to the same type vanish", "[onnx][types]") {
  TestModel model;
  model.input("x", {"batch", "2"}, onnx::TensorProto::FLOAT16);
  TestModel::setInt(model.node("Cast", {"x"}, {"same"}, "noop_cast"), "to", onnx::TensorProto::FLOAT16);
  model.constantInts("two", {2, 3});
  model.node("Pow", {"same", "two"}, {"y"}, "square");
  model.output("y", onnx::TensorProto::FLOAT16);

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  CHECK(computeOps(*module) == std::map<std::string, int>{{"Pow", 1}});
  auto pow = opsOfType<fuse::PowOp>(*module).front();
  CHECK(pow.getLhs() == mainFunction(*module).getArgument(0));
  CHECK(elementOf(pow.getRhs().getType()).isF16());
  CHECK(constantBytesOf(pow.getRhs()) == bytesOf(rawBytes(std::vector<uint16_t>{0x4000, 0x4200})));
}

TEST_CASE("unsupported element types are errors naming the tensor or node", "[onnx][types][errors]") {
  SECTION("a DOUBLE input") {
    TestModel model;
    model.input("x", {"batch", "4"}, onnx::TensorProto::DOUBLE);
    model.node("Relu", {"x"}, {"y"});
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("graph input 'x' has element type DOUBLE, which fusec does not "
                                                 "support"));
  }
  SECTION("a Cast to UINT16") {
    TestModel model;
    model.input("x", {"batch", "4"});
    TestModel::setInt(model.node("Cast", {"x"}, {"y"}, "to_words"), "to", onnx::TensorProto::UINT16);
    model.output("y", onnx::TensorProto::UINT16);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("to_words") && Catch::Contains("Cast to UINT16 is not supported"));
  }
  SECTION("a STRING initializer") {
    TestModel model;
    model.input("x", {"batch", "4"});
    onnx::TensorProto &labels = model.initializer("labels", onnx::TensorProto::STRING, {1}, "");
    labels.clear_raw_data();
    labels.add_string_data("cat");
    model.node("Relu", {"x"}, {"y"});
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("tensor 'labels': element type STRING is not supported"));
  }
  SECTION("a DOUBLE initializer used at run time") {
    TestModel model;
    model.input("x", {"batch", "2"});
    model.initializer("scale", onnx::TensorProto::DOUBLE, {2}, rawBytes(std::vector<double>{1.0, 2.0}));
    model.node("Mul", {"x", "scale"}, {"y"}, "scale_x");
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("scale_x") &&
                                     Catch::Contains("tensor 'scale' has element type DOUBLE, which fusec does not "
                                                     "support at run time"));
  }
  SECTION("a declared output type the graph does not compute") {
    TestModel model;
    model.input("x", {"batch", "4"});
    model.node("Relu", {"x"}, {"y"});
    model.output("y", onnx::TensorProto::FLOAT16);
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("graph output 'y' is declared f16 but the graph computes f32"));
  }
  SECTION("an op mixing f32 and f16 operands") {
    TestModel model;
    model.input("x", {"batch", "2"});
    model.initializer("half", onnx::TensorProto::FLOAT16, {2}, rawBytes(std::vector<uint16_t>{0x3C00, 0x4000}));
    model.node("Mul", {"x", "half"}, {"y"}, "mixed_mul");
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics,
               Catch::Contains("mixed_mul") && Catch::Contains("operands must share one element type"));
  }
}

namespace {

/// `model` written to a temporary file, compiled for sm_90 (NVRTC compiles
/// the kernels: the f16 and i64 code must compile) and loaded; the plan runs
/// on the CPU backend, which executes GPU plans too.
std::shared_ptr<const runtime::Plan> compileModel(const TestModel &model, const std::string &name) {
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile(name, "onnx", path));
  {
    std::ofstream file(path.str().str(), std::ios::binary);
    REQUIRE(model.model.SerializeToOstream(&file));
  }
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = path.str().str();
  options.plan.target = "sm_90";
  auto bytes = compileToPlan(*context, options);
  llvm::sys::fs::remove(path);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(bytes));
  return std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(std::move(*bytes), name));
}

} // namespace

TEST_CASE("an ONNX model with int64 token ids compiles and runs", "[onnx][types]") {
  TestModel model;
  model.input("ids", {"batch", "8"}, onnx::TensorProto::INT64);
  TestModel::setInt(model.node("Cast", {"ids"}, {"ids_f"}, "to_float"), "to", onnx::TensorProto::FLOAT);
  model.initializer("scale", onnx::TensorProto::FLOAT, {}, rawBytes(std::vector<float>{0.5f}));
  model.node("Mul", {"ids_f", "scale"}, {"y"}, "scale_ids");
  model.output("y");
  auto plan = compileModel(model, "ids");
  CHECK(plan->inputs().front().dtype == runtime::ElementType::I64);

  // 2^24 + 1 is not a float: Cast rounds it to 2^24.
  std::vector<int64_t> ids = {0, 1, 2, 3, 100, -7, 40000, (int64_t(1) << 24) + 1};
  runtime::Session session(plan, runtime::Device::Cpu);
  auto outputs = session.run(
      1, {{"ids", runtime::Tensor::fromBytes({1, 8}, runtime::ElementType::I64, ids.data(), ids.size() * 8)}});
  std::vector<float> expected = {0, 0.5f, 1, 1.5f, 50, -3.5f, 20000, float(1 << 23)};
  CHECK(outputs.at("y").values() == expected);
}

TEST_CASE("an fp16 ONNX model compiles and runs in f16", "[onnx][types]") {
  TestModel model;
  model.input("x", {"batch", "1", "4", "4"}, onnx::TensorProto::FLOAT16);
  model.initializer("w", onnx::TensorProto::FLOAT16, {2, 1, 3, 3}, rawBytes(std::vector<uint16_t>(18, 0x3C00)));
  // Biases 0.5 and -100.
  model.initializer("b", onnx::TensorProto::FLOAT16, {2}, rawBytes(std::vector<uint16_t>{0x3800, 0xD640}));
  onnx::NodeProto &conv = model.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  onnx::AttributeProto &kernel = *conv.add_attribute();
  kernel.set_name("kernel_shape");
  kernel.set_type(onnx::AttributeProto::INTS);
  kernel.add_ints(3);
  kernel.add_ints(3);
  model.node("Relu", {"c"}, {"y"}, "relu");
  model.output("y", onnx::TensorProto::FLOAT16);
  auto plan = compileModel(model, "conv16");
  CHECK(plan->outputs().front().dtype == runtime::ElementType::F16);

  // x = 0..15: each 3x3 window sum is an integer, exact in f16 with the bias.
  std::vector<uint16_t> x;
  for (int i = 0; i < 16; ++i)
    x.push_back(fusec::floatToHalfBits(float(i)));
  runtime::Session session(plan, runtime::Device::Cpu);
  auto outputs = session.run(
      1, {{"x", runtime::Tensor::fromBytes({1, 1, 4, 4}, runtime::ElementType::F16, x.data(), x.size() * 2)}});
  const runtime::Tensor &y = outputs.at("y");
  REQUIRE(y.elementType() == runtime::ElementType::F16);
  // Windows at (0,0), (0,1), (1,0), (1,1) of the 4x4 ramp sum to 45, 54, 81, 90.
  std::vector<double> expected = {45.5, 54.5, 81.5, 90.5, 0, 0, 0, 0};
  CHECK(y.toDoubles() == expected);
}

//===----------------------------------------------------------------------===//
// Run-time data movement
//===----------------------------------------------------------------------===//

TEST_CASE("an embedding with a padding mask: Gather, Slice, Split, Unsqueeze and Expand at run time",
          "[onnx][data-movement]") {
  // ids [batch, 4] (int64) look up rows of a [6, 2] table; the padding mask
  // (ids == 0) is unsqueezed and expanded over 3 rows; the embedding is
  // sliced to positions 1..2 and split into its two features.
  TestModel model;
  model.input("ids", {"batch", "4"}, onnx::TensorProto::INT64);
  model.initializer("table", onnx::TensorProto::FLOAT, {6, 2},
                    rawBytes(std::vector<float>{0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51}));
  model.node("Gather", {"table", "ids"}, {"embedded"}, "embed");
  model.initializer("pad_id", onnx::TensorProto::INT64, {}, rawBytes(std::vector<int64_t>{0}));
  model.node("Equal", {"ids", "pad_id"}, {"is_pad"}, "is_pad");
  model.constantInts("axis1", {1});
  model.node("Unsqueeze", {"is_pad", "axis1"}, {"is_pad3"}, "unsqueeze");
  model.constantInts("rows", {1, 3, 4});
  model.node("Expand", {"is_pad3", "rows"}, {"mask"}, "expand");
  model.constantInts("start", {1});
  model.constantInts("end", {3});
  model.constantInts("axis", {1});
  model.node("Slice", {"embedded", "start", "end", "axis"}, {"middle"}, "slice");
  model.constantInts("halves", {1, 1});
  TestModel::setInt(model.node("Split", {"middle", "halves"}, {"first", "second"}, "split"), "axis", 2);
  model.output("mask", onnx::TensorProto::BOOL);
  model.output("first");
  model.output("second");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  CHECK(computeOps(*module) ==
        std::map<std::string, int>{{"Gather", 1}, {"Equal", 1}, {"Reshape", 1}, {"Expand", 1}, {"Slice", 3}});

  auto plan = compileModel(model, "embedding");
  std::vector<int64_t> ids = {3, 0, 5, 1, 0, 2, 2, 4};
  runtime::Session session(plan, runtime::Device::Cpu);
  auto outputs = session.run(
      2, {{"ids", runtime::Tensor::fromBytes({2, 4}, runtime::ElementType::I64, ids.data(), ids.size() * 8)}});
  CHECK(outputs.at("mask").shape() == runtime::Shape{2, 3, 4});
  CHECK(outputs.at("mask").toDoubles() ==
        std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  // Positions 1 and 2: ids 0, 5 and 2, 2.
  CHECK(outputs.at("first").shape() == runtime::Shape{2, 2, 1});
  CHECK(outputs.at("first").values() == std::vector<float>{0, 50, 20, 20});
  CHECK(outputs.at("second").values() == std::vector<float>{1, 51, 21, 21});
}

TEST_CASE("a Split with an unnamed trailing output still divides the axis among all its declared outputs",
          "[onnx][data-movement]") {
  // Three equal parts of 6 columns; the graph uses the first two. The
  // unnamed third output still takes its share: parts of 2, not of 3.
  TestModel model(13);
  model.input("x", {"batch", "6"});
  TestModel::setInt(model.node("Split", {"x"}, {"a", "b", ""}, "split"), "axis", 1);
  model.output("a");
  model.output("b");

  auto plan = compileModel(model, "split_unnamed_output");
  runtime::Session session(plan, runtime::Device::Cpu);
  auto outputs = session.run(1, {{"x", runtime::Tensor({1, 6}, {0, 1, 2, 3, 4, 5})}});
  CHECK(outputs.at("a").values() == std::vector<float>{0, 1});
  CHECK(outputs.at("b").values() == std::vector<float>{2, 3});
}

TEST_CASE("a class token expanded to the batch size is concatenated with the patches and runs",
          "[onnx][data-movement]") {
  // ViT: Concat(Expand(token [1, 1, 3], [batch, 1, 3]), x [batch, 2, 3]) along
  // axis 1; the target shape comes from Shape(x).
  TestModel model(13);
  model.input("x", {"batch", "2", "3"});
  model.initializer("token", onnx::TensorProto::FLOAT, {1, 1, 3}, rawBytes(std::vector<float>{7, 8, 9}));
  model.node("Shape", {"x"}, {"shape"});
  model.constantInts("zero", {0});
  model.node("Gather", {"shape", "zero"}, {"batch_size"});
  model.constantInts("rest", {1, 3});
  TestModel::setInt(model.node("Concat", {"batch_size", "rest"}, {"target"}), "axis", 0);
  model.node("Expand", {"token", "target"}, {"tokens"}, "expand_token");
  TestModel::setInt(model.node("Concat", {"tokens", "x"}, {"y"}, "prepend"), "axis", 1);
  model.output("y");

  TestContext test;
  auto module = model.import(test);
  INFO(test.diagnostics);
  REQUIRE(module);
  auto expand = opsOfType<fuse::ExpandOp>(*module).front();
  CHECK(expand.getShape() == ArrayRef<int64_t>{-1, 1, 3});
  CHECK(shapeOf(expand.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 1, 3});

  auto plan = compileModel(model, "class_token");
  runtime::Session session(plan, runtime::Device::Cpu);
  auto outputs = session.run(2, {{"x", runtime::Tensor({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6})}});
  CHECK(outputs.at("y").values() == std::vector<float>{7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6});
}

TEST_CASE("a Slice whose end is the batch size keeps the batch whole and other batch slices are errors",
          "[onnx][data-movement][errors]") {
  {
    // x[:batch, 1:] with the end taken from Shape(x).
    TestModel model(13);
    model.input("x", {"batch", "3"});
    model.node("Shape", {"x"}, {"shape"});
    model.constantInts("zero", {0});
    model.node("Gather", {"shape", "zero"}, {"batch_size"});
    model.constantInts("one", {1});
    model.constantInts("three", {3});
    TestModel::setInt(model.node("Concat", {"batch_size", "three"}, {"ends"}), "axis", 0);
    model.constantInts("starts", {0, 1});
    model.node("Slice", {"x", "starts", "ends"}, {"y"}, "slice");
    model.output("y");
    TestContext test;
    auto module = model.import(test);
    INFO(test.diagnostics);
    REQUIRE(module);
    auto slice = opsOfType<fuse::SliceOp>(*module).front();
    CHECK(shapeOf(slice.getResult()) == std::vector<int64_t>{ShapedType::kDynamic, 2});
  }
  {
    TestModel model(13);
    model.input("x", {"batch", "3"});
    model.constantInts("starts", {1});
    model.constantInts("ends", {2});
    model.constantInts("axes", {0});
    model.node("Slice", {"x", "starts", "ends", "axes"}, {"y"}, "slice_batch");
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("slice_batch") &&
                                     Catch::Contains("Slice of the batch dimension (axis 0) is not supported"));
  }
  {
    TestModel model(13);
    model.input("x", {"batch", "3"});
    model.initializer("where", onnx::TensorProto::FLOAT, {1}, rawBytes(std::vector<float>{1}));
    model.node("Gather", {"x", "where"}, {"y"}, "float_indices");
    model.output("y");
    TestContext test;
    CHECK_FALSE(model.import(test));
    CHECK_THAT(test.diagnostics, Catch::Contains("float_indices") &&
                                     Catch::Contains("Gather indices are 'f32'; they must be int64 or int32"));
  }
}

// ScatterND on constants (what exporters write for slice assignments, as in
// Swin's shifted-window mask) is evaluated at import: elements and slices,
// negative indices, and the opset-16 reductions.
TEST_CASE("ScatterND on constants is evaluated at import", "[onnx][fold]") {
  TestModel model(/*opset=*/16);
  model.input("x", {"batch", "8"});
  model.input("x2", {"batch", "2", "3"});
  model.initializer("data", onnx::TensorProto::FLOAT, {8}, rawBytes(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  model.initializer("indices", onnx::TensorProto::INT64, {4, 1}, rawBytes(std::vector<int64_t>{4, 3, 1, 7}));
  model.initializer("updates", onnx::TensorProto::FLOAT, {4}, rawBytes(std::vector<float>{9, 10, 11, 12}));
  model.node("ScatterND", {"data", "indices", "updates"}, {"scattered"}, "scatter");
  model.node("Add", {"x", "scattered"}, {"y"}, "add");
  model.initializer("grid", onnx::TensorProto::FLOAT, {2, 3}, rawBytes(std::vector<float>{1, 2, 3, 4, 5, 6}));
  model.initializer("cells", onnx::TensorProto::INT64, {3, 2}, rawBytes(std::vector<int64_t>{0, 1, -1, 2, 0, 1}));
  model.initializer("amounts", onnx::TensorProto::FLOAT, {3}, rawBytes(std::vector<float>{10, 20, 30}));
  onnx::NodeProto &add = model.node("ScatterND", {"grid", "cells", "amounts"}, {"summed"}, "scatter_add");
  onnx::AttributeProto &reduction = *add.add_attribute();
  reduction.set_name("reduction");
  reduction.set_type(onnx::AttributeProto::STRING);
  reduction.set_s("add");
  model.node("Add", {"x2", "summed"}, {"y2"}, "add2");
  model.output("y");
  model.output("y2");

  const auto plan = compileModel(model, "scatter_nd");
  runtime::Session session(plan, runtime::Device::Cpu);
  const auto outputs = session.run(1, {{"x", runtime::Tensor({1, 8}, std::vector<float>(8, 0.0f))},
                                       {"x2", runtime::Tensor({1, 2, 3}, std::vector<float>(6, 0.0f))}});
  CHECK(outputs.at("y").values() == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
  CHECK(outputs.at("y2").values() == std::vector<float>{1, 42, 3, 4, 5, 26});
}

TEST_CASE("ScatterND says what it needs: constants, indices in range, matching updates", "[onnx][fold][errors]") {
  TestModel runtimeData;
  runtimeData.input("x", {"batch", "8"});
  runtimeData.initializer("indices", onnx::TensorProto::INT64, {1, 2}, rawBytes(std::vector<int64_t>{0, 1}));
  runtimeData.initializer("updates", onnx::TensorProto::FLOAT, {1}, rawBytes(std::vector<float>{1}));
  runtimeData.node("ScatterND", {"x", "indices", "updates"}, {"y"}, "scatter");
  runtimeData.output("y");
  TestContext test;
  CHECK_FALSE(runtimeData.import(test));
  CHECK_THAT(test.diagnostics, Catch::Contains("\"scatter\"") &&
                                   Catch::Contains("ScatterND on run-time values is not supported: fusec evaluates "
                                                   "ScatterND only at import, and its input 'x' is only known at run "
                                                   "time"));

  const struct {
    std::vector<int64_t> indexDims, indices;
    std::vector<int64_t> updateDims;
    std::string message;
  } cases[] = {
      {{1, 1}, {8}, {1}, "index 8 is out of range for a dimension of 8"},
      {{1, 2}, {0, 0}, {1}, "the last dimension of 'indices' (2) must be between 1 and the rank of 'data' (1)"},
      {{2, 1}, {0, 1}, {3}, "'updates' has shape [3], but 'indices' and 'data' need [2]"},
  };
  for (const auto &c : cases) {
    INFO(c.message);
    TestModel model;
    model.input("x", {"batch", "8"});
    model.initializer("data", onnx::TensorProto::FLOAT, {8}, rawBytes(std::vector<float>(8, 1.0f)));
    model.initializer("indices", onnx::TensorProto::INT64, c.indexDims, rawBytes(c.indices));
    const int64_t updates =
        std::accumulate(c.updateDims.begin(), c.updateDims.end(), int64_t{1}, std::multiplies<int64_t>());
    model.initializer("updates", onnx::TensorProto::FLOAT, c.updateDims,
                      rawBytes(std::vector<float>(static_cast<size_t>(updates), 2.0f)));
    model.node("ScatterND", {"data", "indices", "updates"}, {"s"}, "scatter");
    model.node("Add", {"x", "s"}, {"y"}, "add");
    model.output("y");
    TestContext bad;
    CHECK_FALSE(model.import(bad));
    CHECK_THAT(bad.diagnostics, Catch::Contains("ScatterND cannot be evaluated at import: " + c.message));
  }
}

TEST_CASE("ReduceLogSumExp does not overflow where exp(x) would", "[onnx]") {
  TestModel model(/*opset=*/13);
  model.input("x", {"batch", "2", "3"});
  auto reduce = [&](const std::string &output, int64_t keepdims) {
    onnx::NodeProto &node = model.node("ReduceLogSumExp", {"x"}, {output}, output);
    onnx::AttributeProto &axes = *node.add_attribute();
    axes.set_name("axes");
    axes.set_type(onnx::AttributeProto::INTS);
    axes.add_ints(-1);
    onnx::AttributeProto &keep = *node.add_attribute();
    keep.set_name("keepdims");
    keep.set_type(onnx::AttributeProto::INT);
    keep.set_i(keepdims);
    model.output(output);
  };
  reduce("kept", 1);
  reduce("dropped", 0);

  const auto plan = compileModel(model, "reduce_log_sum_exp");
  runtime::Session session(plan, runtime::Device::Cpu);
  // exp(100) and exp(1000) overflow f32; the result does not.
  const std::vector<float> x = {1, 2, 3, 100, 1000, -5};
  const auto outputs = session.run(1, {{"x", runtime::Tensor({1, 2, 3}, x)}});
  const double first = 3 + std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  CHECK(outputs.at("kept").shape() == std::vector<int64_t>{1, 2, 1});
  CHECK(outputs.at("dropped").shape() == std::vector<int64_t>{1, 2});
  for (const char *name : {"kept", "dropped"}) {
    INFO(name);
    const std::vector<float> values = outputs.at(name).values();
    REQUIRE(values.size() == 2);
    CHECK(values[0] == Approx(first).epsilon(1e-6));
    CHECK(values[1] == Approx(1000.0).epsilon(1e-6));
  }
}

TEST_CASE("CastLike casts run-time data to its second input's type without reading that input", "[onnx][types]") {
  TestModel model(/*opset=*/15);
  model.input("x", {"batch", "4"});
  model.input("like", {"batch", "2"}, onnx::TensorProto::INT32);
  model.node("CastLike", {"x", "like"}, {"y"}, "cast_like");
  model.output("y", onnx::TensorProto::INT32);
  auto plan = compileModel(model, "cast_like");
  // The values of `like` are never needed: only `x` is a kernel input.
  runtime::Session session(plan, runtime::Device::Cpu);
  std::vector<int32_t> like = {0, 0};
  auto outputs =
      session.run(1, {{"x", runtime::Tensor({1, 4}, std::vector<float>{1.5f, -2.75f, 7.0f, 100.25f})},
                      {"like", runtime::Tensor::fromBytes({1, 2}, runtime::ElementType::I32, like.data(), 8)}});
  const runtime::Tensor &y = outputs.at("y");
  REQUIRE(y.elementType() == runtime::ElementType::I32);
  CHECK(y.toDoubles() == std::vector<double>{1, -2, 7, 100});
}
