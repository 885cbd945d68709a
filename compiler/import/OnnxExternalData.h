//===- OnnxExternalData.h - Tensor data stored beside an ONNX model -*- C++ -*-===//
//
// Exporters write weights to files beside the model (PyTorch's exporter
// writes `model.onnx.data`; every model over protobuf's 2 GiB must): a
// TensorProto with data_location EXTERNAL names its file (`location`,
// relative to the model's directory), `offset` and `length` in bytes, and
// optionally a SHA-1 `checksum`. The files are memory-mapped once and each
// tensor's bytes read in place, so a large model is not copied before its
// weights are decoded.
//
// A model is untrusted input: a location must stay inside the model's
// directory (no absolute path, no `..`, no symbolic link leading out), and a
// tensor's bytes inside its file; anything else is an error naming the
// tensor.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXEXTERNALDATA_H
#define FUSEC_COMPILER_IMPORT_ONNXEXTERNALDATA_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace fusec::import {

class OnnxExternalData {
public:
  /// Data files are looked for in `modelDirectory` (the directory of the
  /// model file; "" for the current one).
  explicit OnnxExternalData(std::string modelDirectory);

  /// The bytes of `tensor`'s externally stored data, valid while this
  /// object lives; an error at `loc` naming the tensor and the reason if its
  /// entries are malformed, its file is missing or outside the model's
  /// directory, its range lies outside the file, or its checksum differs.
  mlir::FailureOr<llvm::StringRef> bytesOf(const onnx::TensorProto &tensor, mlir::Location loc);

private:
  /// The mapped file at `location` (relative to the directory), or an error.
  mlir::FailureOr<llvm::StringRef> mapFile(llvm::StringRef location, const std::string &tensor, mlir::Location loc);

  std::string directory_;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files_;
};

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXEXTERNALDATA_H
