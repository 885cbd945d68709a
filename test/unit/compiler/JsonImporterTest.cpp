//===- JsonImporterTest.cpp - The JSON importer's in-memory entry point ----===//
//
// importJsonModelFromBuffer must read a document exactly as importJsonModel
// reads the same file: same module, same diagnostics, 'weights' resolved
// against the path it is given.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/JsonImporter.h"
#include "compiler/Diagnostics.h"
#include "ir/FuseDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
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
