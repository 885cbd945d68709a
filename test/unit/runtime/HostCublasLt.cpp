//===- HostCublasLt.cpp - A CPU-hosted test double of cuBLASLt -------------===//
//
// Compiled into the CUDA driver double's library (HostCudaDriver.cpp), this
// file exports the cuBLASLt entry points the runtime resolves
// (runtime/cuda/CublasLtApi.h), with exactly that table's signatures, and
// implements them on the host, so that a library variant of a GEMM runs
// without a GPU: a test names the one library as DeviceOptions::cudaDriver
// and as the cuBLASLt library. It models cuBLASLt, not fusec's use of it:
// matrices are column-major as the real library's are, so a runtime that maps
// its row-major problem wrongly computes wrong numbers here too.
//
// What it models, and how faithfully:
//  - handles, matmul descriptors (compute CUBLAS_COMPUTE_32F or
//    _32F_FAST_TF32, scale type CUDA_R_32F, pointer mode host), matrix
//    layouts (CUDA_R_32F, _16F, _16BF; column-major; strided batches) and
//    preferences (the workspace limit). The attributes fusec sets are kept;
//    any other is refused (CUBLAS_STATUS_NOT_SUPPORTED) rather than ignored,
//    and a value of the wrong size fails as the real library fails
//    (CUBLAS_STATUS_INVALID_VALUE).
//  - the heuristic checks the problem as cublasLtMatmul would and offers one
//    algorithm that needs kWorkspaceBytes of workspace: none (status
//    CUBLAS_STATUS_NOT_SUPPORTED) where the preference allows less.
//  - cublasLtMatmul checks again, copies alpha and beta (host pointers) and
//    the descriptors' values, and queues one operation on the driver
//    double's stream, as a kernel launch is queued: it runs when the host
//    waits, is recorded by a capture and replayed by its graph. Per batch b:
//      D = act(alpha * op(A) op(B) + beta * C + bias),
//    with f32 accumulation (TF32 inputs under _FAST_TF32: rounded as fusec's
//    fusec_to_tf32 rounds, to nearest with ties away from zero), the bias
//    one value per row of D, f16/bf16 read exactly and D rounded to its type
//    to nearest even. C is not read when beta is 0 (it may alias D, or be
//    null). Every matrix must lie inside live device memory, checked at the
//    call (CUBLAS_STATUS_EXECUTION_FAILED, as a failed launch) and again when
//    the operation runs (the stream fails with CUDA_ERROR_ILLEGAL_ADDRESS,
//    as a kernel's fault does: a graph replayed after a free).
//  - HostCudaState records the objects alive and the calls, and its
//    cublasLtFailure makes the library fail (HostCudaDriver.h).
//
//===----------------------------------------------------------------------===//
#include "HostCudaDriver.h"

#include "runtime/cuda/CublasLtApi.h"
#include "support/HalfFloat.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>

namespace lt = fusec::runtime::cuda;
using lt::cublasComputeType_t;
using lt::cublasLtHandle_t;
using lt::cublasLtMatmulAlgo_t;
using lt::cublasLtMatmulDesc_t;
using lt::cublasLtMatmulDescAttributes_t;
using lt::cublasLtMatmulHeuristicResult_t;
using lt::cublasLtMatmulPreference_t;
using lt::cublasLtMatmulPreferenceAttributes_t;
using lt::cublasLtMatrixLayout_t;
using lt::cublasLtMatrixLayoutAttribute_t;
using lt::cublasStatus_t;
using lt::cudaDataType;
using lt::CUstream;

