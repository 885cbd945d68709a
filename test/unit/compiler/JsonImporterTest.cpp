//===- JsonImporterTest.cpp - The JSON importer's in-memory entry point ----===//
//
// importJsonModelFromBuffer must read a document exactly as importJsonModel
// reads the same file: same module, same diagnostics, 'weights' resolved
// against the path it is given.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/JsonImporter.h"
#include "compiler/Diagnostics.h"
#include "compiler/import/Safetensors.h"
#include "ir/ConstantData.h"
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace mlir;
using namespace fusec;

namespace {

std::string inputPath(const std::string &name) {
  return std::string(FUSEC_TEST_DATA_DIR) + "/../lit/import/Inputs/" + name;
}

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

std::string fileText(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  REQUIRE(buffer);
  return (*buffer)->getBuffer().str();
}

std::string printed(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

} // namespace

TEST_CASE("a JSON graph in memory imports as the same file does, weights included") {
  for (const char *name : {"good.json", "weights.json"}) {
    INFO(name);
    std::string path = inputPath(name);
    // One context each: a second import into the same context would rename
    // its weight blobs (conv_weight_1).
    auto fileContext = makeContext(), bufferContext = makeContext();
    DiagnosticCollector fileDiagnostics(fileContext.get()), bufferDiagnostics(bufferContext.get());
    OwningOpRef<ModuleOp> fromFile = import::importJsonModel(path, *fileContext);
    OwningOpRef<ModuleOp> fromBuffer = import::importJsonModelFromBuffer(fileText(path), path, *bufferContext);
    REQUIRE(fromFile);
    REQUIRE(fromBuffer);
    CHECK(printed(*fromBuffer) == printed(*fromFile));
    CHECK(fileDiagnostics.text().empty());
    CHECK(bufferDiagnostics.text().empty());
  }
}

TEST_CASE("a JSON graph in memory is reported under the path it stands for") {
  auto context = makeContext();
  DiagnosticCollector diagnostics(context.get());
  SECTION("malformed JSON points at the line and column") {
    CHECK_FALSE(import::importJsonModelFromBuffer("{\n  \"format\": ]", "/no/such/dir/model.json", *context));
    CHECK_THAT(diagnostics.text(), Catch::Contains("/no/such/dir/model.json:2:") && Catch::Contains("malformed JSON"));
  }
  SECTION("a weights file resolves against the path's directory") {
    std::string text = fileText(inputPath("weights.json"));
    CHECK_FALSE(import::importJsonModelFromBuffer(text, "/no/such/dir/weights.json", *context));
    CHECK_THAT(diagnostics.text(), Catch::Contains("/no/such/dir/weights.safetensors"));
  }
}

TEST_CASE("f32 weights read in place from the mapped file hold the file's values, aligned or not") {
  llvm::SmallString<128> dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("fusec-weights", dir));
  const std::string weightsPath = (dir + "/w.safetensors").str(), modelPath = (dir + "/model.json").str();
  // `a` starts the data (aligned: mapped in place); `w` follows a 1-byte
  // tensor, so it is misaligned for floats and copied.
  import::GraphConstant a, flag, w;
  a.name = "a";
  a.shape = {1000};
  flag.name = "flag";
  flag.dtype = import::DType::I1;
  flag.shape = {1};
  flag.ints = {1};
  w.name = "w";
  w.shape = {1000};
  for (int i = 0; i < 1000; ++i) {
    a.data.push_back(0.5f * float(i));
    w.data.push_back(-float(i));
  }
  auto context = makeContext();
  DiagnosticCollector diagnostics(context.get());
  REQUIRE(succeeded(import::writeSafetensors(weightsPath, UnknownLoc::get(context.get()), {a, flag, w})));
  const std::string model = R"({"format": "fusec-graph", "version": 1, "weights": "w.safetensors",
    "inputs": [{"name": "x", "shape": ["n", 1000]}], "outputs": ["z"],
    "nodes": [{"name": "add", "op": "Add", "inputs": ["x", "a"], "outputs": ["y"]},
              {"name": "mul", "op": "Mul", "inputs": ["y", "w"], "outputs": ["z"]}]})";
  OwningOpRef<ModuleOp> module = import::importJsonModelFromBuffer(model, modelPath, *context);
  INFO(diagnostics.text());
  REQUIRE(module);
  // The constants keep the mapping alive: the file may go.
  llvm::sys::fs::remove(weightsPath);
  llvm::sys::fs::remove(dir);
  std::vector<std::vector<float>> constants;
  module->walk([&](fuse::ConstantOp constant) {
    if (auto data = fuse::getConstantData(constant.getValue()))
      constants.push_back(*data);
  });
  REQUIRE(constants.size() == 2);
  CHECK(constants[0] == a.data);
  CHECK(constants[1] == w.data);
}
