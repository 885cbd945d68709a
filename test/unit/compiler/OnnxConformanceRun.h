//===- OnnxConformanceRun.h - Run prepared ONNX node tests -------*- C++ -*-===//
//
// Compiles a prepared node test (see OnnxConformance.h) in-process with the
// fusion pipeline, runs the plan on the CPU reference backend with the
// test's inputs, and compares the outputs with the expected ones.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCERUN_H
#define FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCERUN_H

#include "test/unit/compiler/OnnxConformance.h"

#include "passes/Pipeline.h"
#include "runtime/Tensor.h"

#include <map>
#include <string>

namespace fusec::testing {

/// What one compile and run of a test gave.
struct ConformanceRun {
  /// Empty when the test compiled and ran; else the diagnostics or the
  /// runtime error.
  std::string error;
  /// Kernels in the plan.
  size_t kernels = 0;
  /// The batch the plan was run at.
  int64_t batch = 0;
  std::map<std::string, runtime::Tensor> outputs;
};

/// Imports `prepared.model`, runs the fusion pipeline with `fusion`, lowers
/// it to a plan and runs the plan on Device::Cpu with `prepared.inputs`.
ConformanceRun runConformanceTest(const PreparedTest &prepared, const std::string &sourceName,
                                  const FusionOptions &fusion, mlir::MLIRContext &context);

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
};

/// How far `actual` is from `expected`. `ok` holds when the shapes agree and
/// every element satisfies |a - e| <= atol + rtol * |e| (NaN matches NaN, an
/// infinity only itself).
struct Closeness {
  bool ok = true;
  /// Set when the shapes differ.
  std::string shapeMismatch;
  double maxAbsError = 0;
  /// max |a - e| / |e| over the elements with e != 0.
  double maxRelError = 0;
  /// Elements outside the tolerance.
  int64_t mismatches = 0;
};
Closeness compareTensors(const runtime::Tensor &actual, const runtime::Shape &expectedShape,
                         const std::vector<float> &expected, Tolerance tolerance);

} // namespace fusec::testing

#endif // FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCERUN_H
