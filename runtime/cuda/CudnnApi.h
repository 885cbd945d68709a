//===- CudnnApi.h - cuDNN's backend (graph) API, loaded with dlopen -------===//
//
// Library variants of convolution kernels (support/LibraryConv.h)
// run on cuDNN 9. Like the driver (DriverApi.h) and cuBLASLt
// (CublasLtApi.h), the library is never linked: a runtime without it still
// runs every plan on its generated kernels. CudnnApi::load() opens it and
// resolves the few entry points used: the handle, and the backend API's
// descriptors (create, set, finalize, get) and execution. The legacy
// convolution API (cudnnConvolutionForward and its descriptors) is
// deprecated in cuDNN 9 and not used.
//
// Types and constants are declared with cudnn_graph.h's spellings and
// values (cuDNN 9.19; the handle is a pointer to the header's struct, the
// header's enums are passed as ints); CudnnAbiCheck.cpp compares every one
// with the header wherever it is installed. Only the values fusec uses are
// declared.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_CUDNNAPI_H
#define FUSEC_RUNTIME_CUDA_CUDNNAPI_H

#include "runtime/Error.h"
#include "runtime/cuda/DriverApi.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

// cudnn_graph.h's handle struct (global, defined by the library alone).
struct cudnnContext;

namespace fusec::runtime::cuda {

using cudnnStatus_t = int;
using cudnnHandle_t = cudnnContext *;
using cudnnBackendDescriptor_t = void *;
/// The header's enums, passed as ints.
using cudnnBackendDescriptorType_t = int;
using cudnnBackendAttributeName_t = int;
using cudnnBackendAttributeType_t = int;
/// Enums that are attribute values: 32-bit ints in the attribute's array.
using cudnnDataType_t = int32_t;
using cudnnConvolutionMode_t = int32_t;
using cudnnPointwiseMode_t = int32_t;
using cudnnBackendHeurMode_t = int32_t;
using cudnnBackendNumericalNote_t = int32_t;

/// cudnnStatus_t. A status's category is its value rounded down to a
/// multiple of 1000 (CUDNN_STATUS_CATEGORY): every "not supported" status,
/// the answer to a problem the library has no engine for, is in 3000-3999.
inline constexpr cudnnStatus_t kCudnnSuccess = 0;
inline constexpr cudnnStatus_t kCudnnNotInitialized = 1001;
inline constexpr cudnnStatus_t kCudnnBadParam = 2000;
inline constexpr cudnnStatus_t kCudnnBadParamNotFinalized = 2004;
inline constexpr cudnnStatus_t kCudnnNotSupported = 3000;
inline constexpr cudnnStatus_t kCudnnInternalError = 4000;
inline constexpr cudnnStatus_t kCudnnExecutionFailed = 5000;
inline constexpr cudnnStatus_t cudnnStatusCategory(cudnnStatus_t status) { return status / 1000 * 1000; }

/// cudnnBackendDescriptorType_t.
inline constexpr cudnnBackendDescriptorType_t kPointwiseDescriptor = 0;
inline constexpr cudnnBackendDescriptorType_t kConvolutionDescriptor = 1;
inline constexpr cudnnBackendDescriptorType_t kEngineDescriptor = 2;
inline constexpr cudnnBackendDescriptorType_t kEngineCfgDescriptor = 3;
inline constexpr cudnnBackendDescriptorType_t kEngineHeurDescriptor = 4;
inline constexpr cudnnBackendDescriptorType_t kExecutionPlanDescriptor = 5;
inline constexpr cudnnBackendDescriptorType_t kOperationConvolutionForwardDescriptor = 10;
inline constexpr cudnnBackendDescriptorType_t kOperationPointwiseDescriptor = 13;
inline constexpr cudnnBackendDescriptorType_t kOperationGraphDescriptor = 15;
inline constexpr cudnnBackendDescriptorType_t kVariantPackDescriptor = 16;
inline constexpr cudnnBackendDescriptorType_t kTensorDescriptor = 17;

/// cudnnBackendAttributeType_t: what an attribute's array holds.
inline constexpr cudnnBackendAttributeType_t kTypeHandle = 0;
inline constexpr cudnnBackendAttributeType_t kTypeDataType = 1;
/// C's bool.
inline constexpr cudnnBackendAttributeType_t kTypeBoolean = 2;
inline constexpr cudnnBackendAttributeType_t kTypeInt64 = 3;
inline constexpr cudnnBackendAttributeType_t kTypeFloat = 4;
inline constexpr cudnnBackendAttributeType_t kTypeDouble = 5;
inline constexpr cudnnBackendAttributeType_t kTypeVoidPtr = 6;
inline constexpr cudnnBackendAttributeType_t kTypeConvolutionMode = 7;
inline constexpr cudnnBackendAttributeType_t kTypeHeurMode = 8;
inline constexpr cudnnBackendAttributeType_t kTypeNumericalNote = 11;
inline constexpr cudnnBackendAttributeType_t kTypePointwiseMode = 14;
inline constexpr cudnnBackendAttributeType_t kTypeBackendDescriptor = 15;

/// cudnnBackendAttributeName_t, by descriptor.
inline constexpr cudnnBackendAttributeName_t kAttrPointwiseMode = 0;
inline constexpr cudnnBackendAttributeName_t kAttrPointwiseMathPrec = 1;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionCompType = 100;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionConvMode = 101;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionDilations = 102;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionFilterStrides = 103;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionPostPaddings = 104;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionPrePaddings = 105;
inline constexpr cudnnBackendAttributeName_t kAttrConvolutionSpatialDims = 106;
inline constexpr cudnnBackendAttributeName_t kAttrEngineHeurMode = 200;
inline constexpr cudnnBackendAttributeName_t kAttrEngineHeurOperationGraph = 201;
inline constexpr cudnnBackendAttributeName_t kAttrEngineHeurResults = 202;
inline constexpr cudnnBackendAttributeName_t kAttrEngineCfgEngine = 300;
inline constexpr cudnnBackendAttributeName_t kAttrEngineCfgWorkspaceSize = 303;
/// Deprecated in cuDNN 9 (a device-properties descriptor may replace it),
/// still accepted: how the plan learns the device it runs on.
inline constexpr cudnnBackendAttributeName_t kAttrExecutionPlanHandle = 400;
inline constexpr cudnnBackendAttributeName_t kAttrExecutionPlanEngineConfig = 401;
inline constexpr cudnnBackendAttributeName_t kAttrExecutionPlanWorkspaceSize = 402;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardAlpha = 700;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardBeta = 701;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardConvDesc = 702;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardW = 703;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardX = 704;
inline constexpr cudnnBackendAttributeName_t kAttrOperationConvolutionForwardY = 705;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwisePwDescriptor = 750;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwiseXDesc = 751;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwiseBDesc = 752;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwiseYDesc = 753;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwiseAlpha1 = 754;
inline constexpr cudnnBackendAttributeName_t kAttrOperationPointwiseAlpha2 = 755;
/// Deprecated like the plan's handle, still accepted.
inline constexpr cudnnBackendAttributeName_t kAttrOperationGraphHandle = 800;
inline constexpr cudnnBackendAttributeName_t kAttrOperationGraphOps = 801;
inline constexpr cudnnBackendAttributeName_t kAttrTensorByteAlignment = 900;
inline constexpr cudnnBackendAttributeName_t kAttrTensorDataType = 901;
inline constexpr cudnnBackendAttributeName_t kAttrTensorDimensions = 902;
inline constexpr cudnnBackendAttributeName_t kAttrTensorStrides = 903;
inline constexpr cudnnBackendAttributeName_t kAttrTensorUniqueId = 906;
inline constexpr cudnnBackendAttributeName_t kAttrTensorIsVirtual = 907;
inline constexpr cudnnBackendAttributeName_t kAttrVariantPackUniqueIds = 1000;
inline constexpr cudnnBackendAttributeName_t kAttrVariantPackDataPointers = 1001;
inline constexpr cudnnBackendAttributeName_t kAttrVariantPackWorkspace = 1003;
inline constexpr cudnnBackendAttributeName_t kAttrEngineGlobalIndex = 1301;
inline constexpr cudnnBackendAttributeName_t kAttrEngineNumericalNote = 1303;

/// Attribute values.
inline constexpr cudnnDataType_t kCudnnDataFloat = 0;
inline constexpr cudnnDataType_t kCudnnDataHalf = 2;
inline constexpr cudnnDataType_t kCudnnDataBfloat16 = 9;
inline constexpr cudnnConvolutionMode_t kCudnnConvolution = 0;
inline constexpr cudnnConvolutionMode_t kCudnnCrossCorrelation = 1;
inline constexpr cudnnPointwiseMode_t kPointwiseAdd = 0;
inline constexpr cudnnPointwiseMode_t kPointwiseMul = 1;
inline constexpr cudnnPointwiseMode_t kPointwiseReluFwd = 100;
inline constexpr cudnnBackendHeurMode_t kHeurModeFallback = 2;
inline constexpr cudnnBackendHeurMode_t kHeurModeA = 3;
inline constexpr cudnnBackendNumericalNote_t kNumericalNoteTensorCore = 0;
inline constexpr cudnnBackendNumericalNote_t kNumericalNoteDownConvertInputs = 1;
inline constexpr cudnnBackendNumericalNote_t kNumericalNoteTypeCount = 10;

/// The default library name: cuDNN 9's soname (the small front library,
/// which loads its engine sublibraries itself).
inline constexpr const char *kDefaultCudnnLibrary = "libcudnn.so.9";

class CudnnApi {
public:
  /// Opens `library` with dlopen and resolves every entry point. Throws
  /// Error naming the library and the reason; like the driver, the library
  /// stays loaded until the process exits.
  static std::shared_ptr<const CudnnApi> load(const std::string &library);

