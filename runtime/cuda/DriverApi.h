//===- DriverApi.h - The CUDA driver API, loaded with dlopen ----------------===//
//
// The runtime never links libcuda: the same binary must start, and run on
// the CPU, where no driver is installed. DriverApi::load() opens the driver
// library at run time and resolves each entry point by name into a table of
// function pointers.
//
// The few types and constants used are declared here with cuda.h's own
// spellings: handles are pointers to the same (incomplete) structs, so the
// signatures below are cuda.h's. DriverApiAbiTest compares every one with
// cuda.h wherever the toolkit is installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CUDA_DRIVERAPI_H
#define FUSEC_RUNTIME_CUDA_DRIVERAPI_H

#include "runtime/Error.h"
#include "runtime/gpu/GpuDevice.h"

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>

// cuda.h's handle structs (global, never defined by anyone but the driver).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUevent_st;
/// cuda.h's CUtensorMap (128 opaque bytes, 64-byte aligned).
struct CUtensorMap_st;

namespace fusec::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUgraph = CUgraph_st *;
using CUgraphExec = CUgraphExec_st *;
using CUevent = CUevent_st *;
/// cuda.h's enums are passed as ints.
using CUdevice_attribute = int;
using CUjit_option = int;
using CUstreamCaptureMode = int;
using CUfunction_attribute = int;

inline constexpr CUresult kCudaSuccess = 0;
/// cuStreamQuery: the stream still has work.
inline constexpr CUresult kCudaErrorNotReady = 600;
inline constexpr CUdevice_attribute kAttributeComputeCapabilityMajor = 75;
inline constexpr CUdevice_attribute kAttributeComputeCapabilityMinor = 76;
inline constexpr CUdevice_attribute kAttributeMultiprocessorCount = 16;
/// cuFuncSetAttribute: the dynamic shared memory a launch may ask for
/// (above 48 KiB only with this opt-in).
inline constexpr CUfunction_attribute kFunctionAttributeMaxDynamicSharedBytes = 8;
inline constexpr CUjit_option kJitErrorLogBuffer = 5;
inline constexpr CUjit_option kJitErrorLogBufferSizeBytes = 6;
inline constexpr unsigned kStreamNonBlocking = 1;
/// Only this thread's CUDA calls are checked against the capture.
inline constexpr CUstreamCaptureMode kCaptureModeThreadLocal = 1;
inline constexpr unsigned kEventDefault = 0;
inline constexpr unsigned kMemHostAllocDeviceMap = 2;
inline constexpr unsigned kStreamWaitValueGeq = 0;
/// cuTensorMapEncodeTiled's enums (CUtensorMapDataType, ...): the values
/// fusec's tensor maps use.
inline constexpr int kTensorMapFloat16 = 6;
inline constexpr int kTensorMapBfloat16 = 9;
inline constexpr int kTensorMapInterleaveNone = 0;
inline constexpr int kTensorMapSwizzleNone = 0;
inline constexpr int kTensorMapSwizzle128B = 3;
inline constexpr int kTensorMapL2Promotion128B = 2;
inline constexpr int kTensorMapOobFillNone = 0;
/// A CUtensorMap's size, and the alignment the encoder's output gets
/// (cuda.h declares 64 bytes up to CUDA 12, 128 from CUDA 13).
inline constexpr size_t kTensorMapBytes = 128;
inline constexpr size_t kTensorMapAlignment = 128;

/// CUDA cannot be used here: no driver library, a driver without a needed
/// entry point, a driver that fails to initialize, or no device. Device::Auto
/// falls back to the CPU on this error and on no other.
class CudaUnavailable : public gpu::GpuUnavailable {
public:
  using gpu::GpuUnavailable::GpuUnavailable;
};

class DriverApi {
public:
  /// Opens `library` with dlopen and resolves every entry point. Throws
  /// CudaUnavailable naming the library and the reason. The library stays
  /// loaded until the process exits, whatever happens to the DriverApi.
  static std::shared_ptr<const DriverApi> load(const std::string &library);

  ~DriverApi();
  DriverApi(const DriverApi &) = delete;
  DriverApi &operator=(const DriverApi &) = delete;

  const std::string &library() const { return library_; }

  /// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string describe(CUresult result) const;
  /// Throws Error "<call> failed <where>: <describe(result)>" unless
  /// `result` is success. `where` names the kernel and the bucket.
  void check(CUresult result, const char *call, const std::string &where) const;
  /// check() for a failed result; hot paths test the result first, so that
  /// they build the `where` message only on failure.
  [[noreturn]] void fail(CUresult result, const char *call, const std::string &where) const;

