//===- CublasLtAbiCheck.cpp - CublasLtApi's declarations against cublasLt.h -===//
//
// CublasLtApi declares cuBLASLt's entry points, types and constants by hand
// so that the runtime builds without the CUDA toolkit. Where the toolkit is
// installed, this file is compiled into the runtime tests and checks every
// declaration against cublasLt.h; the static_asserts are the test. It links
// nothing from CUDA.
//
//===----------------------------------------------------------------------===//

#include "AbiCheck.h"

#include "runtime/cuda/CublasLtApi.h"

#include <cublasLt.h>

#include <cstddef>
#include <type_traits>

namespace {

namespace fc = fusec::runtime::cuda;
using fusec::test::abi::sameAbi;

} // namespace

/// The structs CublasLtApi declares in its namespace for the header's global
/// ones: they match by layout (checked below), not by type.
template <>
struct fusec::test::abi::Declares<fc::cublasLtMatrixLayoutOpaque_t, ::cublasLtMatrixLayoutOpaque_t> : std::true_type {};
template <>
struct fusec::test::abi::Declares<fc::cublasLtMatmulDescOpaque_t, ::cublasLtMatmulDescOpaque_t> : std::true_type {};
template <>
struct fusec::test::abi::Declares<fc::cublasLtMatmulPreferenceOpaque_t, ::cublasLtMatmulPreferenceOpaque_t>
    : std::true_type {};
template <> struct fusec::test::abi::Declares<fc::cublasLtMatmulAlgo_t, ::cublasLtMatmulAlgo_t> : std::true_type {};
template <>
struct fusec::test::abi::Declares<fc::cublasLtMatmulHeuristicResult_t, ::cublasLtMatmulHeuristicResult_t>
    : std::true_type {};

