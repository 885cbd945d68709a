//===- OnnxConformance.h - ONNX node tests prepared for fusec ---*- C++ -*-===//
//
// ONNX's conformance suite (Debian libonnx-testdata) holds one folder per
// node test: model.onnx and test_data_set_0/{input,output}_K.pb. Node tests
// feed every operand as a graph input, also the ones fusec needs at import
// (Reshape's shape, Pad's pads) and integer ones fusec never takes at run
// time. prepareConformanceTest freezes those into initializers from the test
// data, as an exporter with constants would have written the model, and says
// why fusec cannot run a test when it cannot. The import test and execution
// tests share this.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCE_H
#define FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCE_H

#include "runtime/ElementType.h"

#include "mlir/IR/MLIRContext.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fusec::testing {

/// Where Debian's libonnx-testdata installs the node tests.
inline constexpr const char *kOnnxNodeTestRoot = "/usr/share/libonnx-testdata/data/node";

struct ConformanceTest {
  std::string name;
  std::string directory;
};

/// The node tests under `root`, sorted by name.
std::vector<ConformanceTest> listConformanceTests(const std::string &root);

/// A tensor of test data, its values converted to float32 (exact for the
/// small integers and bools of node tests); `type` is its ONNX type as a
/// plan dtype.
struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
  runtime::ElementType type = runtime::ElementType::F32;
};

struct PreparedTest {
  /// The model with the inputs needed at import frozen into initializers.
  onnx::ModelProto model;
  /// Why fusec cannot run the test (unsupported op, integer output, an op
  /// evaluated at import reading a run-time input, ...); empty when it can.
  std::string unsupportedReason;
  /// The remaining run-time inputs and the expected outputs, in graph
  /// order; loaded only for supported tests.
  std::vector<NamedTensor> inputs;
  std::vector<NamedTensor> outputs;
};

/// Loads, freezes and classifies one test. Returns std::nullopt and sets
/// `error` when its files cannot be read.
std::optional<PreparedTest> prepareConformanceTest(const ConformanceTest &test, mlir::MLIRContext &context,
                                                   std::string &error);

/// Reads a TensorProto file; float, double, integer and bool data become
/// float32.
std::optional<NamedTensor> readTensorFile(const std::string &path, mlir::MLIRContext &context, std::string &error);

/// Tests whose ops fusec supports but not in the form the test uses, each
/// with the reason: the importer must reject them with a diagnostic (the
/// import test checks that it rejects exactly these), and the execution test
/// lists them as unsupported.
const std::map<std::string, std::string> &importRejectedVariants();
/// The reason test `test` is rejected at import: importRejectedVariants()'s,
/// or its family's (generated tests named by a common prefix); nullopt if
/// it must import.
std::optional<std::string> importRejection(const std::string &test);

} // namespace fusec::testing

#endif // FUSEC_TEST_UNIT_COMPILER_ONNXCONFORMANCE_H
