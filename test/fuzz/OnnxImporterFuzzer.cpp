//===- OnnxImporterFuzzer.cpp - libFuzzer harness: the ONNX importer --------===//
//
// Bytes that parse as an onnx::ModelProto go through the importer (constant
// folding, ONNX shape inference, op builders, fuse shape inference). An
// import either fails with diagnostics or yields a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "ImporterFuzzerSupport.h"

#include "compiler/import/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return 0;
  // A context per input (ImporterFuzzerSupport.h says why), destroyed after
  // the module.
  std::unique_ptr<mlir::MLIRContext> context = fusec::fuzz::makeImporterContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = fusec::import::importOnnxModel(model, "fuzz.onnx", *context);
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
