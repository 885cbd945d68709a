//===- OnnxConstantFoldingTest.cpp - ONNX nodes evaluated at import -------===//
#include "compiler/import/OnnxConstantFolding.h"
#include "compiler/import/Graph.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace fusec::import;

namespace {

/// Folds one node built from `opType`, `attributes` and `inputs`.
struct Folder {
  Folder() {
    handler.emplace(&context, [this](mlir::Diagnostic &diagnostic) {
      diagnostics += diagnostic.str() + "\n";
      return mlir::success();
    });
  }

  mlir::FailureOr<KnownTensor> fold(onnx::NodeProto node, std::vector<KnownTensor> inputs, int64_t opset = 13) {
    std::vector<const KnownTensor *> pointers;
    for (const KnownTensor &input : inputs) {
      node.add_input("in");
      pointers.push_back(&input);
    }
    node.add_output("out");
    auto results = foldOnnxNode(node, opset, pointers, mlir::UnknownLoc::get(&context));
    if (mlir::failed(results))
      return mlir::failure();
    return results->front();
  }

  mlir::MLIRContext context;
  std::string diagnostics;
  std::optional<mlir::ScopedDiagnosticHandler> handler;
};

onnx::NodeProto node(const std::string &opType) {
  onnx::NodeProto node;
  node.set_op_type(opType);
  return node;
}

onnx::NodeProto &withInt(onnx::NodeProto &node, const std::string &name, int64_t value) {
  onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INT);
  attribute.set_i(value);
  return node;
}

onnx::NodeProto &withInts(onnx::NodeProto &node, const std::string &name, const std::vector<int64_t> &values) {
  onnx::AttributeProto &attribute = *node.add_attribute();
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INTS);
  for (int64_t value : values)
    attribute.add_ints(value);
  return node;
}

KnownTensor ints(std::vector<int64_t> shape, const std::vector<int64_t> &values) {
  return KnownTensor::ofInts(std::move(shape), values);
}

KnownTensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  return KnownTensor::ofFloats(std::move(shape), std::move(values));
}

const DimExpr kBatch = DimExpr::symbol("batch");

} // namespace

TEST_CASE("Slice with a negative step reverses, clamping huge bounds", "[onnx][folding]") {
  // pad_conv's exporter reverses pads with ends = -INT64_MAX.
  Folder folder;
  int64_t veryNegative = -std::numeric_limits<int64_t>::max();
  auto result = folder.fold(node("Slice"), {ints({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4}), ints({1}, {-1}),
                                            ints({1}, {veryNegative}), ints({1}, {0}), ints({1}, {-1})});
  INFO(folder.diagnostics);
  REQUIRE(mlir::succeeded(result));
  CHECK(result->shape == std::vector<int64_t>{4, 2});
  CHECK(result->staticInts() == std::vector<int64_t>{4, 4, 3, 3, 2, 2, 1, 1});

  auto strided = folder.fold(node("Slice"), {floats({6}, {0, 1, 2, 3, 4, 5}), ints({1}, {1}), ints({1}, {100}),
                                             ints({1}, {0}), ints({1}, {2})});
  REQUIRE(mlir::succeeded(strided));
  CHECK(strided->floats == std::vector<float>{1, 3, 5});
}

TEST_CASE("Gather takes negative and multi-dimensional indices", "[onnx][folding]") {
  Folder folder;
  onnx::NodeProto gather = node("Gather");
  withInt(gather, "axis", 1);
  auto result = folder.fold(gather, {floats({2, 3}, {0, 1, 2, 10, 11, 12}), ints({2, 1}, {-1, 0})});
  INFO(folder.diagnostics);
  REQUIRE(mlir::succeeded(result));
  CHECK(result->shape == std::vector<int64_t>{2, 2, 1});
  CHECK(result->floats == std::vector<float>{2, 0, 12, 10});
}