  CudnnApi(const CudnnApi &) = delete;
  CudnnApi &operator=(const CudnnApi &) = delete;

  const std::string &library() const { return library_; }
  /// Throws Error "<call> failed <where>: CUDNN_STATUS_... (<text>)" unless
  /// `status` is success.
  void check(cudnnStatus_t status, const char *call, const std::string &where) const;
  /// "CUDNN_STATUS_NOT_SUPPORTED_SHAPE (not supported: ...)": the library's
  /// name of the status, and what its category means.
  std::string describe(cudnnStatus_t status) const;

  // The entry points, named after cudnn_graph.h's functions without the
  // "cudnn" prefix.
  size_t (*getVersion)() = nullptr;
  /// The status's name ("CUDNN_STATUS_BAD_PARAM").
  const char *(*getErrorString)(cudnnStatus_t status) = nullptr;
  cudnnStatus_t (*create)(cudnnHandle_t *handle) = nullptr;
  cudnnStatus_t (*destroy)(cudnnHandle_t handle) = nullptr;
  cudnnStatus_t (*setStream)(cudnnHandle_t handle, CUstream stream) = nullptr;
  cudnnStatus_t (*backendCreateDescriptor)(cudnnBackendDescriptorType_t type,
                                           cudnnBackendDescriptor_t *descriptor) = nullptr;
  cudnnStatus_t (*backendDestroyDescriptor)(cudnnBackendDescriptor_t descriptor) = nullptr;
  cudnnStatus_t (*backendFinalize)(cudnnBackendDescriptor_t descriptor) = nullptr;
  cudnnStatus_t (*backendSetAttribute)(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t elementCount,
                                       const void *elements) = nullptr;
  cudnnStatus_t (*backendGetAttribute)(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requestedElementCount,
                                       int64_t *elementCount, void *elements) = nullptr;
  cudnnStatus_t (*backendExecute)(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack) = nullptr;

private:
  CudnnApi(std::string library, void *handle) : library_(std::move(library)), handle_(handle) {}
  template <typename Function> void resolve(Function &slot, const char *symbol);

  std::string library_;
  void *handle_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDNNAPI_H
