//===- OnnxExternalDataTest.cpp - Initializers stored beside the model ----===//

#include "OnnxTestModel.h"

#include "ir/ConstantData.h"
#include "ir/FuseOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

using namespace fusec;
using Catch::Matchers::Contains;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using test::TestContext;
using test::TestModel;

namespace {

/// A fresh directory under the temp directory, removed with this object.
struct ModelDirectory {
  ModelDirectory() {
    llvm::SmallString<128> made;
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("fusec-external-data", made));
    path = made.str().str();
  }
  ~ModelDirectory() { llvm::sys::fs::remove_directories(path); }
  std::string file(const std::string &name) const { return path + "/" + name; }
  void write(const std::string &name, const std::string &bytes) const {
    std::ofstream(file(name), std::ios::binary) << bytes;
  }

  std::string path;
};

std::string floatBytes(const std::vector<float> &values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// y = x + w, with w (4 floats) stored externally with `entries`.
TestModel externalModel(const std::vector<std::pair<std::string, std::string>> &entries) {
  TestModel model(13);
  model.input("x", {"batch", "4"});
  onnx::TensorProto &weight = model.initializer("w", onnx::TensorProto::FLOAT, {4}, "");
  weight.clear_raw_data();
  weight.set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto &[key, value] : entries) {
    onnx::StringStringEntryProto &entry = *weight.add_external_data();
    entry.set_key(key);
    entry.set_value(value);
  }
  model.node("Add", {"x", "w"}, {"y"}, "add");
  model.output("y");
  return model;
}

OwningOpRef<ModuleOp> importFrom(const ModelDirectory &dir, const TestModel &model, TestContext &test) {
  return import::importOnnxModel(model.model, dir.file("model.onnx"), test.context);
}

/// The values of the (only) constant of `module` with 4 elements.
std::vector<float> weightValues(ModuleOp module) {
  std::vector<float> values;
  module.walk([&](fuse::ConstantOp constant) {
    auto type = llvm::cast<mlir::RankedTensorType>(constant.getType());
    if (type.getNumElements() == 4)
      values = fuse::getConstantData(constant.getResult()).value_or(std::vector<float>{});
  });
  return values;
}

} // namespace

TEST_CASE("initializers stored in a file beside the model are read at their offset", "[onnx][external-data]") {
  ModelDirectory dir;
  const std::vector<float> weights = {1.5f, -2.0f, 0.25f, 8.0f};
  // Another tensor's bytes first, as exporters pack several into one file.
  dir.write("model.onnx.data", std::string(64, '\x7f') + floatBytes(weights) + std::string(3, '\0'));
  const std::string digest = llvm::toHex(
      llvm::SHA1::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(floatBytes(weights).data()), 16)),
      /*LowerCase=*/true);
  for (bool withLength : {true, false}) {
    INFO((withLength ? "with length and checksum" : "to the end of the file"));
    std::vector<std::pair<std::string, std::string>> entries = {{"location", "model.onnx.data"}, {"offset", "64"}};
    if (withLength) {
      entries.emplace_back("length", "16");
      entries.emplace_back("checksum", digest);
    }
    TestContext test;
    auto module = importFrom(dir, externalModel(entries), test);
    if (withLength) {
      REQUIRE(module);
      CHECK(weightValues(*module) == weights);
    } else {
      // 19 bytes to the end of the file: not a whole number of floats.
      CHECK_FALSE(module);
      CHECK_THAT(test.diagnostics, Contains("tensor 'w': raw_data is not a whole number of elements"));
    }
  }
  // In a subdirectory of the model's directory.
  llvm::sys::fs::create_directory(dir.file("weights"));
  dir.write("weights/w.bin", floatBytes(weights));
  TestContext test;
  auto module = importFrom(dir, externalModel({{"location", "weights/w.bin"}}), test);
  REQUIRE(module);
  CHECK(weightValues(*module) == weights);
}

TEST_CASE("external data that leaves the model's directory, is missing or is cut short is an error",
          "[onnx][external-data]") {
  ModelDirectory dir;
  dir.write("w.bin", floatBytes({1, 2, 3, 4}));
  ModelDirectory elsewhere;
  elsewhere.write("secret.bin", floatBytes({9, 9, 9, 9}));
  REQUIRE(!llvm::sys::fs::create_link(elsewhere.file("secret.bin"), dir.file("link.bin")));
  REQUIRE(!llvm::sys::fs::create_directory(dir.file("sub")));
  struct Case {
    std::vector<std::pair<std::string, std::string>> entries;
    std::string error;
  };
  const Case cases[] = {
      {{{"location", "../" + llvm::sys::path::filename(elsewhere.path).str() + "/secret.bin"}},
       "external data '../" + llvm::sys::path::filename(elsewhere.path).str() +
           "/secret.bin' leaves the model's directory ('..')"},
      {{{"location", elsewhere.file("secret.bin")}}, "is an absolute path"},
      {{{"location", "link.bin"}}, "external data 'link.bin' leaves the model's directory (it resolves to"},
      {{{"location", "missing.bin"}}, "external data 'missing.bin' cannot be opened"},
      {{{"location", "w.bin"}, {"offset", "8"}, {"length", "16"}},
       "external data 'w.bin' holds 16 bytes, fewer than the tensor's range [8, 24)"},
      {{{"location", "w.bin"}, {"offset", "-4"}}, "external data 'offset' is '-4', not a byte count"},
      {{{"location", "w.bin"}, {"checksum", "00"}}, "external data 'w.bin' does not match its SHA-1 checksum"},
      {{{"location", "w.bin"}, {"compression", "zstd"}}, "external data has the unknown entry 'compression'"},
      {{{"offset", "0"}}, "external data names no 'location'"},
      {{{"location", "sub"}}, "external data 'sub' is a directory"},
  };
  for (const Case &test : cases) {
    INFO(test.error);
    TestContext context;
    auto module = importFrom(dir, externalModel(test.entries), context);
    CHECK_FALSE(module);
    CHECK_THAT(context.diagnostics, Contains("tensor 'w': " + test.error) || Contains(test.error));
  }
}

TEST_CASE("fusec compiles a model whose weights are external and writes no plan when they are missing",
          "[onnx][external-data]") {
  ModelDirectory dir;
  const std::vector<float> weights = {1, 2, 3, 4};
  dir.write("w.bin", floatBytes(weights));
  const TestModel model = externalModel({{"location", "w.bin"}});
  {
    std::ofstream out(dir.file("model.onnx"), std::ios::binary);
    REQUIRE(model.model.SerializeToOstream(&out));
  }
  TestContext test;
  auto module = import::importOnnxModel(dir.file("model.onnx"), test.context);
  REQUIRE(module);
  CHECK(weightValues(*module) == weights);

  llvm::sys::fs::remove(dir.file("w.bin"));
  TestContext missing;
  CHECK_FALSE(import::importOnnxModel(dir.file("model.onnx"), missing.context));
  CHECK_THAT(missing.diagnostics, Contains(dir.file("model.onnx")));
  CHECK_THAT(missing.diagnostics, Contains("tensor 'w': external data 'w.bin' cannot be opened"));
}