TEST_CASE("Transpose, Concat and Reshape rearrange constants", "[onnx][folding]") {
  Folder folder;
  onnx::NodeProto transpose = node("Transpose");
  withInts(transpose, "perm", {2, 0, 1});
  auto transposed = folder.fold(transpose, {floats({2, 1, 3}, {0, 1, 2, 3, 4, 5})});
  REQUIRE(mlir::succeeded(transposed));
  CHECK(transposed->shape == std::vector<int64_t>{3, 2, 1});
  CHECK(transposed->floats == std::vector<float>{0, 3, 1, 4, 2, 5});

  onnx::NodeProto concat = node("Concat");
  withInt(concat, "axis", -1);
  auto joined = folder.fold(concat, {floats({2, 1}, {0, 1}), floats({2, 2}, {2, 3, 4, 5})});
  REQUIRE(mlir::succeeded(joined));
  CHECK(joined->shape == std::vector<int64_t>{2, 3});
  CHECK(joined->floats == std::vector<float>{0, 2, 3, 1, 4, 5});

  auto reshaped = folder.fold(node("Reshape"), {*joined, ints({2}, {0, -1})});
  REQUIRE(mlir::succeeded(reshaped));
  CHECK(reshaped->shape == std::vector<int64_t>{2, 3});
}

TEST_CASE("Range, Cast and ConstantOfShape make new constants", "[onnx][folding]") {
  Folder folder;
  auto range = folder.fold(node("Range"), {ints({}, {10}), ints({}, {3}), ints({}, {-3})});
  REQUIRE(mlir::succeeded(range));
  CHECK(range->staticInts() == std::vector<int64_t>{10, 7, 4});

  auto floatRange = folder.fold(node("Range"), {floats({}, {0}), floats({}, {1}), floats({}, {0.25f})});
  REQUIRE(mlir::succeeded(floatRange));
  CHECK(floatRange->floats == std::vector<float>{0, 0.25f, 0.5f, 0.75f});

  onnx::NodeProto cast = node("Cast");
  withInt(cast, "to", onnx::TensorProto::INT64);
  auto truncated = folder.fold(cast, {floats({3}, {1.9f, -1.9f, 0})});
  REQUIRE(mlir::succeeded(truncated));
  CHECK(truncated->staticInts() == std::vector<int64_t>{1, -1, 0});

  auto zeros = folder.fold(node("ConstantOfShape"), {ints({2}, {2, 3})});
  REQUIRE(mlir::succeeded(zeros));
  CHECK(zeros->shape == std::vector<int64_t>{2, 3});
  CHECK(zeros->floats == std::vector<float>(6, 0.0f));
}

TEST_CASE("Cast folds to each target type as fuse.cast computes it", "[onnx][folding]") {
  Folder folder;
  auto castTo = [&](int32_t to, KnownTensor input) {
    onnx::NodeProto cast = node("Cast");
    withInt(cast, "to", to);
    auto result = folder.fold(cast, {std::move(input)});
    REQUIRE(mlir::succeeded(result));
    CHECK(result->elemType == to);
    return *result;
  };
  // Rounded to nearest even: 0.1 and 1/3 are no f16 or bf16 values.
  CHECK(castTo(onnx::TensorProto::FLOAT16, floats({2}, {0.1f, 65520.0f})).floats ==
        std::vector<float>{0.0999755859375f, std::numeric_limits<float>::infinity()});
  CHECK(castTo(onnx::TensorProto::BFLOAT16, floats({1}, {1.0f / 3})).floats == std::vector<float>{0.333984375f});
  CHECK(castTo(onnx::TensorProto::FLOAT16, ints({1}, {2049})).floats == std::vector<float>{2048.0f});
  // Float to integer truncates and saturates; NaN gives 0.
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(castTo(onnx::TensorProto::INT32, floats({4}, {3e9f, -3e9f, nan, -2.5f})).staticInts() ==
        std::vector<int64_t>{2147483647, -2147483648LL, 0, -2});
  CHECK(castTo(onnx::TensorProto::INT64, floats({1}, {1e30f})).staticInts() ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::max()});
  // int64 to int32 keeps the low 32 bits.
  CHECK(castTo(onnx::TensorProto::INT32, ints({1}, {(int64_t(1) << 32) + 5})).staticInts() == std::vector<int64_t>{5});
}