namespace {

// cublas_api.h's values for the statuses this double returns.
constexpr cublasStatus_t kSuccess = 0;
constexpr cublasStatus_t kNotInitialized = 1;
constexpr cublasStatus_t kAllocFailed = 3;
constexpr cublasStatus_t kInvalidValue = 7;
constexpr cublasStatus_t kArchMismatch = 8;
constexpr cublasStatus_t kMappingError = 11;
constexpr cublasStatus_t kExecutionFailed = 13;
constexpr cublasStatus_t kInternalError = 14;
constexpr cublasStatus_t kNotSupported = 15;
constexpr cublasStatus_t kLicenseError = 16;

constexpr int kCudaSuccess = 0;
constexpr int kCudaIllegalAddress = 700;

/// cuBLASLt's names and texts (cublasLtGetStatusName/String).
const std::map<cublasStatus_t, std::pair<const char *, const char *>> kStatusNames = {
    {kSuccess, {"CUBLAS_STATUS_SUCCESS", "success"}},
    {kNotInitialized, {"CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"}},
    {kAllocFailed, {"CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"}},
    {kInvalidValue, {"CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"}},
    {kArchMismatch, {"CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"}},
    {kMappingError, {"CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"}},
    {kExecutionFailed, {"CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"}},
    {kInternalError, {"CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"}},
    {kNotSupported, {"CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"}},
    {kLicenseError, {"CUBLAS_STATUS_LICENSE_ERROR", "error detected trying to check the license"}},
};

/// The workspace the double's one algorithm asks for: small, but not 0, so
/// that a runtime which passes no workspace is caught.
constexpr uint64_t kWorkspaceBytes = 1024;
/// algo.data[0] of the algorithms the heuristic returns ("fusecLt"): a
/// matmul refuses any other.
constexpr uint64_t kAlgoMarker = 0x66757365634c74;

/// bias data type attribute: -1 means D's type.
constexpr int32_t kBiasTypeOfD = -1;

struct Handle {};

struct MatmulDesc {
  cublasComputeType_t compute;
  cudaDataType scale;
  int32_t transA = lt::kCublasOpN;
  int32_t transB = lt::kCublasOpN;
  uint32_t epilogue = lt::kEpilogueDefault;
  uintptr_t bias = 0;
  int64_t biasBatchStride = 0;
  int32_t biasType = kBiasTypeOfD;
};

struct Layout {
  cudaDataType type;
  uint64_t rows;
  uint64_t cols;
  int64_t ld;
  int32_t batchCount = 1;
  int64_t batchStride = 0;
};

struct Preference {
  uint64_t maxWorkspaceBytes = 0;
  /// The alignment (bytes) the chosen algorithm may assume of A, B, C, D:
  /// 256 unless the caller says less (cublasLt.h's default).
  uint32_t minAlignment[4] = {256, 256, 256, 256};
};

/// The live objects, by handle; guarded by host_cuda::lock().
struct Objects {
  std::map<const void *, std::unique_ptr<Handle>> handles;
  std::map<const void *, std::unique_ptr<MatmulDesc>> descs;
  std::map<const void *, std::unique_ptr<Layout>> layouts;
  std::map<const void *, std::unique_ptr<Preference>> preferences;
};

Objects &objects() {
  static Objects instance;
  return instance;
}

HostCudaState &record() { return *hostCudaState(); }

/// Sets the record's live counts from the tables.
void recount(const Objects &o) {
  record().cublasLtHandlesLive = static_cast<int>(o.handles.size());
  record().cublasLtDescriptorsLive = static_cast<int>(o.descs.size() + o.layouts.size() + o.preferences.size());
}

/// Returns `status`, noting why a call was refused for a test's message.
cublasStatus_t refuse(cublasStatus_t status, const char *why) {
  record().cublasLtLastRefusal = why;
  return status;
}

template <typename T> T *find(const std::map<const void *, std::unique_ptr<T>> &table, const void *handle) {
  auto it = table.find(handle);
  return it == table.end() ? nullptr : it->second.get();
}

template <typename Handle, typename T>
cublasStatus_t create(std::map<const void *, std::unique_ptr<T>> &table, Handle *out, std::unique_ptr<T> object) {
  if (!out)
    return refuse(kInvalidValue, "a null pointer for the created object");
  *out = reinterpret_cast<Handle>(object.get());
  table.emplace(object.get(), std::move(object));
  recount(objects());
  return kSuccess;
}

/// As the real library: destroying null is a no-op.
template <typename T> cublasStatus_t destroy(std::map<const void *, std::unique_ptr<T>> &table, const void *handle) {
  if (!handle)
    return kSuccess;
  if (!table.erase(handle))
    return refuse(kInvalidValue, "destroying an object that is not alive");
  recount(objects());
  return kSuccess;
}

/// Copies an attribute's value of exactly `T`'s size, as cuBLASLt checks it.
template <typename T> cublasStatus_t setValue(T &slot, const void *value, size_t bytes) {
  if (!value || bytes != sizeof(T))
    return refuse(kInvalidValue, "an attribute value of the wrong size (or null)");
  std::memcpy(&slot, value, sizeof(T));
  return kSuccess;
}

bool knownType(cudaDataType type) { return type == lt::kCudaR32F || type == lt::kCudaR16F || type == lt::kCudaR16BF; }

uint64_t elementBytes(cudaDataType type) { return type == lt::kCudaR32F ? 4 : 2; }

bool hasBias(uint32_t epilogue) {
  return epilogue == lt::kEpilogueBias || epilogue == lt::kEpilogueReluBias || epilogue == lt::kEpilogueGeluBias;
}

/// Bytes from a matrix's first element to past its last, over the batch.
uint64_t extentBytes(const Layout &layout) {
  if (layout.rows == 0 || layout.cols == 0)
    return 0;
  const uint64_t elements = uint64_t(layout.batchCount - 1) * uint64_t(layout.batchStride) +
                            (layout.cols - 1) * uint64_t(layout.ld) + layout.rows;
  return elements * elementBytes(layout.type);
}

/// A problem that passed the checks: the descriptors' values, copied.
struct Problem {
  MatmulDesc desc;
  Layout a, b, c, d;
  uint64_t m, n, k;
  cudaDataType biasType;
};

/// What cuBLASLt says of the problem before looking at any pointer: the
/// checks the heuristic and the matmul share.
cublasStatus_t check(const Objects &o, cublasLtHandle_t handle, cublasLtMatmulDesc_t descHandle,
                     cublasLtMatrixLayout_t aHandle, cublasLtMatrixLayout_t bHandle, cublasLtMatrixLayout_t cHandle,
                     cublasLtMatrixLayout_t dHandle, Problem &problem) {
  if (!find(o.handles, handle))
    return refuse(kNotInitialized, "not a live cuBLASLt handle");
  const MatmulDesc *desc = find(o.descs, descHandle);
  const Layout *a = find(o.layouts, aHandle), *b = find(o.layouts, bHandle);
  const Layout *c = find(o.layouts, cHandle), *d = find(o.layouts, dHandle);
  if (!desc || !a || !b || !c || !d)
    return refuse(kInvalidValue, "not a live matmul descriptor or matrix layout");
  const uint32_t e = desc->epilogue;
  if (e != lt::kEpilogueDefault && e != lt::kEpilogueRelu && !hasBias(e) && e != lt::kEpilogueGelu)
    return refuse(kNotSupported, "an epilogue the double does not model");
  if (desc->transA != lt::kCublasOpN && desc->transA != lt::kCublasOpT)
    return refuse(kNotSupported, "TRANSA is neither CUBLAS_OP_N nor CUBLAS_OP_T");
  if (desc->transB != lt::kCublasOpN && desc->transB != lt::kCublasOpT)
    return refuse(kNotSupported, "TRANSB is neither CUBLAS_OP_N nor CUBLAS_OP_T");
  if (desc->scale != lt::kCudaR32F)
    return refuse(kNotSupported, "a scale type other than CUDA_R_32F");
  // cuBLASLt's table of supported types: A and B alike, C and D alike; f32
  // computes f32 from f32 and f32 or 16-bit D from 16-bit inputs; TF32 is
  // for f32 only.
  if (a->type != b->type || c->type != d->type)
    return refuse(kNotSupported, "A and B, or C and D, of different types");
  if (a->type == lt::kCudaR32F ? d->type != lt::kCudaR32F : d->type != a->type && d->type != lt::kCudaR32F)
    return refuse(kNotSupported, "D's type does not go with A's");
  if (desc->compute != lt::kCublasCompute32F &&
      !(desc->compute == lt::kCublasCompute32FFastTf32 && a->type == lt::kCudaR32F))
    return refuse(kNotSupported, "a compute type that does not go with the inputs");
  const cudaDataType biasType = desc->biasType == kBiasTypeOfD ? d->type : desc->biasType;
  if (hasBias(e) && biasType != d->type && biasType != lt::kCudaR32F)
    return refuse(kNotSupported, "a bias type other than D's or CUDA_R_32F");
  // op(A) is m x k, op(B) k x n, C and D m x n.
  const uint64_t aRows = desc->transA == lt::kCublasOpT ? a->cols : a->rows;
  const uint64_t aCols = desc->transA == lt::kCublasOpT ? a->rows : a->cols;
  const uint64_t bRows = desc->transB == lt::kCublasOpT ? b->cols : b->rows;
  const uint64_t bCols = desc->transB == lt::kCublasOpT ? b->rows : b->cols;
  if (aRows != d->rows || bCols != d->cols || aCols != bRows)
    return refuse(kInvalidValue, "op(A), op(B) and D of inconsistent shapes");
  if (c->rows != d->rows || c->cols != d->cols)
    return refuse(kInvalidValue, "C and D of different shapes");
  if (a->batchCount != d->batchCount || b->batchCount != d->batchCount || c->batchCount != d->batchCount)
    return refuse(kInvalidValue, "different batch counts");
  problem = Problem{*desc, *a, *b, *c, *d, d->rows, d->cols, aCols, biasType};
  return kSuccess;
}

float loadElement(uintptr_t base, cudaDataType type, uint64_t index) {
  if (type == lt::kCudaR32F) {
    float value;
    std::memcpy(&value, reinterpret_cast<const void *>(base + index * 4), sizeof value);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, reinterpret_cast<const void *>(base + index * 2), sizeof bits);
  return type == lt::kCudaR16F ? fusec::halfBitsToFloat(bits) : fusec::bfloat16BitsToFloat(bits);
}

void storeElement(uintptr_t base, cudaDataType type, uint64_t index, float value) {
  if (type == lt::kCudaR32F) {
    std::memcpy(reinterpret_cast<void *>(base + index * 4), &value, sizeof value);
    return;
  }
  const uint16_t bits = type == lt::kCudaR16F ? fusec::floatToHalfBits(value) : fusec::floatToBfloat16Bits(value);
  std::memcpy(reinterpret_cast<void *>(base + index * 2), &bits, sizeof bits);
}

/// fusec_to_tf32 (codegen/include/fusec_mma.h): 10 mantissa bits, to
/// nearest with ties away from zero, the low 13 bits cleared.
float toTf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    bits = (bits & 0x7fffffu) ? (bits | 0x400000u) & 0xffffe000u : bits;
  else
    bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

struct Pointers {
  uintptr_t a, b, c, d, bias, workspace;
  uint64_t workspaceBytes;
};

/// Whether every matrix the matmul touches lies in live memory (the lock
/// held). C only when read, the bias only when added.
bool addressable(const Problem &p, const Pointers &at, bool readsC) {
  const auto inside = [](uintptr_t address, uint64_t bytes) {
    return bytes == 0 || (address != 0 && host_cuda::inside(address, bytes));
  };
  uint64_t biasBytes = 0;
  if (hasBias(p.desc.epilogue) && p.m > 0)
    biasBytes = (uint64_t(p.d.batchCount - 1) * uint64_t(p.desc.biasBatchStride) + p.m) * elementBytes(p.biasType);
  return inside(at.a, extentBytes(p.a)) && inside(at.b, extentBytes(p.b)) &&
         (!readsC || inside(at.c, extentBytes(p.c))) && inside(at.d, extentBytes(p.d)) && inside(at.bias, biasBytes) &&
         inside(at.workspace, at.workspaceBytes);
}

/// The matmul itself, on the host, column-major.
void compute(const Problem &p, const Pointers &at, float alpha, float beta) {
  const bool tf32 = p.desc.compute == lt::kCublasCompute32FFastTf32;
  const bool transA = p.desc.transA == lt::kCublasOpT, transB = p.desc.transB == lt::kCublasOpT;
  const uint32_t e = p.desc.epilogue;
  const bool relu = e == lt::kEpilogueRelu || e == lt::kEpilogueReluBias;
  const bool gelu = e == lt::kEpilogueGelu || e == lt::kEpilogueGeluBias;
  const auto input = [tf32](uintptr_t base, const Layout &layout, uint64_t offset) {
    const float value = loadElement(base, layout.type, offset);
    return tf32 ? toTf32(value) : value;
  };
  std::vector<float> result(p.m * p.n);
  for (int64_t batch = 0; batch < p.d.batchCount; ++batch) {
    const uint64_t aBase = uint64_t(batch) * uint64_t(p.a.batchStride);
    const uint64_t bBase = uint64_t(batch) * uint64_t(p.b.batchStride);
    const uint64_t cBase = uint64_t(batch) * uint64_t(p.c.batchStride);
    const uint64_t dBase = uint64_t(batch) * uint64_t(p.d.batchStride);
    const uint64_t biasBase = uint64_t(batch) * uint64_t(p.desc.biasBatchStride);
    for (uint64_t j = 0; j < p.n; ++j)
      for (uint64_t i = 0; i < p.m; ++i) {
        float sum = 0.0f;
        for (uint64_t l = 0; l < p.k; ++l) {
          // op(A)(i, l) and op(B)(l, j), element (r, c) of a layout being at
          // r + c * ld.
          const uint64_t aAt = transA ? l + i * uint64_t(p.a.ld) : i + l * uint64_t(p.a.ld);
          const uint64_t bAt = transB ? j + l * uint64_t(p.b.ld) : l + j * uint64_t(p.b.ld);
          sum += input(at.a, p.a, aBase + aAt) * input(at.b, p.b, bBase + bAt);
        }
        float value = alpha * sum;
        if (beta != 0.0f)
          value += beta * loadElement(at.c, p.c.type, cBase + i + j * uint64_t(p.c.ld));
        if (hasBias(e))
          value += loadElement(at.bias, p.biasType, biasBase + i); // one value per row of D
        if (relu)
          value = std::max(value, 0.0f);
        if (gelu)
          value = 0.5f * value * (1.0f + std::tanh(0.7978845608028654f * (value + 0.044715f * value * value * value)));
        result[i + j * p.m] = value;
      }
    // D is written once its batch is computed: C may be D.
    for (uint64_t j = 0; j < p.n; ++j)
      for (uint64_t i = 0; i < p.m; ++i)
        storeElement(at.d, p.d.type, dBase + i + j * uint64_t(p.d.ld), result[i + j * p.m]);
  }
}

} // namespace

