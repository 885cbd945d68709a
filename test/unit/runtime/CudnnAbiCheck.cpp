//===- CudnnAbiCheck.cpp - CudnnApi's declarations against cudnn_graph.h --===//
//
// CudnnApi declares cuDNN's backend entry points, types and constants by
// hand so that the runtime builds without cuDNN. Where cudnn_graph.h is
// installed (beside the CUDA toolkit's headers), this file is compiled into
// the runtime tests and checks every declaration against it; the
// static_asserts are the test. It links nothing from cuDNN.
//
//===----------------------------------------------------------------------===//

#include "AbiCheck.h"

#include "runtime/cuda/CudnnApi.h"

#include <cudnn_graph.h>

#include <type_traits>

namespace {

namespace fc = fusec::runtime::cuda;
using fusec::test::abi::sameAbi;

#define FUSEC_CHECK_ENTRY(member, function) FUSEC_CHECK_ENTRY_OF(fc::CudnnApi, member, function)

FUSEC_CHECK_ENTRY(getVersion, cudnnGetVersion);
FUSEC_CHECK_ENTRY(getErrorString, cudnnGetErrorString);
FUSEC_CHECK_ENTRY(create, cudnnCreate);
FUSEC_CHECK_ENTRY(destroy, cudnnDestroy);
FUSEC_CHECK_ENTRY(setStream, cudnnSetStream);
FUSEC_CHECK_ENTRY(backendCreateDescriptor, cudnnBackendCreateDescriptor);
FUSEC_CHECK_ENTRY(backendDestroyDescriptor, cudnnBackendDestroyDescriptor);
FUSEC_CHECK_ENTRY(backendFinalize, cudnnBackendFinalize);
FUSEC_CHECK_ENTRY(backendSetAttribute, cudnnBackendSetAttribute);
FUSEC_CHECK_ENTRY(backendGetAttribute, cudnnBackendGetAttribute);
FUSEC_CHECK_ENTRY(backendExecute, cudnnBackendExecute);

// Types.
static_assert(std::is_same_v<fc::cudnnHandle_t, ::cudnnHandle_t>);
static_assert(std::is_same_v<fc::cudnnBackendDescriptor_t, ::cudnnBackendDescriptor_t>);
static_assert(std::is_same_v<fc::CUstream, ::cudaStream_t>);
static_assert(sameAbi<fc::cudnnStatus_t, ::cudnnStatus_t>());
static_assert(sameAbi<fc::cudnnBackendDescriptorType_t, ::cudnnBackendDescriptorType_t>());
static_assert(sameAbi<fc::cudnnBackendAttributeName_t, ::cudnnBackendAttributeName_t>());
static_assert(sameAbi<fc::cudnnBackendAttributeType_t, ::cudnnBackendAttributeType_t>());
/// The enums that are attribute values: one element of the attribute's
/// array each.
static_assert(sameAbi<fc::cudnnDataType_t, ::cudnnDataType_t>());
static_assert(sameAbi<fc::cudnnConvolutionMode_t, ::cudnnConvolutionMode_t>());
static_assert(sameAbi<fc::cudnnPointwiseMode_t, ::cudnnPointwiseMode_t>());
static_assert(sameAbi<fc::cudnnBackendHeurMode_t, ::cudnnBackendHeurMode_t>());
static_assert(sameAbi<fc::cudnnBackendNumericalNote_t, ::cudnnBackendNumericalNote_t>());

// Constants.
static_assert(fc::kCudnnSuccess == CUDNN_STATUS_SUCCESS);
static_assert(fc::kCudnnNotInitialized == CUDNN_STATUS_NOT_INITIALIZED);
static_assert(fc::kCudnnBadParam == CUDNN_STATUS_BAD_PARAM);
static_assert(fc::kCudnnBadParamNotFinalized == CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
static_assert(fc::kCudnnNotSupported == CUDNN_STATUS_NOT_SUPPORTED);
static_assert(fc::kCudnnInternalError == CUDNN_STATUS_INTERNAL_ERROR);
static_assert(fc::kCudnnExecutionFailed == CUDNN_STATUS_EXECUTION_FAILED);
static_assert(fc::cudnnStatusCategory(CUDNN_STATUS_NOT_SUPPORTED_SHAPE) ==
              CUDNN_STATUS_CATEGORY(CUDNN_STATUS_NOT_SUPPORTED_SHAPE));
static_assert(fc::cudnnStatusCategory(CUDNN_STATUS_NOT_SUPPORTED_SHAPE) == CUDNN_STATUS_NOT_SUPPORTED);

static_assert(fc::kPointwiseDescriptor == CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
static_assert(fc::kConvolutionDescriptor == CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
static_assert(fc::kEngineDescriptor == CUDNN_BACKEND_ENGINE_DESCRIPTOR);
static_assert(fc::kEngineCfgDescriptor == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
static_assert(fc::kEngineHeurDescriptor == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
static_assert(fc::kExecutionPlanDescriptor == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
static_assert(fc::kOperationConvolutionForwardDescriptor == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
static_assert(fc::kOperationPointwiseDescriptor == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
static_assert(fc::kOperationGraphDescriptor == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
static_assert(fc::kVariantPackDescriptor == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
static_assert(fc::kTensorDescriptor == CUDNN_BACKEND_TENSOR_DESCRIPTOR);

static_assert(fc::kTypeHandle == CUDNN_TYPE_HANDLE);
static_assert(fc::kTypeDataType == CUDNN_TYPE_DATA_TYPE);
static_assert(fc::kTypeBoolean == CUDNN_TYPE_BOOLEAN);
static_assert(fc::kTypeInt64 == CUDNN_TYPE_INT64);
static_assert(fc::kTypeFloat == CUDNN_TYPE_FLOAT);
static_assert(fc::kTypeDouble == CUDNN_TYPE_DOUBLE);
static_assert(fc::kTypeVoidPtr == CUDNN_TYPE_VOID_PTR);
static_assert(fc::kTypeConvolutionMode == CUDNN_TYPE_CONVOLUTION_MODE);
static_assert(fc::kTypeHeurMode == CUDNN_TYPE_HEUR_MODE);
static_assert(fc::kTypeNumericalNote == CUDNN_TYPE_NUMERICAL_NOTE);
static_assert(fc::kTypePointwiseMode == CUDNN_TYPE_POINTWISE_MODE);
static_assert(fc::kTypeBackendDescriptor == CUDNN_TYPE_BACKEND_DESCRIPTOR);

static_assert(fc::kAttrPointwiseMode == CUDNN_ATTR_POINTWISE_MODE);
static_assert(fc::kAttrPointwiseMathPrec == CUDNN_ATTR_POINTWISE_MATH_PREC);
static_assert(fc::kAttrConvolutionCompType == CUDNN_ATTR_CONVOLUTION_COMP_TYPE);
static_assert(fc::kAttrConvolutionConvMode == CUDNN_ATTR_CONVOLUTION_CONV_MODE);
static_assert(fc::kAttrConvolutionDilations == CUDNN_ATTR_CONVOLUTION_DILATIONS);
static_assert(fc::kAttrConvolutionFilterStrides == CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
static_assert(fc::kAttrConvolutionPostPaddings == CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
static_assert(fc::kAttrConvolutionPrePaddings == CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
static_assert(fc::kAttrConvolutionSpatialDims == CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS);
static_assert(fc::kAttrEngineHeurMode == CUDNN_ATTR_ENGINEHEUR_MODE);
static_assert(fc::kAttrEngineHeurOperationGraph == CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
static_assert(fc::kAttrEngineHeurResults == CUDNN_ATTR_ENGINEHEUR_RESULTS);
static_assert(fc::kAttrEngineCfgEngine == CUDNN_ATTR_ENGINECFG_ENGINE);
static_assert(fc::kAttrEngineCfgWorkspaceSize == CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE);
static_assert(fc::kAttrExecutionPlanHandle == CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
static_assert(fc::kAttrExecutionPlanEngineConfig == CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
static_assert(fc::kAttrExecutionPlanWorkspaceSize == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
static_assert(fc::kAttrOperationConvolutionForwardAlpha == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA);
static_assert(fc::kAttrOperationConvolutionForwardBeta == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA);
static_assert(fc::kAttrOperationConvolutionForwardConvDesc == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC);
static_assert(fc::kAttrOperationConvolutionForwardW == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W);
static_assert(fc::kAttrOperationConvolutionForwardX == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X);
static_assert(fc::kAttrOperationConvolutionForwardY == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y);
static_assert(fc::kAttrOperationPointwisePwDescriptor == CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR);
static_assert(fc::kAttrOperationPointwiseXDesc == CUDNN_ATTR_OPERATION_POINTWISE_XDESC);
static_assert(fc::kAttrOperationPointwiseBDesc == CUDNN_ATTR_OPERATION_POINTWISE_BDESC);
static_assert(fc::kAttrOperationPointwiseYDesc == CUDNN_ATTR_OPERATION_POINTWISE_YDESC);
static_assert(fc::kAttrOperationPointwiseAlpha1 == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1);
static_assert(fc::kAttrOperationPointwiseAlpha2 == CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2);
static_assert(fc::kAttrOperationGraphHandle == CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
static_assert(fc::kAttrOperationGraphOps == CUDNN_ATTR_OPERATIONGRAPH_OPS);
static_assert(fc::kAttrTensorByteAlignment == CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
static_assert(fc::kAttrTensorDataType == CUDNN_ATTR_TENSOR_DATA_TYPE);
static_assert(fc::kAttrTensorDimensions == CUDNN_ATTR_TENSOR_DIMENSIONS);
static_assert(fc::kAttrTensorStrides == CUDNN_ATTR_TENSOR_STRIDES);
static_assert(fc::kAttrTensorUniqueId == CUDNN_ATTR_TENSOR_UNIQUE_ID);
static_assert(fc::kAttrTensorIsVirtual == CUDNN_ATTR_TENSOR_IS_VIRTUAL);
static_assert(fc::kAttrVariantPackUniqueIds == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
static_assert(fc::kAttrVariantPackDataPointers == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
static_assert(fc::kAttrVariantPackWorkspace == CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
static_assert(fc::kAttrEngineGlobalIndex == CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
static_assert(fc::kAttrEngineNumericalNote == CUDNN_ATTR_ENGINE_NUMERICAL_NOTE);

static_assert(fc::kCudnnDataFloat == CUDNN_DATA_FLOAT);
static_assert(fc::kCudnnDataHalf == CUDNN_DATA_HALF);
static_assert(fc::kCudnnDataBfloat16 == CUDNN_DATA_BFLOAT16);
static_assert(fc::kCudnnConvolution == CUDNN_CONVOLUTION);
static_assert(fc::kCudnnCrossCorrelation == CUDNN_CROSS_CORRELATION);
static_assert(fc::kPointwiseAdd == CUDNN_POINTWISE_ADD);
static_assert(fc::kPointwiseMul == CUDNN_POINTWISE_MUL);
static_assert(fc::kPointwiseReluFwd == CUDNN_POINTWISE_RELU_FWD);
static_assert(fc::kHeurModeFallback == CUDNN_HEUR_MODE_FALLBACK);
static_assert(fc::kHeurModeA == CUDNN_HEUR_MODE_A);
static_assert(fc::kNumericalNoteTensorCore == CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
static_assert(fc::kNumericalNoteDownConvertInputs == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
static_assert(fc::kNumericalNoteTypeCount == CUDNN_NUMERICAL_NOTE_TYPE_COUNT);

} // namespace