TEST_CASE("Squeeze and Unsqueeze shapes", "[onnx][folding]") {
  Folder folder;
  mlir::Location loc = mlir::UnknownLoc::get(&folder.context);
  CHECK(*squeezeShape({1, 3, 1}, std::nullopt, loc) == std::vector<int64_t>{3});
  CHECK(*squeezeShape({kBatchDim, 1, 4}, std::vector<int64_t>{-2}, loc) == std::vector<int64_t>{kBatchDim, 4});
  CHECK(mlir::failed(squeezeShape({kBatchDim, 4}, std::vector<int64_t>{0}, loc)));
  CHECK(*unsqueezeShape({kBatchDim, 4}, {0, 3}, loc) == std::vector<int64_t>{1, kBatchDim, 4, 1});
}

TEST_CASE("shape arithmetic on the batch size folds to expressions over it", "[onnx][folding]") {
  Folder folder;
  KnownTensor shape = KnownTensor::ofInts({2}, {kBatch, DimExpr(6)});
  auto same = folder.fold(node("Mul"), {shape, ints({2}, {4, 2})});
  REQUIRE(mlir::succeeded(same));
  CHECK(intsToString(*same) == "[4*batch, 12]");

  auto cancelled = folder.fold(node("Sub"), {shape, shape});
  REQUIRE(mlir::succeeded(cancelled));
  CHECK(cancelled->staticInts() == std::vector<int64_t>{0, 0});

  auto plusOne = folder.fold(node("Add"), {shape, ints({}, {1})});
  REQUIRE(mlir::succeeded(plusOne));
  CHECK(intsToString(*plusOne) == "[batch + 1, 7]");

  // (4*batch) / 4 is exact; batch / 4 has no polynomial value.
  auto heads = folder.fold(node("Div"), {*same, ints({}, {4})});
  REQUIRE(mlir::succeeded(heads));
  CHECK(intsToString(*heads) == "[batch, 3]");
  CHECK(mlir::failed(folder.fold(node("Div"), {shape, ints({}, {4})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("batch Div 4 has no value before run time"));

  // (4*batch + 6) mod 4 is 2 whatever the batch; batch mod 4 is not known.
  KnownTensor offset = KnownTensor::ofInts({}, {*DimExpr::add(*DimExpr::mul(kBatch, 4), 6)});
  auto remainder = folder.fold(node("Mod"), {offset, ints({}, {4})});
  REQUIRE(mlir::succeeded(remainder));
  CHECK(remainder->staticInts() == std::vector<int64_t>{2});
  CHECK(mlir::failed(folder.fold(node("Mod"), {KnownTensor::ofInts({}, {kBatch}), ints({}, {4})})));

  onnx::NodeProto cast = node("Cast");
  withInt(cast, "to", onnx::TensorProto::FLOAT);
  CHECK(mlir::failed(folder.fold(cast, {shape})));
}

TEST_CASE("comparisons, Where, Max and Min on the batch size fold where every batch size agrees", "[onnx][folding]") {
  Folder folder;
  KnownTensor shape = KnownTensor::ofInts({2}, {kBatch, DimExpr(6)});
  // The class token's Expand: Where(Equal(shape, -1), 1, shape).
  auto unknown = folder.fold(node("Equal"), {shape, ints({2}, {-1, -1})});
  REQUIRE(mlir::succeeded(unknown));
  CHECK(unknown->staticInts() == std::vector<int64_t>{0, 0});
  CHECK(unknown->elemType == onnx::TensorProto::BOOL);
  auto target = folder.fold(node("Where"), {*unknown, ints({2}, {1, 1}), shape});
  REQUIRE(mlir::succeeded(target));
  CHECK(intsToString(*target) == "[batch, 6]");

  // batch >= 1 holds for every batch size, batch > 1 does not.
  auto atLeastOne = folder.fold(node("GreaterOrEqual"), {shape, ints({2}, {1, 1})});
  REQUIRE(mlir::succeeded(atLeastOne));
  CHECK(atLeastOne->staticInts() == std::vector<int64_t>{1, 1});
  CHECK(mlir::failed(folder.fold(node("Greater"), {shape, ints({2}, {1, 1})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("whether batch Greater 1 holds depends on the batch size"));

  auto largest = folder.fold(node("Max"), {shape, ints({2}, {1, 7})});
  REQUIRE(mlir::succeeded(largest));
  CHECK(intsToString(*largest) == "[batch, 7]");
  CHECK(mlir::failed(folder.fold(node("Min"), {shape, ints({2}, {2, 2})})));
}

// Found by fusec-fuzz-onnx (test/fuzz/regressions/onnx): a ConstantOfShape of
// 66 million integers took over 10 s and 1.5 GB, and a 7 KB model folded a
// million pads; Range and broadcasting arithmetic could do the same, and
// integer arithmetic on constants could overflow.
TEST_CASE("folding refuses tensors over its limits and integer overflow", "[onnx][folding]") {
  Folder folder;
  constexpr int64_t kMaxInts = int64_t(1) << 18;
  onnx::NodeProto intFill = node("ConstantOfShape");
  onnx::AttributeProto &value = *intFill.add_attribute();
  value.set_name("value");
  value.set_type(onnx::AttributeProto::TENSOR);
  value.mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value.mutable_t()->add_dims(1);
  value.mutable_t()->add_int64_data(7);
  CHECK(mlir::failed(folder.fold(intFill, {ints({1}, {kMaxInts + 1})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("[262145] is too large to fold (more than 262144 integers)"));
  auto largestInts = folder.fold(intFill, {ints({1}, {kMaxInts})});
  REQUIRE(mlir::succeeded(largestInts));
  CHECK(largestInts->ints.size() == size_t(kMaxInts));
  CHECK(largestInts->ints.back() == DimExpr(7));
  CHECK(mlir::failed(folder.fold(node("ConstantOfShape"), {ints({2}, {1 << 13, 1 << 13 | 1})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("more than 67108864 floats"));

  onnx::NodeProto concat = node("Concat");
  withInt(concat, "axis", 0);
  CHECK(mlir::failed(folder.fold(concat, {*largestInts, ints({1}, {1})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("Concat cannot be evaluated at import: its result holds more than"));

  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  CHECK(mlir::failed(folder.fold(node("Range"), {ints({}, {kMin}), ints({}, {kMax}), ints({}, {1})})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("holds more than 262144 integers"));
  auto extremes = folder.fold(node("Range"), {ints({}, {kMin}), ints({}, {kMax}), ints({}, {int64_t(1) << 62})});
  REQUIRE(mlir::succeeded(extremes));
  CHECK(extremes->staticInts() == std::vector<int64_t>{kMin, -(int64_t(1) << 62), 0, int64_t(1) << 62});
  float inf = std::numeric_limits<float>::infinity();
  CHECK(mlir::failed(folder.fold(node("Range"), {floats({}, {0}), floats({}, {inf}), floats({}, {1})})));
  CHECK(mlir::failed(folder.fold(node("Range"), {floats({}, {0}), floats({}, {1e30f}), floats({}, {1e-30f})})));

  std::vector<int64_t> column(1 << 10, 1);
  CHECK(mlir::failed(folder.fold(node("Add"), {ints({1 << 10, 1}, column), ints({1, 1 << 10}, column)})));
  CHECK_THAT(folder.diagnostics, Catch::Contains("the result [1024, 1024] holds more than 262144 integers"));

  for (const char *op : {"Add", "Sub", "Mul", "Div"}) {
    INFO(op);
    int64_t lhs = std::string(op) == "Sub" ? kMin : std::string(op) == "Div" ? kMin : kMax;
    int64_t rhs = std::string(op) == "Div" ? -1 : std::string(op) == "Mul" ? 2 : 1;
    CHECK(mlir::failed(folder.fold(node(op), {ints({}, {lhs}), ints({}, {rhs})})));
  }
  CHECK_THAT(folder.diagnostics, Catch::Contains("overflows 64-bit integers"));
}

TEST_CASE("Expand folds by numpy broadcasting, symbolic elements included", "[onnx][folding]") {
  Folder folder;
  KnownTensor row = KnownTensor::ofInts({1, 2}, {kBatch, DimExpr(6)});
  auto tiled = folder.fold(node("Expand"), {row, ints({2}, {3, 1})});
  REQUIRE(mlir::succeeded(tiled));
  CHECK(tiled->shape == std::vector<int64_t>{3, 2});
  CHECK(intsToString(*tiled) == "[batch, 6, batch, 6, batch, 6]");
  auto grown = folder.fold(node("Expand"), {floats({3, 1}, {1, 2, 3}), ints({3}, {2, 1, 2})});
  REQUIRE(mlir::succeeded(grown));
  CHECK(grown->shape == std::vector<int64_t>{2, 3, 2});
  CHECK(grown->floats == std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  CHECK(mlir::failed(folder.fold(node("Expand"), {row, ints({2}, {3, 4})})));
}

TEST_CASE("Trilu folds a constant to its triangle (a causal mask)", "[onnx][folding]") {
  Folder folder;
  std::vector<float> ones(2 * 3 * 3, 1.0f);
  onnx::NodeProto lower = node("Trilu");
  auto causal = folder.fold(withInt(lower, "upper", 0), {floats({2, 3, 3}, ones)}, 14);
  REQUIRE(mlir::succeeded(causal));
  CHECK(causal->shape == std::vector<int64_t>{2, 3, 3});
  CHECK(causal->floats == std::vector<float>{1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1});
  // The default is upper; k moves the diagonal, and a wide matrix keeps its columns.
  auto upper = folder.fold(node("Trilu"), {ints({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), ints({}, {1})}, 14);
  REQUIRE(mlir::succeeded(upper));
  CHECK(intsToString(*upper) == "[0, 2, 3, 4, 0, 0, 7, 8]");
  onnx::NodeProto below = node("Trilu");
  auto strict = folder.fold(withInt(below, "upper", 0), {floats({3, 2}, {1, 2, 3, 4, 5, 6}), ints({}, {-1})}, 14);
  REQUIRE(mlir::succeeded(strict));
  CHECK(strict->floats == std::vector<float>{0, 0, 3, 0, 5, 6});
  CHECK(mlir::failed(folder.fold(node("Trilu"), {floats({3}, {1, 2, 3})}, 14)));
  CHECK(folder.diagnostics.find("the input has rank 1, Trilu needs 2 or more") != std::string::npos);
}

TEST_CASE("Sqrt and Reciprocal fold float constants (an attention scale computed from the head size)",
          "[onnx][folding]") {
  Folder folder;
  // TorchScript's scaled_dot_product_attention: sqrt(1 / sqrt(D)) for D = 16.
  auto root = folder.fold(node("Sqrt"), {floats({1}, {16.0f})});
  REQUIRE(mlir::succeeded(root));
  CHECK(root->floats == std::vector<float>{4.0f});
  auto inverse = folder.fold(node("Reciprocal"), {floats({2}, {4.0f, -0.5f})});
  REQUIRE(mlir::succeeded(inverse));
  CHECK(inverse->floats == std::vector<float>{0.25f, -2.0f});
  CHECK(mlir::failed(folder.fold(node("Sqrt"), {ints({1}, {4})})));
  CHECK(folder.diagnostics.find("Sqrt takes floats") != std::string::npos);
}
