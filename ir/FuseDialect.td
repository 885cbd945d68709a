//===- FuseDialect.td - The fuse dialect --------------------*- tablegen -*-===//
#ifndef FUSE_DIALECT_TD
#define FUSE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Fuse_Dialect : Dialect {
  let name = "fuse";
  let cppNamespace = "::fusec::fuse";
  let summary = "Tensor operators with ONNX semantics and fused SuperKernels";
  let description = [{
    The `fuse` dialect models an inference graph at the operator level. Op
    semantics follow ONNX so importers share one mapping and ONNX's conformance
    data applies. Tensors are ranked f32; a dynamic dimension (`?`) always
    stands for the batch size chosen at run time. `fuse.superkernel` groups
    ops that codegen emits as one kernel.
  }];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes of FuseAttributes.td (FuseAttributes.cpp, where
    /// their storage classes are complete).
    void registerAttributes();
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 0;
}

#endif // FUSE_DIALECT_TD
