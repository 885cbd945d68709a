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

TEST_CASE("ONNX node conformance tests import and verify", "[onnx][conformance]") {
  std::vector<ConformanceTest> tests = listConformanceTests(kOnnxNodeTestRoot);
  {
    INFO("no ONNX node tests under " << kOnnxNodeTestRoot << " (install libonnx-testdata)");
    REQUIRE_FALSE(tests.empty());
  }

  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::vector<std::string> imported, failed, unsupported;
  std::set<std::string> failedNames;
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

  std::cout << "ONNX node tests: " << imported.size() << " imported, " << failed.size() << " failed ("
            << importRejectedVariants().size() << " expected), " << unsupported.size() << " unsupported\n";
  for (const std::string &line : unsupported)
    std::cout << "  unsupported " << line << "\n";
  for (const std::string &line : failed)
    std::cout << "  failed " << line << "\n";
  std::set<std::string> expectedNames;
  for (const auto &entry : importRejectedVariants())
    expectedNames.insert(entry.first);
  CHECK(failedNames == expectedNames);
  CHECK(imported.size() > 0);
}
