//===- JsonImporterFuzzer.cpp - libFuzzer harness: the JSON graph importer --===//
//
// The JSON importer reads from a path (weights files are resolved relative
// to it), so each input is written to a per-process scratch file first. An
// import either fails with diagnostics or yields a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "ImporterFuzzerSupport.h"

#include "compiler/import/JsonImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = "/tmp/fusec-json-fuzz." + std::to_string(::getpid()) + ".json";
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    std::abort();
  if (size && std::fwrite(data, 1, size, file) != size)
    std::abort();
  std::fclose(file);
  mlir::OwningOpRef<mlir::ModuleOp> module = fusec::import::importJsonModel(path, fusec::fuzz::importerContext());
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
