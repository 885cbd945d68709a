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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fusec::import::importOnnxModel(model, "fuzz.onnx", fusec::fuzz::importerContext());
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
