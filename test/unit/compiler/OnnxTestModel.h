//===- OnnxTestModel.h - Small ONNX models built in tests --------*- C++ -*-===//
//
// The ONNX importer's tests build their models with the protobuf API
// (TestModel) and import them into a context that records every diagnostic
// (TestContext).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_COMPILER_ONNXTESTMODEL_H
#define FUSEC_TEST_UNIT_COMPILER_ONNXTESTMODEL_H

#include "compiler/import/OnnxImporter.h"
#include "ir/FuseDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace fusec::test {

using mlir::Diagnostic;
using mlir::DialectRegistry;
using mlir::ModuleOp;
using mlir::OwningOpRef;
using mlir::ScopedDiagnosticHandler;

/// A context with fusec's dialects that records every diagnostic as
/// "location: message" lines.
struct TestContext {
  TestContext() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
    handler.emplace(&context, [this](Diagnostic &diagnostic) {
      llvm::raw_string_ostream os(diagnostics);
      os << diagnostic.getLocation() << ": " << diagnostic.str() << "\n";
      return mlir::success();
    });
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerDialects(registry);
    return registry;
  }

  mlir::MLIRContext context;
  std::string diagnostics;
  std::optional<ScopedDiagnosticHandler> handler;
};

/// Builds small ONNX models with the protobuf API.
class TestModel {
public:
  explicit TestModel(int64_t opset = 13) {
    model.set_ir_version(8);
    onnx::OperatorSetIdProto &import = *model.add_opset_import();
    import.set_domain("");
    import.set_version(opset);
  }

  /// `dims` entries are sizes, or names for symbolic dimensions.
  void input(const std::string &name, const std::vector<std::string> &dims, int32_t type = onnx::TensorProto::FLOAT) {
    valueInfo(*model.mutable_graph()->add_input(), name, type, dims);
  }
  void output(const std::string &name, int32_t type = onnx::TensorProto::FLOAT) {
    onnx::ValueInfoProto &info = *model.mutable_graph()->add_output();
    info.set_name(name);
    info.mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  /// An initializer of `type` whose elements are `raw` (raw_data).
  onnx::TensorProto &initializer(const std::string &name, int32_t type, const std::vector<int64_t> &dims,
                                 const std::string &raw) {
    onnx::TensorProto &tensor = *model.mutable_graph()->add_initializer();
    tensor.set_name(name);
    tensor.set_data_type(type);
    for (int64_t dim : dims)
      tensor.add_dims(dim);
    tensor.set_raw_data(raw);
    return tensor;
  }
  onnx::NodeProto &node(const std::string &opType, const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs, const std::string &name = "") {
    onnx::NodeProto &node = *model.mutable_graph()->add_node();
    node.set_op_type(opType);
    node.set_name(name);
    for (const std::string &input : inputs)
      node.add_input(input);
    for (const std::string &output : outputs)
      node.add_output(output);
    return node;
  }
  /// A Constant node holding a 1-D int64 tensor.
  void constantInts(const std::string &name, const std::vector<int64_t> &values) {
    onnx::AttributeProto &value = *node("Constant", {}, {name}).add_attribute();
    value.set_name("value");
    value.set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto &tensor = *value.mutable_t();
    tensor.set_data_type(onnx::TensorProto::INT64);
    tensor.add_dims(values.size());
    for (int64_t v : values)
      tensor.add_int64_data(v);
  }
  static void setInt(onnx::NodeProto &node, const std::string &name, int64_t value) {
    onnx::AttributeProto &attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(onnx::AttributeProto::INT);
    attribute.set_i(value);
  }
  static void setInts(onnx::NodeProto &node, const std::string &name, const std::vector<int64_t> &values) {
    onnx::AttributeProto &attribute = *node.add_attribute();
    attribute.set_name(name);
    attribute.set_type(onnx::AttributeProto::INTS);
    for (int64_t value : values)
      attribute.add_ints(value);
  }
  OwningOpRef<ModuleOp> import(TestContext &test) const {
    return import::importOnnxModel(model, "test.onnx", test.context);
  }

  onnx::ModelProto model;

private:
  static void valueInfo(onnx::ValueInfoProto &info, const std::string &name, int32_t type,
                        const std::vector<std::string> &dims) {
    info.set_name(name);
    onnx::TypeProto::Tensor &tensor = *info.mutable_type()->mutable_tensor_type();
    tensor.set_elem_type(type);
    onnx::TensorShapeProto &shape = *tensor.mutable_shape();
    for (const std::string &dim : dims) {
      if (std::isdigit(static_cast<unsigned char>(dim.front())))
        shape.add_dim()->set_dim_value(std::stoll(dim));
      else
        shape.add_dim()->set_dim_param(dim);
    }
  }
};

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_COMPILER_ONNXTESTMODEL_H
