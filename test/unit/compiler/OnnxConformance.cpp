//===- OnnxConformance.cpp - ONNX node tests prepared for fusec -----------===//
#include "test/unit/compiler/OnnxConformance.h"

#include "compiler/import/OnnxConstantFolding.h"
#include "compiler/import/OnnxImporter.h"
#include "compiler/import/OnnxOpBuilders.h"
#include "compiler/import/OnnxProtoUtils.h"
#include "compiler/import/OnnxTensor.h"
#include "support/OpRules.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace fusec::testing {
namespace {

using import::OnnxOpKind;

template <typename Message> bool parseFile(const std::string &path, Message &message) {
  std::ifstream stream(path, std::ios::binary);
  return stream && message.ParseFromIstream(&stream);
}

std::string dataFile(const ConformanceTest &test, const char *kind, int index) {
  return test.directory + "/test_data_set_0/" + kind + "_" + std::to_string(index) + ".pb";
}

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      return import.version();
  return 0;
}

bool isFloatTensor(const onnx::ValueInfoProto &value) {
  return value.type().has_tensor_type() && value.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT;
}

bool isComparableOutputType(int32_t type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BOOL ||
         type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 || type == onnx::TensorProto::INT8 ||
         type == onnx::TensorProto::UINT8;
}

/// Graph inputs fusec must know at import: integer tensors (this runner
/// feeds float32 data only) and tensors a node takes as an attribute.
llvm::StringSet<> inputsToFreeze(const onnx::ModelProto &model, int64_t opset) {
  llvm::StringSet<> tensorInputs, frozen;
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    if (!input.type().has_tensor_type())
      continue;
    tensorInputs.insert(input.name());
    if (!isFloatTensor(input))
      frozen.insert(input.name());
  }
  for (const onnx::NodeProto &node : model.graph().node())
    for (int i = 0; i < node.input_size(); ++i)
      if (tensorInputs.contains(node.input(i)) && import::isImportTimeInput(node.op_type(), opset, i))
        frozen.insert(node.input(i));
  return frozen;
}

/// Why fusec cannot run `model` (already frozen), or an empty string.
std::string unsupportedReason(const onnx::ModelProto &model, int64_t opset) {
  if (opset == 0)
    return "no ai.onnx opset";
  if (opset < import::kMinOnnxOpset || opset > import::kMaxOnnxOpset)
    return "ai.onnx opset " + std::to_string(opset);
  std::set<std::string> unsupportedOps;
  for (const onnx::NodeProto &node : model.graph().node()) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!defaultDomain)
      unsupportedOps.insert(node.domain() + "." + node.op_type());
    else if (import::classifyOnnxOp(node.op_type()) == OnnxOpKind::Unsupported)
      unsupportedOps.insert(node.op_type());
  }
  if (!unsupportedOps.empty())
    return "unsupported ops: " + llvm::join(unsupportedOps, ", ");
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (!input.type().has_tensor_type())
      return "input '" + input.name() + "' is not a tensor";
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    if (!import::isReadableTensorType(initializer.data_type()))
      return "input '" + initializer.name() + "' is " + import::onnxTypeName(initializer.data_type());
  // Integer results are compared too (data movement, Where and Cast give
  // them; the importer refuses integer arithmetic with a diagnostic); the
  // node tests store BFLOAT16 results as UINT16.
  for (const onnx::ValueInfoProto &output : model.graph().output())
    if (!output.type().has_tensor_type() || !isComparableOutputType(output.type().tensor_type().elem_type()))
      return "output '" + output.name() + "' is " +
             (output.type().has_tensor_type() ? import::onnxTypeName(output.type().tensor_type().elem_type())
                                              : std::string("not a tensor"));
  // fuse ops compute an op's inference form: its first output only (Split
  // and LayerNormalization: all of them).
  llvm::StringSet<> graphOutputs;
  for (const onnx::ValueInfoProto &output : model.graph().output())
    graphOutputs.insert(output.name());
  for (const onnx::NodeProto &node : model.graph().node())
    for (int i = 1; i < node.output_size() && !import::computesEveryOutput(node.op_type()); ++i)
      if (graphOutputs.contains(node.output(i)))
        return "output '" + node.output(i) + "' is output " + std::to_string(i) + " of " + node.op_type();
  // Integer arithmetic: ops that compute in floating point only, on integer
  // data (ONNX's type T is their first input's), are refused at import.
  llvm::StringMap<int32_t> types;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    types[input.name()] = input.type().tensor_type().elem_type();
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    types[initializer.name()] = initializer.data_type();
  for (const onnx::NodeProto &node : model.graph().node()) {
    if (node.input_size() == 0 || import::isFoldableOnnxOp(node.op_type()) ||
        import::takesIntegerOperands(node.op_type()))
      continue;
    auto type = types.find(node.input(0));
    if (type != types.end() && type->second != onnx::TensorProto::FLOAT && type->second != onnx::TensorProto::FLOAT16 &&
        type->second != onnx::TensorProto::BFLOAT16 && type->second != onnx::TensorProto::DOUBLE)
      return node.op_type() + " on " + import::onnxTypeName(type->second) +
             " data: fusec computes it in floating point only";
  }
  // Follow which values the importer will know, to find ops it can only
  // evaluate at import that read a run-time value.
  llvm::StringSet<> known;
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    known.insert(initializer.name());
  for (const onnx::NodeProto &node : model.graph().node()) {
    OnnxOpKind kind = import::classifyOnnxOp(node.op_type());
    auto runtimeInput = std::find_if(node.input().begin(), node.input().end(), [&](const std::string &input) {
      return !input.empty() && !known.contains(input);
    });
    bool allKnown = runtimeInput == node.input().end();
    if (kind == OnnxOpKind::ImportTime && !allKnown)
      return node.op_type() + " reads run-time input '" + *runtimeInput + "' at import";
    if (kind == OnnxOpKind::ShapeQuery || (allKnown && import::isFoldableOnnxOp(node.op_type())))
      for (const std::string &output : node.output())
        known.insert(output);
  }
  return "";
}

} // namespace

