//===- OnnxConformanceTest.cpp - ONNX node tests through the importer -----===//
//
// Imports every ONNX node test whose ops fusec supports and checks that the
// module verifies, and that exactly the tests in importRejectedVariants() are
// rejected. Running the modules is OnnxConformanceExecutionTest's job.
//
//===----------------------------------------------------------------------===//
#include "test/unit/compiler/OnnxConformance.h"

#include "compiler/import/OnnxImporter.h"
#include "ir/FuseDialect.h"

#include "mlir/IR/Diagnostics.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <set>

using namespace fusec;
using namespace fusec::testing;

namespace {

/// Imports every test under `root` that fusec supports; exactly those
/// importRejection() names must fail.
void importNodeTests(const std::string &root, const std::string &missing) {
  std::vector<ConformanceTest> tests = listConformanceTests(root);
  {
    INFO("no ONNX node tests under " << root << " (" << missing << ")");
    REQUIRE_FALSE(tests.empty());
  }

  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::vector<std::string> imported, failed, unsupported;
  std::set<std::string> failedNames, expectedNames;
  for (const ConformanceTest &test : tests) {
    std::string error;
    auto prepared = prepareConformanceTest(test, context, error);
    if (!prepared) {
      failed.push_back(test.name + ": " + error);
      failedNames.insert(test.name);
      continue;
    }
    if (!prepared->unsupportedReason.empty()) {
      unsupported.push_back(test.name + ": " + prepared->unsupportedReason);
      continue;
    }
    if (importRejection(test.name))
      expectedNames.insert(test.name);
    std::string diagnostics;
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
      diagnostics += "\n    " + diagnostic.str();
      return mlir::success();
    });
    if (import::importOnnxModel(prepared->model, test.directory + "/model.onnx", context)) {
      imported.push_back(test.name);
    } else {
      failed.push_back(test.name + ":" + diagnostics);
      failedNames.insert(test.name);
    }
  }

  std::cout << "ONNX node tests (" << root << "): " << imported.size() << " imported, " << failed.size() << " failed ("
            << expectedNames.size() << " expected), " << unsupported.size() << " unsupported\n";
  for (const std::string &line : unsupported)
    std::cout << "  unsupported " << line << "\n";
  for (const std::string &line : failed)
    std::cout << "  failed " << line << "\n";
  CHECK(failedNames == expectedNames);
  CHECK(imported.size() > 0);
}

} // namespace

TEST_CASE("ONNX node conformance tests import and verify", "[onnx][conformance]") {
  importNodeTests(kOnnxNodeTestRoot, "install libonnx-testdata");
}

TEST_CASE("ONNX node tests of opsets 19 and later import and verify", "[onnx][conformance]") {
  importNodeTests(std::string(FUSEC_TEST_DATA_DIR) + "/onnx-node", "scripts/generate-onnx-node-tests.py writes them");
}
