//===- JsonImporterFuzzer.cpp - libFuzzer harness: the JSON graph importer --===//
//
// Each input is read in memory as the contents of a file that does not exist
// (importJsonModelFromBuffer), so no scratch file is written per input; a
// 'weights' entry resolves against that file's directory as for a real
// file. An import either fails with diagnostics or yields a module that
// verifies.
//
//===----------------------------------------------------------------------===//

#include "ImporterFuzzerSupport.h"

#include "compiler/import/JsonImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fusec::import::importJsonModelFromBuffer(text, "/nonexistent/fuzz.json", fusec::fuzz::sharedImporterContext());
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