const std::map<std::string, std::string> &importRejectedVariants() {
  static const std::map<std::string, std::string> variants = {
      {"test_averagepool_1d_default", "fusec pools 2-D only"},
      {"test_convtranspose_1d", "fusec's transposed convolution is 2-D only"},
      {"test_convtranspose_3d", "fusec's transposed convolution is 2-D only"},
      {"test_averagepool_3d_default", "fusec pools 2-D only"},
      {"test_maxpool_1d_default", "fusec pools 2-D only"},
      {"test_maxpool_3d_default", "fusec pools 2-D only"},
      {"test_reshape_allowzero_reordered", "Reshape with allowzero=1"},
      {"test_resize_tf_crop_and_resize", "Resize with a region of interest (tf_crop_and_resize)"},
      {"test_training_dropout", "Dropout in training mode"},
      {"test_training_dropout_default", "Dropout in training mode"},
      {"test_training_dropout_zero_ratio", "Dropout in training mode"},
      // Opsets 19 and later (test/data/onnx-node).
      {"test_averagepool_2d_dilations", "AveragePool-19 dilations (fuse.average_pool has none)"},
      {"test_averagepool_3d_dilations_small", "fusec pools 2-D only"},
      {"test_maxpool_3d_dilations", "fusec pools 2-D only"},
      {"test_maxpool_3d_dilations_use_ref_impl", "fusec pools 2-D only"},
      {"test_reduce_log_sum_exp_empty_set_expanded", "a Cast to DOUBLE"},
      {"test_resize_downsample_scales_cubic_antialias", "Resize with antialias"},
      {"test_resize_downsample_scales_linear_antialias", "Resize with antialias"},
      {"test_resize_downsample_sizes_cubic_antialias", "Resize with antialias"},
      {"test_resize_downsample_sizes_linear_antialias", "Resize with antialias"},
      {"test_resize_downsample_scales_linear_half_pixel_symmetric", "Resize-19's half_pixel_symmetric"},
      {"test_resize_upsample_scales_linear_half_pixel_symmetric", "Resize-19's half_pixel_symmetric"},
      {"test_resize_downsample_sizes_nearest_not_larger", "Resize with keep_aspect_ratio_policy"},
      {"test_resize_downsample_sizes_nearest_not_smaller", "Resize with keep_aspect_ratio_policy"},
      {"test_resize_upsample_sizes_nearest_not_larger", "Resize with keep_aspect_ratio_policy"},
      {"test_resize_upsample_sizes_nearest_not_smaller", "Resize with keep_aspect_ratio_policy"},
      {"test_resize_tf_crop_and_resize_axes_2_3", "Resize with a region of interest (tf_crop_and_resize)"},
      {"test_resize_tf_crop_and_resize_axes_3_2", "Resize with a region of interest (tf_crop_and_resize)"},
      {"test_resize_tf_crop_and_resize_extrapolation_value", "Resize with a region of interest (tf_crop_and_resize)"},
  };
  return variants;
}