// The entry points have exactly the types of CublasLtApi's table: a call
// through a pointer of another function type is undefined.
#define FUSEC_LOCK auto lock = host_cuda::lock()

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  FUSEC_LOCK;
  return create(objects().handles, handle, std::make_unique<Handle>());
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  FUSEC_LOCK;
  if (!find(objects().handles, handle))
    return refuse(kNotInitialized, "destroying a handle that is not alive");
  return destroy(objects().handles, handle);
}

size_t cublasLtGetVersion() {
  FUSEC_LOCK;
  return static_cast<size_t>(record().cublasLtVersion);
}

const char *cublasLtGetStatusName(cublasStatus_t status) {
  auto it = kStatusNames.find(status);
  return it == kStatusNames.end() ? "<unknown>" : it->second.first;
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  auto it = kStatusNames.find(status);
  return it == kStatusNames.end() ? "<unknown>" : it->second.second;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t computeType,
                                        cudaDataType scaleType) {
  FUSEC_LOCK;
  return create(objects().descs, desc, std::make_unique<MatmulDesc>(MatmulDesc{computeType, scaleType}));
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  FUSEC_LOCK;
  return destroy(objects().descs, desc);
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t handle, cublasLtMatmulDescAttributes_t attribute,
                                              const void *value, size_t bytes) {
  FUSEC_LOCK;
  MatmulDesc *desc = find(objects().descs, handle);
  if (!desc)
    return refuse(kInvalidValue, "not a live matmul descriptor");
  switch (attribute) {
  case lt::kMatmulDescTransA:
    return setValue(desc->transA, value, bytes);
  case lt::kMatmulDescTransB:
    return setValue(desc->transB, value, bytes);
  case lt::kMatmulDescEpilogue:
    return setValue(desc->epilogue, value, bytes);
  case lt::kMatmulDescBiasPointer:
    return setValue(desc->bias, value, bytes);
  case lt::kMatmulDescBiasBatchStride:
    return setValue(desc->biasBatchStride, value, bytes);
  case lt::kMatmulDescBiasDataType:
    return setValue(desc->biasType, value, bytes);
  default:
    return refuse(kNotSupported, "a matmul descriptor attribute the double does not model");
  }
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  FUSEC_LOCK;
  if (!knownType(type))
    return refuse(kNotSupported, "a matrix type the double does not model");
  // cublasLt.h: ld must be at least rows (column-major, the default order).
  if (ld < 0 || uint64_t(ld) < rows)
    return refuse(kInvalidValue, "a leading dimension smaller than the rows");
  return create(objects().layouts, layout, std::make_unique<Layout>(Layout{type, rows, cols, ld}));
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  FUSEC_LOCK;
  return destroy(objects().layouts, layout);
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t handle,
                                                cublasLtMatrixLayoutAttribute_t attribute, const void *value,
                                                size_t bytes) {
  FUSEC_LOCK;
  Layout *layout = find(objects().layouts, handle);
  if (!layout)
    return refuse(kInvalidValue, "not a live matrix layout");
  Layout changed = *layout;
  cublasStatus_t status = kNotSupported;
  if (attribute == lt::kMatrixLayoutBatchCount)
    status = setValue(changed.batchCount, value, bytes);
  else if (attribute == lt::kMatrixLayoutStridedBatchOffset)
    status = setValue(changed.batchStride, value, bytes);
  else
    return refuse(kNotSupported, "a matrix layout attribute the double does not model");
  if (status != kSuccess)
    return status;
  if (changed.batchCount < 1 || changed.batchStride < 0)
    return refuse(kInvalidValue, "a batch count below 1 or a negative batch stride");
  *layout = changed;
  return kSuccess;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference) {
  FUSEC_LOCK;
  return create(objects().preferences, preference, std::make_unique<Preference>());
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  FUSEC_LOCK;
  return destroy(objects().preferences, preference);
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t handle,
                                                    cublasLtMatmulPreferenceAttributes_t attribute, const void *value,
                                                    size_t bytes) {
  FUSEC_LOCK;
  Preference *preference = find(objects().preferences, handle);
  if (!preference)
    return refuse(kInvalidValue, "not a live matmul preference");
  if (attribute >= lt::kMatmulPrefMinAlignmentABytes && attribute <= lt::kMatmulPrefMinAlignmentDBytes)
    return setValue(preference->minAlignment[attribute - lt::kMatmulPrefMinAlignmentABytes], value, bytes);
  if (attribute != lt::kMatmulPrefMaxWorkspaceBytes)
    return refuse(kNotSupported, "a preference attribute the double does not model");
  return setValue(preference->maxWorkspaceBytes, value, bytes);
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t aLayout, cublasLtMatrixLayout_t bLayout,
                                              cublasLtMatrixLayout_t cLayout, cublasLtMatrixLayout_t dLayout,
                                              cublasLtMatmulPreference_t preferenceHandle, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t results[], int *returnedAlgoCount) {
  FUSEC_LOCK;
  ++record().cublasLtHeuristicQueries;
  if (!returnedAlgoCount || !results || requestedAlgoCount <= 0)
    return refuse(kInvalidValue, "no room for results");
  *returnedAlgoCount = 0;
  const Preference *preference = find(objects().preferences, preferenceHandle);
  if (!preference)
    return refuse(kInvalidValue, "not a live matmul preference");
  Problem problem;
  if (cublasStatus_t status = check(objects(), handle, desc, aLayout, bLayout, cLayout, dLayout, problem);
      status != kSuccess)
    return status;
  // No algorithm: the real library answers CUBLAS_STATUS_NOT_SUPPORTED.
  if (record().cublasLtFailure == HostCublasLtFailure::NoAlgorithm)
    return refuse(kNotSupported, "no algorithm (cublasLtFailure)");
  if (preference->maxWorkspaceBytes < kWorkspaceBytes)
    return refuse(kNotSupported, "no algorithm within the preference's workspace");
  cublasLtMatmulHeuristicResult_t &result = results[0];
  std::memset(&result, 0, sizeof result);
  result.algo.data[0] = kAlgoMarker;
  result.algo.data[1] = kWorkspaceBytes;
  // The alignments the algorithm assumes, which cublasLtMatmul checks (an
  // algorithm chosen for aligned matrices may use vector loads on them).
  for (int i = 0; i < 4; ++i)
    result.algo.data[2 + i] = preference->minAlignment[i];
  result.workspaceSize = kWorkspaceBytes;
  result.state = kSuccess;
  result.wavesCount = 1.0f;
  *returnedAlgoCount = 1;
  return kSuccess;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *a,
                              cublasLtMatrixLayout_t aLayout, const void *b, cublasLtMatrixLayout_t bLayout,
                              const void *beta, const void *c, cublasLtMatrixLayout_t cLayout, void *d,
                              cublasLtMatrixLayout_t dLayout, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspaceBytes, CUstream stream) {
  FUSEC_LOCK;
  Problem problem;
  if (cublasStatus_t status = check(objects(), handle, desc, aLayout, bLayout, cLayout, dLayout, problem);
      status != kSuccess)
    return status;
  if (!alpha || !beta)
    return refuse(kInvalidValue, "a null alpha or beta");
  if (!algo || algo->data[0] != kAlgoMarker)
    return refuse(kInvalidValue, "an algorithm the heuristic did not return");
  const uint64_t needed = algo->data[1];
  // cublasLt.h: a workspace smaller than the algorithm's is INVALID_VALUE.
  if (workspaceBytes < needed || (needed > 0 && !workspace))
    return refuse(kInvalidValue, "less workspace than the algorithm needs");
  // In place (C is D) the layouts must be one (cuBLASLt's rule).
  const Layout &cl = problem.c, &dl = problem.d;
  if (c == d && (cl.type != dl.type || cl.ld != dl.ld || cl.batchStride != dl.batchStride))
    return refuse(kInvalidValue, "C is D with another layout");
  const void *matrices[4] = {a, b, c, d};
  const Layout *layouts[4] = {&problem.a, &problem.b, &problem.c, &problem.d};
  for (int i = 0; i < 4; ++i) {
    const uint64_t alignment = algo->data[2 + i];
    const uint64_t stride =
        layouts[i]->batchCount > 1 ? uint64_t(layouts[i]->batchStride) * elementBytes(layouts[i]->type) : 0;
    if (alignment == 0 || reinterpret_cast<uintptr_t>(matrices[i]) % alignment != 0 || stride % alignment != 0)
      return refuse(kInvalidValue, "a matrix less aligned than the algorithm assumes (MIN_ALIGNMENT preferences)");
  }
  if (record().cublasLtFailure == HostCublasLtFailure::MatmulFails)
    return refuse(kExecutionFailed, "the matmul fails (cublasLtFailure)");
  // Pointer mode host: alpha and beta are read at the call.
  float alphaValue, betaValue;
  std::memcpy(&alphaValue, alpha, sizeof alphaValue);
  std::memcpy(&betaValue, beta, sizeof betaValue);
  const bool readsC = betaValue != 0.0f;
  const Pointers at{reinterpret_cast<uintptr_t>(a),
                    reinterpret_cast<uintptr_t>(b),
                    reinterpret_cast<uintptr_t>(c),
                    reinterpret_cast<uintptr_t>(d),
                    problem.desc.bias,
                    reinterpret_cast<uintptr_t>(workspace),
                    workspace ? uint64_t(workspaceBytes) : 0};
  if (!addressable(problem, at, readsC))
    return refuse(kExecutionFailed, "a matrix, the bias or the workspace outside live device memory");
  const int queued = host_cuda::enqueue(stream, [problem, at, alphaValue, betaValue, readsC] {
    if (!addressable(problem, at, readsC))
      return kCudaIllegalAddress;
    compute(problem, at, alphaValue, betaValue);
    ++record().cublasLtMatmulsRun;
    return kCudaSuccess;
  });
  if (queued != kCudaSuccess)
    return refuse(kExecutionFailed, "the stream refused the matmul (not a live stream of the double)");
  ++record().cublasLtMatmuls;
  return kSuccess;
}

} // extern "C"

