//===- FuseInterfaces.td - fuse op interfaces ---------------*- tablegen -*-===//
#ifndef FUSE_INTERFACES_TD
#define FUSE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Fuse_ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::fusec::fuse";
  let description = [{
    Computes an op's result types from its operand types and attributes, and
    diagnoses (on the op) every shape or attribute that makes that impossible.
    Importers build ops with placeholder types and call `inferResultTypes`;
    the verifier checks that the recorded result types are the inferred ones.
  }];
  let methods = [
    InterfaceMethod<"Infer the result types; emits an error and fails on bad input.",
      "::mlir::LogicalResult", "inferResultTypes",
      (ins "::llvm::SmallVectorImpl<::mlir::Type> &":$inferred)>,
  ];
  let verify = [{ return ::fusec::fuse::verifyInferredResultTypes($_op); }];
}

def Fuse_OnnxOpInterface : OpInterface<"OnnxOpInterface"> {
  let cppNamespace = "::fusec::fuse";
  let description = [{
    Names the ONNX operator an op implements. Attribute names equal ONNX's, so
    plans and the JSON format serialise attributes generically.
  }];
  let methods = [
    StaticInterfaceMethod<"The ONNX operator name.", "::llvm::StringRef", "getOnnxName">,
  ];
}

#endif // FUSE_INTERFACES_TD
