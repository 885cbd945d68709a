//===- OnnxConformanceRun.cpp - Run prepared ONNX node tests --------------===//
#include "test/unit/compiler/OnnxConformanceRun.h"

#include "compiler/Diagnostics.h"
#include "compiler/PlanWriter.h"
#include "compiler/import/OnnxImporter.h"
#include "runtime/Session.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <exception>
#include <memory>

namespace fusec::testing {

ConformanceRun runConformanceTest(const PreparedTest &prepared, const std::string &sourceName,
                                  const FusionOptions &fusion, mlir::MLIRContext &context) {
  ConformanceRun run;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
    diagnostics += "\n    " + formatDiagnostic(diagnostic);
    return mlir::success();
  });
  auto fail = [&](const std::string &stage) {
    run.error = stage + " failed:" + (diagnostics.empty() ? " (no diagnostic)" : diagnostics);
    return run;
  };

  // The steps of compileToPlan, on the model in memory (its run-time-only
  // inputs frozen into initializers).
  mlir::OwningOpRef<mlir::ModuleOp> module = import::importOnnxModel(prepared.model, sourceName, context);
  if (!module)
    return fail("import");
  mlir::PassManager pm(&context);
  buildFusionPipeline(pm, fusion);
  if (mlir::failed(pm.run(*module)))
    return fail("fusion pipeline");
  auto bytes = buildPlan(*module, PlanOptions{});
  if (mlir::failed(bytes))
    return fail("plan lowering");

  try {
    auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(std::move(*bytes), sourceName));
    run.kernels = plan->kernels().size();
    std::map<std::string, runtime::Tensor> inputs;
    for (const NamedTensor &input : prepared.inputs)
      inputs[input.name] = runtime::Tensor(input.shape, input.data);
    runtime::Session session(plan, runtime::Device::Cpu);
    // Node tests declare static shapes, which the importer keeps (only a
    // symbolic dim becomes the batch dim) and the runtime uses as they are at
    // any batch; inferBatch gives the batch of a symbolic dim if a model
    // has one, else 1.
    run.batch = session.inferBatch(inputs);
    run.outputs = session.run(run.batch, inputs);
  } catch (const std::exception &error) {
    run.error = std::string("run failed: ") + error.what();
  }
  return run;
}

Closeness compareTensors(const runtime::Tensor &actual, const runtime::Shape &expectedShape,
                         const std::vector<float> &expected, Tolerance tolerance) {
  Closeness result;
  if (actual.shape() != expectedShape || static_cast<size_t>(actual.numElements()) != expected.size()) {
    result.ok = false;
    result.shapeMismatch =
        "shape " + runtime::formatShape(actual.shape()) + ", expected " + runtime::formatShape(expectedShape);
    return result;
  }
  const std::vector<double> values = actual.toDoubles();
  for (size_t i = 0; i < expected.size(); ++i) {
    double a = values[i], e = expected[i];
    bool close;
    if (std::isnan(e) || std::isnan(a)) {
      close = std::isnan(e) && std::isnan(a);
      if (!close)
        result.maxAbsError = result.maxRelError = INFINITY;
    } else if (std::isinf(e) || std::isinf(a)) {
      close = a == e;
      if (!close)
        result.maxAbsError = result.maxRelError = INFINITY;
    } else {
      double abs = std::fabs(a - e);
      close = abs <= tolerance.atol + tolerance.rtol * std::fabs(e);
      result.maxAbsError = std::max(result.maxAbsError, abs);
      if (e != 0)
        result.maxRelError = std::max(result.maxRelError, abs / std::fabs(e));
    }
    if (!close) {
      result.ok = false;
      ++result.mismatches;
    }
  }
  return result;
}

} // namespace fusec::testing