// The exported functions have the table's types exactly.
#define FUSEC_SAME_TYPE(member, function)                                                                              \
  static_assert(std::is_same_v<decltype(lt::CublasLtApi::member), decltype(&function)>,                                \
                #function " does not have CublasLtApi::" #member "'s type")
FUSEC_SAME_TYPE(create, cublasLtCreate);
FUSEC_SAME_TYPE(destroy, cublasLtDestroy);
FUSEC_SAME_TYPE(getVersion, cublasLtGetVersion);
FUSEC_SAME_TYPE(getStatusName, cublasLtGetStatusName);
FUSEC_SAME_TYPE(getStatusString, cublasLtGetStatusString);
FUSEC_SAME_TYPE(matmulDescCreate, cublasLtMatmulDescCreate);
FUSEC_SAME_TYPE(matmulDescDestroy, cublasLtMatmulDescDestroy);
FUSEC_SAME_TYPE(matmulDescSetAttribute, cublasLtMatmulDescSetAttribute);
FUSEC_SAME_TYPE(matrixLayoutCreate, cublasLtMatrixLayoutCreate);
FUSEC_SAME_TYPE(matrixLayoutDestroy, cublasLtMatrixLayoutDestroy);
FUSEC_SAME_TYPE(matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute);
FUSEC_SAME_TYPE(matmulPreferenceCreate, cublasLtMatmulPreferenceCreate);
FUSEC_SAME_TYPE(matmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy);
FUSEC_SAME_TYPE(matmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute);
FUSEC_SAME_TYPE(matmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic);
FUSEC_SAME_TYPE(matmul, cublasLtMatmul);