  // The entry points, named after cuda.h's functions without the "cu"
  // prefix; DriverApi.cpp lists the symbol each is resolved from.
  CUresult (*init)(unsigned flags) = nullptr;
  CUresult (*driverGetVersion)(int *version) = nullptr;
  CUresult (*deviceGetCount)(int *count) = nullptr;
  CUresult (*deviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*deviceGetAttribute)(int *value, CUdevice_attribute attribute, CUdevice device) = nullptr;
  CUresult (*deviceGetName)(char *name, int length, CUdevice device) = nullptr;
  CUresult (*devicePrimaryCtxRetain)(CUcontext *context, CUdevice device) = nullptr;
  CUresult (*devicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*ctxGetCurrent)(CUcontext *context) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*moduleLoadDataEx)(CUmodule *module, const void *image, unsigned numOptions, CUjit_option *options,
                               void **optionValues) = nullptr;
  CUresult (*moduleUnload)(CUmodule module) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction *function, CUmodule module, const char *name) = nullptr;
  CUresult (*funcSetAttribute)(CUfunction function, CUfunction_attribute attribute, int value) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  CUresult (*memFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*memHostAlloc)(void **pointer, size_t bytes, unsigned flags) = nullptr;
  CUresult (*memHostGetDevicePointer)(CUdeviceptr *device, void *host, unsigned flags) = nullptr;
  CUresult (*memFreeHost)(void *pointer) = nullptr;
  CUresult (*memcpyHtoDAsync)(CUdeviceptr destination, const void *source, size_t bytes, CUstream stream) = nullptr;
  CUresult (*memcpyDtoHAsync)(void *destination, CUdeviceptr source, size_t bytes, CUstream stream) = nullptr;
  CUresult (*memcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, size_t bytes, CUstream stream) = nullptr;
  CUresult (*memsetD8Async)(CUdeviceptr destination, unsigned char value, size_t count, CUstream stream) = nullptr;
  CUresult (*streamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*streamDestroy)(CUstream stream) = nullptr;
  CUresult (*streamSynchronize)(CUstream stream) = nullptr;
  CUresult (*streamQuery)(CUstream stream) = nullptr;
  CUresult (*streamWaitValue32)(CUstream stream, CUdeviceptr address, unsigned value, unsigned flags) = nullptr;
  CUresult (*streamWaitEvent)(CUstream stream, CUevent event, unsigned flags) = nullptr;
  CUresult (*launchKernel)(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                           unsigned blockY, unsigned blockZ, unsigned sharedMemBytes, CUstream stream,
                           void **kernelParams, void **extra) = nullptr;
  CUresult (*streamBeginCapture)(CUstream stream, CUstreamCaptureMode mode) = nullptr;
  CUresult (*streamEndCapture)(CUstream stream, CUgraph *graph) = nullptr;
  CUresult (*graphInstantiate)(CUgraphExec *exec, CUgraph graph, unsigned long long flags) = nullptr;
  CUresult (*graphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*graphDestroy)(CUgraph graph) = nullptr;
  CUresult (*graphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*eventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*eventDestroy)(CUevent event) = nullptr;
  CUresult (*eventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*eventElapsedTime)(float *milliseconds, CUevent start, CUevent end) = nullptr;
  CUresult (*getErrorName)(CUresult result, const char **name) = nullptr;
  CUresult (*getErrorString)(CUresult result, const char **text) = nullptr;
  /// Optional (CUDA 12.0 drivers and later): null where the driver lacks
  /// it, and then plans whose launches pass tensor maps cannot run.
  CUresult (*tensorMapEncodeTiled)(CUtensorMap_st *tensorMap, int dataType, unsigned rank, void *globalAddress,
                                   const unsigned long long *globalDim, const unsigned long long *globalStrides,
                                   const unsigned *boxDim, const unsigned *elementStrides, int interleave, int swizzle,
                                   int l2Promotion, int oobFill) = nullptr;

private:
  DriverApi(std::string library, void *handle);
  /// Resolves `slot` from the first of `symbols` the library exports.
  template <typename Function> void resolve(Function &slot, std::initializer_list<const char *> symbols);
  /// As resolve, leaving `slot` null if the library lacks the symbol.
  template <typename Function> void resolveOptional(Function &slot, const char *symbol);

  std::string library_;
  void *handle_;
};

} // namespace fusec::runtime::cuda

#endif // FUSEC_RUNTIME_CUDA_DRIVERAPI_H
