//===- FusedModule.cpp - Parse or import a test module and fuse it --------===//
#include "FusedModule.h"

#include "compiler/Diagnostics.h"
#include "compiler/import/JsonImporter.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

namespace fusec::test {

void fuse(mlir::ModuleOp module, const FusionOptions &options) {
  DiagnosticCollector diagnostics(module.getContext());
  mlir::PassManager pm(module.getContext());
  buildFusionPipeline(pm, options);
  const bool fused = mlir::succeeded(pm.run(module));
  INFO(diagnostics.text());
  REQUIRE(fused);
}

mlir::OwningOpRef<mlir::ModuleOp> parseAndFuse(mlir::MLIRContext &context, const std::string &ir,
                                               const FusionOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    DiagnosticCollector diagnostics(&context);
    module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
    INFO(diagnostics.text() << ir);
    REQUIRE(module);
  }
  fuse(*module, options);
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp> importJsonAndFuse(mlir::MLIRContext &context, const std::string &text,
                                                    const std::string &fileName, const FusionOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    DiagnosticCollector diagnostics(&context);
    module = import::importJsonModelFromBuffer(text, fileName, context);
    INFO(diagnostics.text());
    REQUIRE(module);
  }
  fuse(*module, options);
  return module;
}

FusionOptions withStrategy(const std::string &strategy) {
  FusionOptions options;
  options.strategy = strategy;
  return options;
}

} // namespace fusec::test
