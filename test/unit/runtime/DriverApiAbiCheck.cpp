//===- DriverApiAbiCheck.cpp - DriverApi's signatures against cuda.h --------===//
//
// DriverApi declares the driver's entry points by hand so that the runtime
// builds without the CUDA toolkit. Where the toolkit is installed, this file
// is compiled into the runtime tests and checks every declaration against
// cuda.h; the static_asserts are the test. It links nothing from CUDA.
//
//===----------------------------------------------------------------------===//

#include "AbiCheck.h"

#include "runtime/cuda/DriverApi.h"

#include <cuda.h>

#include <type_traits>

namespace {

namespace fc = fusec::runtime::cuda;

#define FUSEC_CHECK_ENTRY(member, function) FUSEC_CHECK_ENTRY_OF(fc::DriverApi, member, function)

// cuda.h maps the unversioned names to the symbols DriverApi.cpp resolves
// (cuMemAlloc to cuMemAlloc_v2, ...).
FUSEC_CHECK_ENTRY(init, cuInit);
FUSEC_CHECK_ENTRY(driverGetVersion, cuDriverGetVersion);
FUSEC_CHECK_ENTRY(deviceGetCount, cuDeviceGetCount);
FUSEC_CHECK_ENTRY(deviceGet, cuDeviceGet);
FUSEC_CHECK_ENTRY(deviceGetAttribute, cuDeviceGetAttribute);
FUSEC_CHECK_ENTRY(deviceGetName, cuDeviceGetName);
FUSEC_CHECK_ENTRY(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
FUSEC_CHECK_ENTRY(devicePrimaryCtxRelease, cuDevicePrimaryCtxRelease);
FUSEC_CHECK_ENTRY(ctxGetCurrent, cuCtxGetCurrent);
FUSEC_CHECK_ENTRY(ctxSetCurrent, cuCtxSetCurrent);
FUSEC_CHECK_ENTRY(moduleLoadDataEx, cuModuleLoadDataEx);
FUSEC_CHECK_ENTRY(moduleUnload, cuModuleUnload);
FUSEC_CHECK_ENTRY(moduleGetFunction, cuModuleGetFunction);
FUSEC_CHECK_ENTRY(funcSetAttribute, cuFuncSetAttribute);
FUSEC_CHECK_ENTRY(memAlloc, cuMemAlloc);
FUSEC_CHECK_ENTRY(memFree, cuMemFree);
FUSEC_CHECK_ENTRY(memHostAlloc, cuMemHostAlloc);
FUSEC_CHECK_ENTRY(memHostGetDevicePointer, cuMemHostGetDevicePointer);
FUSEC_CHECK_ENTRY(memFreeHost, cuMemFreeHost);
FUSEC_CHECK_ENTRY(memcpyHtoDAsync, cuMemcpyHtoDAsync);
FUSEC_CHECK_ENTRY(memcpyDtoHAsync, cuMemcpyDtoHAsync);
FUSEC_CHECK_ENTRY(memcpyDtoDAsync, cuMemcpyDtoDAsync);
FUSEC_CHECK_ENTRY(memsetD8Async, cuMemsetD8Async);
FUSEC_CHECK_ENTRY(streamCreate, cuStreamCreate);
FUSEC_CHECK_ENTRY(streamDestroy, cuStreamDestroy);
FUSEC_CHECK_ENTRY(streamSynchronize, cuStreamSynchronize);
FUSEC_CHECK_ENTRY(streamQuery, cuStreamQuery);
FUSEC_CHECK_ENTRY(streamWaitValue32, cuStreamWaitValue32);
FUSEC_CHECK_ENTRY(streamWaitEvent, cuStreamWaitEvent);
FUSEC_CHECK_ENTRY(launchKernel, cuLaunchKernel);
FUSEC_CHECK_ENTRY(streamBeginCapture, cuStreamBeginCapture);
FUSEC_CHECK_ENTRY(streamEndCapture, cuStreamEndCapture);
FUSEC_CHECK_ENTRY(graphInstantiate, cuGraphInstantiateWithFlags);
FUSEC_CHECK_ENTRY(graphLaunch, cuGraphLaunch);
FUSEC_CHECK_ENTRY(graphDestroy, cuGraphDestroy);
FUSEC_CHECK_ENTRY(graphExecDestroy, cuGraphExecDestroy);
FUSEC_CHECK_ENTRY(eventCreate, cuEventCreate);
FUSEC_CHECK_ENTRY(eventDestroy, cuEventDestroy);
FUSEC_CHECK_ENTRY(eventRecord, cuEventRecord);
FUSEC_CHECK_ENTRY(eventElapsedTime, cuEventElapsedTime);
FUSEC_CHECK_ENTRY(getErrorName, cuGetErrorName);
FUSEC_CHECK_ENTRY(getErrorString, cuGetErrorString);
FUSEC_CHECK_ENTRY(tensorMapEncodeTiled, cuTensorMapEncodeTiled);

static_assert(std::is_same_v<fc::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<fc::CUcontext, ::CUcontext>);
static_assert(std::is_same_v<fc::CUstream, ::CUstream>);
static_assert(std::is_same_v<fc::CUgraphExec, ::CUgraphExec>);
static_assert(fc::kCudaSuccess == CUDA_SUCCESS);
static_assert(fc::kCudaErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(fc::kAttributeComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(fc::kAttributeComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(fc::kAttributeMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(fc::kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(fc::kJitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(fc::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(fc::kCaptureModeThreadLocal == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(fc::kEventDefault == CU_EVENT_DEFAULT);
static_assert(fc::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(fc::kStreamWaitValueGeq == CU_STREAM_WAIT_VALUE_GEQ);
static_assert(fc::kTensorMapFloat16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
static_assert(fc::kTensorMapBfloat16 == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
static_assert(fc::kTensorMapInterleaveNone == CU_TENSOR_MAP_INTERLEAVE_NONE);
static_assert(fc::kTensorMapSwizzle128B == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(fc::kTensorMapL2Promotion128B == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
static_assert(fc::kTensorMapOobFillNone == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
static_assert(fc::kTensorMapBytes == sizeof(CUtensorMap) && fc::kTensorMapAlignment >= alignof(CUtensorMap));

} // namespace