std::optional<std::string> importRejection(const std::string &test) {
  auto found = importRejectedVariants().find(test);
  if (found != importRejectedVariants().end())
    return found->second;
  // Families of generated tests, by name prefix.
  static const std::pair<const char *, const char *> kFamilies[] = {
      {"test_attention_", "Attention-23's function body casts like run-time values and expands to computed shapes"},
      {"test_causal_conv_with_state_", "a 1-D convolution"},
  };
  for (const auto &[prefix, reason] : kFamilies)
    if (test.rfind(prefix, 0) == 0)
      return std::string(reason);
  return std::nullopt;
}

std::vector<ConformanceTest> listConformanceTests(const std::string &root) {
  std::vector<ConformanceTest> tests;
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator(root, error))
    if (std::filesystem::exists(entry.path() / "model.onnx"))
      tests.push_back({entry.path().filename().string(), entry.path().string()});
  std::sort(tests.begin(), tests.end(),
            [](const ConformanceTest &a, const ConformanceTest &b) { return a.name < b.name; });
  return tests;
}

std::optional<NamedTensor> readTensorFile(const std::string &path, mlir::MLIRContext &context, std::string &error) {
  onnx::TensorProto proto;
  if (!parseFile(path, proto)) {
    error = "cannot read the TensorProto file " + path;
    return std::nullopt;
  }
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
    diagnostics += diagnostic.str();
    return mlir::success();
  });
  auto tensor = import::readTensorProto(proto, mlir::FileLineColLoc::get(&context, path, 0, 0));
  if (mlir::failed(tensor)) {
    error = path + ": " + diagnostics;
    return std::nullopt;
  }
  std::optional<runtime::ElementType> type = import::dtypeForOnnxType(proto.data_type());
  if (!type) {
    error = path + ": " + import::onnxTypeName(proto.data_type()) + " test data";
    return std::nullopt;
  }
  NamedTensor named{proto.name(), tensor->shape, std::move(tensor->floats), *type};
  for (const import::DimExpr &value : tensor->ints)
    named.data.push_back(static_cast<float>(value.constantTerm()));
  return named;
}

std::optional<PreparedTest> prepareConformanceTest(const ConformanceTest &test, mlir::MLIRContext &context,
                                                   std::string &error) {
  PreparedTest prepared;
  if (!parseFile(test.directory + "/model.onnx", prepared.model)) {
    error = "cannot parse " + test.directory + "/model.onnx";
    return std::nullopt;
  }
  onnx::GraphProto &graph = *prepared.model.mutable_graph();
  int64_t opset = defaultOpset(prepared.model);
  llvm::StringSet<> frozen = inputsToFreeze(prepared.model, opset);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> runtimeInputs;
  std::vector<std::pair<std::string, std::string>> runtimeInputFiles; // name, file
  for (int k = 0; k < graph.input_size(); ++k) {
    const onnx::ValueInfoProto &input = graph.input(k);
    std::string file = dataFile(test, "input", k);
    if (!frozen.contains(input.name())) {
      *runtimeInputs.Add() = input;
      runtimeInputFiles.emplace_back(input.name(), file);
      continue;
    }
    onnx::TensorProto &initializer = *graph.add_initializer();
    if (!parseFile(file, initializer)) {
      error = "cannot read the TensorProto file " + file;
      return std::nullopt;
    }
    initializer.set_name(input.name());
  }
  graph.mutable_input()->Swap(&runtimeInputs);

  prepared.unsupportedReason = unsupportedReason(prepared.model, opset);
  if (!prepared.unsupportedReason.empty())
    return prepared;
  // Data files may leave the tensor name empty; the graph's names count.
  for (const auto &[name, file] : runtimeInputFiles) {
    auto tensor = readTensorFile(file, context, error);
    if (!tensor)
      return std::nullopt;
    tensor->name = name;
    prepared.inputs.push_back(std::move(*tensor));
  }
  for (int k = 0; k < graph.output_size(); ++k) {
    auto tensor = readTensorFile(dataFile(test, "output", k), context, error);
    if (!tensor)
      return std::nullopt;
    tensor->name = graph.output(k).name();
    prepared.outputs.push_back(std::move(*tensor));
  }
  return prepared;
}

} // namespace fusec::testing
