//===- CublasLtApi.cpp - cuBLASLt, loaded with dlopen -----------------------===//

#include "runtime/cuda/CublasLtApi.h"

#include <dlfcn.h>

namespace fusec::runtime::cuda {

template <typename Function> void CublasLtApi::resolve(Function &slot, const char *symbol) {
  void *address = dlsym(handle_, symbol);
  if (!address)
    throw Error("the cuBLASLt library '" + library_ + "' does not export " + symbol + " (the library is too old)");
  slot = reinterpret_cast<Function>(address);
}

std::shared_ptr<const CublasLtApi> CublasLtApi::load(const std::string &library) {
  // As the driver: local symbols, never unloaded (the library keeps threads
  // and exit handlers of its own once used).
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char *reason = dlerror();
    throw Error("cannot load cuBLASLt '" + library + "': " + (reason ? reason : "unknown reason"));
  }
  std::shared_ptr<CublasLtApi> api(new CublasLtApi(library, handle));
  api->resolve(api->create, "cublasLtCreate");
  api->resolve(api->destroy, "cublasLtDestroy");
  api->resolve(api->getVersion, "cublasLtGetVersion");
  api->resolve(api->getStatusName, "cublasLtGetStatusName");
  api->resolve(api->getStatusString, "cublasLtGetStatusString");
  api->resolve(api->matmulDescCreate, "cublasLtMatmulDescCreate");
  api->resolve(api->matmulDescDestroy, "cublasLtMatmulDescDestroy");
  api->resolve(api->matmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
  api->resolve(api->matrixLayoutCreate, "cublasLtMatrixLayoutCreate");
  api->resolve(api->matrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
  api->resolve(api->matrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute");
  api->resolve(api->matmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
  api->resolve(api->matmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
  api->resolve(api->matmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
  api->resolve(api->matmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
  api->resolve(api->matmul, "cublasLtMatmul");
  return api;
}

std::string CublasLtApi::describe(cublasStatus_t status) const {
  const char *name = getStatusName(status);
  const char *text = getStatusString(status);
  std::string description = name ? name : "cuBLAS status " + std::to_string(status);
  if (text)
    description += std::string(" (") + text + ")";
  return description;
}

void CublasLtApi::check(cublasStatus_t status, const char *call, const std::string &where) const {
  if (status != kCublasSuccess)
    throw Error(std::string(call) + " failed " + where + ": " + describe(status));
}

} // namespace fusec::runtime::cuda
