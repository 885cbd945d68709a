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

def Fuse_OpFactsInterface : OpInterface<"OpFactsInterface"> {
  let cppNamespace = "::fusec::fuse";
  let description = [{
    The facts an op declares once in ODS (Fuse_Facts, FuseOps.td) and every
    stage reads (ir/OpFacts.h): classification, the cost model, epilogue
    formation and mixed precision.
  }];
  let methods = [
    StaticInterfaceMethod<"The kind of kernel the op needs.",
      "::fusec::fuse::OpClass", "getKernelClass">,
    StaticInterfaceMethod<[{Floating-point operations per element: of the
      output, or of the input for reductions. Convolutions, products,
      attention and pooling are priced from their shapes instead.}],
      "double", "getFlopsPerElement">,
    StaticInterfaceMethod<"What mixed precision does with the op.",
      "::fusec::fuse::AmpPrecision", "getAmpPrecision">,
    StaticInterfaceMethod<"Whether a conv/GEMM epilogue applies the op as its activation.",
      "bool", "isEpilogueActivation">,
  ];
}

#endif // FUSE_INTERFACES_TD
