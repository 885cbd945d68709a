//===- CublasLtApi.h - cuBLASLt, loaded with dlopen -------------------------===//
//
// Library variants of GEMM kernels (support/LibraryMatmul.h) run on
// cuBLASLt. Like the driver (DriverApi.h), the library is never linked: a
// runtime without it still runs every plan on its generated kernels.
// CublasLtApi::load() opens it and resolves the few entry points used.
//
// Types and constants are declared with cublasLt.h's spellings (handles are
// pointers to structs of the same names and sizes); CublasLtAbiCheck.cpp
// compares every one with the header wherever the toolkit is installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUBLASLTAPI_H
#define FUSEC_RUNTIME_CUDA_CUBLASLTAPI_H

#include "runtime/Error.h"
#include "runtime/cuda/DriverApi.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

// cublasLt.h's handle struct (global, defined by the library alone).
struct cublasLtContext;

namespace fusec::runtime::cuda {

using cublasStatus_t = int;
using cublasLtHandle_t = cublasLtContext *;
/// cublasLt.h's semi-opaque descriptors: structs of 64-bit words the library
/// fills, handled through pointers.
struct cublasLtMatrixLayoutOpaque_t {
  uint64_t data[8];
};
struct cublasLtMatmulDescOpaque_t {
  uint64_t data[32];
};
struct cublasLtMatmulPreferenceOpaque_t {
  uint64_t data[8];
};
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
using cublasLtMatrixLayout_t = cublasLtMatrixLayoutOpaque_t *;
using cublasLtMatmulDesc_t = cublasLtMatmulDescOpaque_t *;
using cublasLtMatmulPreference_t = cublasLtMatmulPreferenceOpaque_t *;
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
/// The header's enums, passed as ints.
using cudaDataType = int;
using cublasComputeType_t = int;
using cublasLtMatmulDescAttributes_t = int;
using cublasLtMatrixLayoutAttribute_t = int;
using cublasLtMatmulPreferenceAttributes_t = int;

inline constexpr cublasStatus_t kCublasSuccess = 0;
inline constexpr cublasStatus_t kCublasNotSupported = 15;
inline constexpr cudaDataType kCudaR32F = 0;
inline constexpr cudaDataType kCudaR16F = 2;
inline constexpr cudaDataType kCudaR16BF = 14;
inline constexpr cublasComputeType_t kCublasCompute32F = 68;
inline constexpr cublasComputeType_t kCublasCompute32FFastTf32 = 77;
/// cublasOperation_t.
inline constexpr int32_t kCublasOpN = 0;
inline constexpr int32_t kCublasOpT = 1;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescTransA = 3;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescTransB = 4;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescEpilogue = 7;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescBiasPointer = 8;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescBiasBatchStride = 10;
inline constexpr cublasLtMatmulDescAttributes_t kMatmulDescBiasDataType = 26;
inline constexpr cublasLtMatrixLayoutAttribute_t kMatrixLayoutBatchCount = 5;
inline constexpr cublasLtMatrixLayoutAttribute_t kMatrixLayoutStridedBatchOffset = 6;
inline constexpr cublasLtMatmulPreferenceAttributes_t kMatmulPrefMaxWorkspaceBytes = 1;
/// The alignment (bytes, uint32_t) the chosen algorithm may assume of each
/// matrix; the library assumes 256 unless told less.
inline constexpr cublasLtMatmulPreferenceAttributes_t kMatmulPrefMinAlignmentABytes = 5;
inline constexpr cublasLtMatmulPreferenceAttributes_t kMatmulPrefMinAlignmentBBytes = 6;
inline constexpr cublasLtMatmulPreferenceAttributes_t kMatmulPrefMinAlignmentCBytes = 7;
inline constexpr cublasLtMatmulPreferenceAttributes_t kMatmulPrefMinAlignmentDBytes = 8;
/// cublasLtEpilogue_t (a uint32_t attribute).
inline constexpr uint32_t kEpilogueDefault = 1;
inline constexpr uint32_t kEpilogueRelu = 2;
inline constexpr uint32_t kEpilogueBias = 4;
inline constexpr uint32_t kEpilogueReluBias = 6;
inline constexpr uint32_t kEpilogueGelu = 32;
inline constexpr uint32_t kEpilogueGeluBias = 36;

/// The default library name: the soname of CUDA 13's cuBLASLt.
inline constexpr const char *kDefaultCublasLtLibrary = "libcublasLt.so.13";

class CublasLtApi {
public:
  /// Opens `library` with dlopen and resolves every entry point. Throws
  /// Error naming the library and the reason; like the driver, the library
  /// stays loaded until the process exits.
  static std::shared_ptr<const CublasLtApi> load(const std::string &library);