namespace {

#define FUSEC_CHECK_ENTRY(member, function) FUSEC_CHECK_ENTRY_OF(fc::CublasLtApi, member, function)

FUSEC_CHECK_ENTRY(create, cublasLtCreate);
FUSEC_CHECK_ENTRY(destroy, cublasLtDestroy);
FUSEC_CHECK_ENTRY(getVersion, cublasLtGetVersion);
FUSEC_CHECK_ENTRY(getStatusName, cublasLtGetStatusName);
FUSEC_CHECK_ENTRY(getStatusString, cublasLtGetStatusString);
FUSEC_CHECK_ENTRY(matmulDescCreate, cublasLtMatmulDescCreate);
FUSEC_CHECK_ENTRY(matmulDescDestroy, cublasLtMatmulDescDestroy);
FUSEC_CHECK_ENTRY(matmulDescSetAttribute, cublasLtMatmulDescSetAttribute);
FUSEC_CHECK_ENTRY(matrixLayoutCreate, cublasLtMatrixLayoutCreate);
FUSEC_CHECK_ENTRY(matrixLayoutDestroy, cublasLtMatrixLayoutDestroy);
FUSEC_CHECK_ENTRY(matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute);
FUSEC_CHECK_ENTRY(matmulPreferenceCreate, cublasLtMatmulPreferenceCreate);
FUSEC_CHECK_ENTRY(matmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy);
FUSEC_CHECK_ENTRY(matmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute);
FUSEC_CHECK_ENTRY(matmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic);
FUSEC_CHECK_ENTRY(matmul, cublasLtMatmul);

// Types.
static_assert(std::is_same_v<fc::cublasLtHandle_t, ::cublasLtHandle_t>);
static_assert(std::is_same_v<fc::CUstream, ::cudaStream_t>);
static_assert(sameAbi<fc::cublasStatus_t, ::cublasStatus_t>());
static_assert(sameAbi<fc::cudaDataType, ::cudaDataType>());
static_assert(sameAbi<fc::cublasComputeType_t, ::cublasComputeType_t>());
static_assert(sameAbi<fc::cublasLtMatmulDescAttributes_t, ::cublasLtMatmulDescAttributes_t>());
static_assert(sameAbi<fc::cublasLtMatrixLayoutAttribute_t, ::cublasLtMatrixLayoutAttribute_t>());
static_assert(sameAbi<fc::cublasLtMatmulPreferenceAttributes_t, ::cublasLtMatmulPreferenceAttributes_t>());
static_assert(sameAbi<fc::cublasLtMatrixLayout_t, ::cublasLtMatrixLayout_t>());
static_assert(sameAbi<fc::cublasLtMatmulDesc_t, ::cublasLtMatmulDesc_t>());
static_assert(sameAbi<fc::cublasLtMatmulPreference_t, ::cublasLtMatmulPreference_t>());
/// The attributes' value types, as cublasLt.h documents them.
static_assert(sizeof(int32_t) == sizeof(::cublasOperation_t));
static_assert(sizeof(uint32_t) == sizeof(::cublasLtEpilogue_t));

// The semi-opaque structs: one size and alignment, and the heuristic
// result's fields where the header has them.
#define FUSEC_CHECK_STRUCT(name)                                                                                       \
  static_assert(sizeof(fc::name) == sizeof(::name) && alignof(fc::name) == alignof(::name),                            \
                "CublasLtApi's " #name " does not have cublasLt.h's size")
FUSEC_CHECK_STRUCT(cublasLtMatrixLayoutOpaque_t);
FUSEC_CHECK_STRUCT(cublasLtMatmulDescOpaque_t);
FUSEC_CHECK_STRUCT(cublasLtMatmulPreferenceOpaque_t);
FUSEC_CHECK_STRUCT(cublasLtMatmulAlgo_t);
FUSEC_CHECK_STRUCT(cublasLtMatmulHeuristicResult_t);

#define FUSEC_CHECK_FIELD(name, field)                                                                                 \
  static_assert(offsetof(fc::name, field) == offsetof(::name, field) &&                                                \
                    sameAbi<decltype(fc::name::field), decltype(::name::field)>(),                                     \
                "CublasLtApi's " #name "::" #field " is not cublasLt.h's")
FUSEC_CHECK_FIELD(cublasLtMatmulHeuristicResult_t, algo);
FUSEC_CHECK_FIELD(cublasLtMatmulHeuristicResult_t, workspaceSize);
FUSEC_CHECK_FIELD(cublasLtMatmulHeuristicResult_t, state);
FUSEC_CHECK_FIELD(cublasLtMatmulHeuristicResult_t, wavesCount);
FUSEC_CHECK_FIELD(cublasLtMatmulHeuristicResult_t, reserved);
FUSEC_CHECK_FIELD(cublasLtMatmulAlgo_t, data);
FUSEC_CHECK_FIELD(cublasLtMatrixLayoutOpaque_t, data);
FUSEC_CHECK_FIELD(cublasLtMatmulDescOpaque_t, data);
FUSEC_CHECK_FIELD(cublasLtMatmulPreferenceOpaque_t, data);

// Constants.
static_assert(fc::kCublasSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(fc::kCublasNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(fc::kCudaR32F == CUDA_R_32F);
static_assert(fc::kCudaR16F == CUDA_R_16F);
static_assert(fc::kCudaR16BF == CUDA_R_16BF);
static_assert(fc::kCublasCompute32F == CUBLAS_COMPUTE_32F);
static_assert(fc::kCublasCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(fc::kCublasOpN == CUBLAS_OP_N);
static_assert(fc::kCublasOpT == CUBLAS_OP_T);
static_assert(fc::kMatmulDescTransA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(fc::kMatmulDescTransB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(fc::kMatmulDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(fc::kMatmulDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(fc::kMatmulDescBiasBatchStride == CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
static_assert(fc::kMatmulDescBiasDataType == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
static_assert(fc::kMatrixLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(fc::kMatrixLayoutStridedBatchOffset == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(fc::kMatmulPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(fc::kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(fc::kEpilogueRelu == CUBLASLT_EPILOGUE_RELU);
static_assert(fc::kEpilogueBias == CUBLASLT_EPILOGUE_BIAS);
static_assert(fc::kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(fc::kEpilogueGelu == CUBLASLT_EPILOGUE_GELU);
static_assert(fc::kEpilogueGeluBias == CUBLASLT_EPILOGUE_GELU_BIAS);

} // namespace