  CublasLtApi(const CublasLtApi &) = delete;
  CublasLtApi &operator=(const CublasLtApi &) = delete;

  const std::string &library() const { return library_; }
  /// Throws Error "<call> failed <where>: CUBLAS_STATUS_... (<text>)"
  /// unless `status` is success.
  void check(cublasStatus_t status, const char *call, const std::string &where) const;
  std::string describe(cublasStatus_t status) const;

  // The entry points, named after cublasLt.h's functions without the
  // "cublasLt" prefix.
  cublasStatus_t (*create)(cublasLtHandle_t *handle) = nullptr;
  cublasStatus_t (*destroy)(cublasLtHandle_t handle) = nullptr;
  size_t (*getVersion)() = nullptr;
  const char *(*getStatusName)(cublasStatus_t status) = nullptr;
  const char *(*getStatusString)(cublasStatus_t status) = nullptr;
  cublasStatus_t (*matmulDescCreate)(cublasLtMatmulDesc_t *desc, cublasComputeType_t computeType,
                                     cudaDataType scaleType) = nullptr;
  cublasStatus_t (*matmulDescDestroy)(cublasLtMatmulDesc_t desc) = nullptr;
  cublasStatus_t (*matmulDescSetAttribute)(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                                           const void *value, size_t bytes) = nullptr;
  cublasStatus_t (*matrixLayoutCreate)(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows, uint64_t cols,
                                       int64_t ld) = nullptr;
  cublasStatus_t (*matrixLayoutDestroy)(cublasLtMatrixLayout_t layout) = nullptr;
  cublasStatus_t (*matrixLayoutSetAttribute)(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute,
                                             const void *value, size_t bytes) = nullptr;
  cublasStatus_t (*matmulPreferenceCreate)(cublasLtMatmulPreference_t *preference) = nullptr;
  cublasStatus_t (*matmulPreferenceDestroy)(cublasLtMatmulPreference_t preference) = nullptr;
  cublasStatus_t (*matmulPreferenceSetAttribute)(cublasLtMatmulPreference_t preference,
                                                 cublasLtMatmulPreferenceAttributes_t attribute, const void *value,
                                                 size_t bytes) = nullptr;
  cublasStatus_t (*matmulAlgoGetHeuristic)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                           cublasLtMatrixLayout_t aLayout, cublasLtMatrixLayout_t bLayout,
                                           cublasLtMatrixLayout_t cLayout, cublasLtMatrixLayout_t dLayout,
                                           cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                           cublasLtMatmulHeuristicResult_t results[], int *returnedAlgoCount) = nullptr;
  cublasStatus_t (*matmul)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *a,
                           cublasLtMatrixLayout_t aLayout, const void *b, cublasLtMatrixLayout_t bLayout,
                           const void *beta, const void *c, cublasLtMatrixLayout_t cLayout, void *d,
                           cublasLtMatrixLayout_t dLayout, const cublasLtMatmulAlgo_t *algo, void *workspace,
                           size_t workspaceBytes, CUstream stream) = nullptr;

private:
  CublasLtApi(std::string library, void *handle) : library_(std::move(library)), handle_(handle) {}
  template <typename Function> void resolve(Function &slot, const char *symbol);

  std::string library_;
  void *handle_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUBLASLTAPI_H
