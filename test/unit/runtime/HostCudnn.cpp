//===- HostCudnn.cpp - A CPU-hosted test double of cuDNN's backend API -----===//
//
// Compiled into the CUDA driver double's library (HostCudaDriver.cpp), this
// file exports the cuDNN entry points the runtime resolves
// (runtime/cuda/CudnnApi.h), with exactly that table's signatures, and
// implements them on the host, so that a library variant of a convolution
// runs without a GPU: a test names the one library as DeviceOptions::
// cudaDriver and as the cuDNN library. It models cuDNN's backend API, not
// fusec's use of it: tensors are what their dimensions and strides say, so
// a runtime that describes its layout wrongly computes wrong numbers here
// too.
//
// What it models, and how faithfully (the statuses are those cuDNN 9.19
// returns where a CPU-only probe of the real library could show them):
//  - handles (cudnnSetStream keeps the stream) and backend descriptors with
//    typed attributes: the tensor, convolution, pointwise, convolution
//    forward and pointwise operations, operation graph, engine heuristics,
//    engine config, engine, execution plan and variant pack descriptors.
//    Setting an attribute checks its type (CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_
//    TYPE), its element count, that the descriptor is not finalized, and that
//    an attribute of another descriptor is not given (CUDNN_STATUS_BAD_PARAM);
//    an attribute of the descriptor that the double does not model is
//    refused (CUDNN_STATUS_NOT_SUPPORTED) rather than ignored. A descriptor
//    attribute keeps a copy of the descriptor as it is then (as cuDNN does);
//    one of the wrong kind is refused (the real library does not check, and
//    crashes). Getting an attribute of a descriptor not finalized is
//    CUDNN_STATUS_NOT_INITIALIZED.
//  - finalize checks completeness and consistency as cuDNN does, and some
//    things earlier: tensors (type f32, f16 or bf16, dimensions, strides,
//    id, alignment); the convolution (2 spatial dimensions, cross-
//    correlation or convolution); its operation (y's shape from the
//    formula, the groups inferred from x's and w's channels); the
//    operation graph (ids unique, each tensor written once, virtual tensors
//    written and read, the operations connected, pointwise operands of y's
//    shape or broadcast along dimensions of 1 (cuDNN drops engines for a bad
//    broadcast later, in the heuristics), and the pattern its engines run:
//    one convolution followed by a chain of ADD, MUL and RELU_FWD
//    operations, exactly one non-virtual output, x and w of one type:
//    CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN or _DATA_TYPE otherwise).
//  - two engines: 0, on tensor cores (numerical notes TENSOR_CORE, and
//    DOWN_CONVERT_INPUTS for f32 operands, which it rounds to TF32 as
//    fusec_to_tf32 rounds), needing kTensorCoreWorkspace bytes of
//    workspace; 1, f32 arithmetic for f32 operands only (no notes), needing
//    kFmaWorkspace. Heuristics mode A ranks them 0, 1 (the real library
//    prefers tensor cores); mode FALLBACK offers 1 (f32) or 0 (16-bit).
//  - cudnnBackendExecute checks the variant pack (every non-virtual tensor's
//    id with a non-null pointer aligned to the tensor's byte alignment:
//    CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER otherwise), that every tensor
//    and the workspace lie inside live device memory of the driver double
//    (CUDNN_STATUS_EXECUTION_FAILED, as a failed launch), and queues the
//    graph on the handle's stream as a kernel launch is queued: it runs when
//    the host waits, is recorded by a capture and replayed by its graph,
//    where the memory is checked again (the stream fails with
//    CUDA_ERROR_ILLEGAL_ADDRESS). The graph is computed in f32: f16/bf16
//    read exactly, each operation's result rounded to its tensor's type to
//    nearest even (virtual f32 intermediates: not at all).
//  - HostCudaState records the objects alive and the calls, and its
//    cudnnFailure makes the library fail (HostCudaDriver.h).
// Not modeled: the handle's device and context, beta of the convolution
// (only 0), other operations, modes and types (CUDNN_STATUS_NOT_SUPPORTED).
//
//===----------------------------------------------------------------------===//
#include "HostCudaDriver.h"

#include "runtime/cuda/CudnnApi.h"
#include "support/HalfFloat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace dnn = fusec::runtime::cuda;
using dnn::cudnnBackendAttributeName_t;
using dnn::cudnnBackendAttributeType_t;
using dnn::cudnnBackendDescriptor_t;
using dnn::cudnnBackendDescriptorType_t;
using dnn::cudnnHandle_t;
using dnn::cudnnStatus_t;
using dnn::CUstream;

namespace {

// cudnn_graph.h's values for the statuses this double returns.
constexpr cudnnStatus_t kSuccess = 0;
constexpr cudnnStatus_t kNotInitialized = 1001;
constexpr cudnnStatus_t kBadParam = 2000;
constexpr cudnnStatus_t kBadParamNullPointer = 2002;
constexpr cudnnStatus_t kBadParamMisalignedPointer = 2003;
constexpr cudnnStatus_t kBadParamNotFinalized = 2004;
constexpr cudnnStatus_t kBadParamAttributeType = 2010;
constexpr cudnnStatus_t kNotSupported = 3000;
constexpr cudnnStatus_t kNotSupportedGraphPattern = 3001;
constexpr cudnnStatus_t kNotSupportedShape = 3002;
constexpr cudnnStatus_t kNotSupportedDataType = 3003;
constexpr cudnnStatus_t kHostAllocationFailed = 4003;
constexpr cudnnStatus_t kExecutionFailed = 5000;

constexpr int kCudaSuccess = 0;
constexpr int kCudaIllegalAddress = 700;

/// cudnnGetErrorString's answers: the statuses' names.
const std::map<cudnnStatus_t, const char *> kStatusNames = {
    {kSuccess, "CUDNN_STATUS_SUCCESS"},
    {kNotInitialized, "CUDNN_STATUS_NOT_INITIALIZED"},
    {kBadParam, "CUDNN_STATUS_BAD_PARAM"},
    {kBadParamNullPointer, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"},
    {kBadParamMisalignedPointer, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER"},
    {kBadParamNotFinalized, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED"},
    {kBadParamAttributeType, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE"},
    {kNotSupported, "CUDNN_STATUS_NOT_SUPPORTED"},
    {kNotSupportedGraphPattern, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN"},
    {kNotSupportedShape, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"},
    {kNotSupportedDataType, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE"},
    {kHostAllocationFailed, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED"},
    {kExecutionFailed, "CUDNN_STATUS_EXECUTION_FAILED"},
};

/// The engines: 0 on tensor cores, 1 in f32 arithmetic (f32 only).
constexpr int kTensorCoreEngine = 0;
constexpr int kFmaEngine = 1;
/// Their workspaces: small, but not 0, so that a runtime which passes no
/// workspace is caught.
constexpr int64_t kTensorCoreWorkspace = 4096;
constexpr int64_t kFmaWorkspace = 2048;
constexpr int64_t kHugeWorkspace = int64_t{1} << 40;

/// The highest cudnnBackendDescriptorType_t cuDNN 9.19 knows.
constexpr int kLastDescriptorType = 43;

HostCudaState &record() { return *hostCudaState(); }

/// The library starts with the failure $FUSEC_HOST_CUDNN_FAILURE names (set
/// when the library loads, after the driver double's record exists).
const bool kFailureFromEnvironment = [] {
  const char *mode = std::getenv("FUSEC_HOST_CUDNN_FAILURE");
  const std::string name = mode ? mode : "";
  auto lock = host_cuda::lock();
  record().cudnnFailure = name == "no-engine"        ? HostCudnnFailure::NoEngine
                          : name == "fallback-only"  ? HostCudnnFailure::FallbackOnly
                          : name == "huge-workspace" ? HostCudnnFailure::HugeWorkspace
                          : name == "execute-fails"  ? HostCudnnFailure::ExecuteFails
                                                     : HostCudnnFailure::None;
  return true;
}();

/// Returns `status`, noting why a call was refused for a test's message.
cudnnStatus_t refuse(cudnnStatus_t status, const char *why) {
  record().cudnnLastRefusal = why;
  return status;
}

//===--- What finalized descriptors describe -------------------------------===//

struct TensorInfo {
  int64_t uid = 0;
  int32_t type = dnn::kCudnnDataFloat;
  std::vector<int64_t> dims, strides;
  int64_t alignment = 0;
  bool isVirtual = false;

  bool operator==(const TensorInfo &o) const {
    return uid == o.uid && type == o.type && dims == o.dims && strides == o.strides && alignment == o.alignment &&
           isVirtual == o.isVirtual;
  }
};

struct ConvInfo {
  int32_t mode = dnn::kCudnnCrossCorrelation;
  std::array<int64_t, 2> pre{}, post{}, stride{}, dilation{};
};

/// A finalized operation: a convolution (x, w -> y) or a pointwise one
/// (y = mode(alpha1 x, alpha2 b)).
struct OpInfo {
  bool isConv = false;
  ConvInfo conv;
  int32_t pointwiseMode = dnn::kPointwiseAdd;
  TensorInfo x, w, b, y;
  bool hasB = false;
  /// The convolution's alpha and beta, or the pointwise alpha1 and alpha2.
  float alpha1 = 1, alpha2 = 0;
};

/// A finalized operation graph the engines run: ops[0] the convolution,
/// each next op reading the previous one's y as its x.
struct Graph {
  std::vector<OpInfo> ops;
  /// The non-virtual tensors, by id.
  std::map<int64_t, TensorInfo> real;
  int32_t inputType = dnn::kCudnnDataFloat;
};

struct Descriptor;
using Snapshot = std::shared_ptr<const Descriptor>;

struct Attribute {
  cudnnBackendAttributeType_t type = 0;
  int64_t count = 0;
  std::vector<uint8_t> bytes;
  /// BACKEND_DESCRIPTOR elements: copies of the descriptors as they were.
  std::vector<Snapshot> descriptors;

  template <typename T> T at(int64_t i) const {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    return value;
  }
};

struct Descriptor {
  cudnnBackendDescriptorType_t type = 0;
  bool finalized = false;
  std::map<cudnnBackendAttributeName_t, Attribute> attributes;
  // What finalize (or the heuristics) derived.
  std::optional<TensorInfo> tensor;
  std::optional<ConvInfo> conv;
  std::optional<OpInfo> op;
  std::shared_ptr<const Graph> graph;
  /// ENGINEHEUR: its configs' engines, best first. ENGINE, ENGINECFG,
  /// EXECUTION_PLAN: the engine.
  std::vector<int> engines;
  int engine = -1;
  int64_t workspace = 0;
  /// VARIANT_PACK.
  std::map<int64_t, uintptr_t> pointers;
  uintptr_t workspacePointer = 0;

  const Attribute *find(cudnnBackendAttributeName_t name) const {
    auto it = attributes.find(name);
    return it == attributes.end() ? nullptr : &it->second;
  }
};

struct Handle {
  CUstream stream = nullptr;
};

/// The live objects; guarded by host_cuda::lock().
struct Objects {
  std::map<const void *, std::unique_ptr<Handle>> handles;
  std::map<const void *, std::unique_ptr<Descriptor>> descriptors;
};

Objects &objects() {
  static Objects instance;
  return instance;
}

void recount() {
  record().cudnnHandlesLive = static_cast<int>(objects().handles.size());
  record().cudnnDescriptorsLive = static_cast<int>(objects().descriptors.size());
}

Descriptor *findDescriptor(const void *handle) {
  auto it = objects().descriptors.find(handle);
  return it == objects().descriptors.end() ? nullptr : it->second.get();
}

bool liveHandle(const void *handle) { return objects().handles.count(handle) != 0; }

//===--- Attributes --------------------------------------------------------===//

size_t elementBytes(cudnnBackendAttributeType_t type) {
  switch (type) {
  case dnn::kTypeBoolean:
    return sizeof(bool);
  case dnn::kTypeDataType:
  case dnn::kTypeFloat:
  case dnn::kTypeConvolutionMode:
  case dnn::kTypeHeurMode:
  case dnn::kTypeNumericalNote:
  case dnn::kTypePointwiseMode:
    return 4;
  default: // handles, int64, double, pointers, descriptors
    return 8;
  }
}

/// An attribute the double models: its types, counts, and for descriptor
/// attributes the kinds of descriptor it takes.
struct Rule {
  std::vector<cudnnBackendAttributeType_t> types;
  int64_t minCount = 1, maxCount = 1;
  std::vector<cudnnBackendDescriptorType_t> kinds = {};
};

using Rules = std::map<cudnnBackendAttributeName_t, Rule>;

/// The settable attributes of each descriptor type the double models.
const std::map<cudnnBackendDescriptorType_t, Rules> &settable() {
  using namespace dnn;
  static const std::map<cudnnBackendDescriptorType_t, Rules> table = {
      {kTensorDescriptor,
       {{kAttrTensorDataType, {{kTypeDataType}}},
        {kAttrTensorDimensions, {{kTypeInt64}, 1, 8}},
        {kAttrTensorStrides, {{kTypeInt64}, 1, 8}},
        {kAttrTensorUniqueId, {{kTypeInt64}}},
        {kAttrTensorByteAlignment, {{kTypeInt64}}},
        {kAttrTensorIsVirtual, {{kTypeBoolean}}}}},
      {kConvolutionDescriptor,
       {{kAttrConvolutionCompType, {{kTypeDataType}}},
        {kAttrConvolutionConvMode, {{kTypeConvolutionMode}}},
        {kAttrConvolutionSpatialDims, {{kTypeInt64}}},
        {kAttrConvolutionPrePaddings, {{kTypeInt64}, 1, 6}},
        {kAttrConvolutionPostPaddings, {{kTypeInt64}, 1, 6}},
        {kAttrConvolutionFilterStrides, {{kTypeInt64}, 1, 6}},
        {kAttrConvolutionDilations, {{kTypeInt64}, 1, 6}}}},
      {kPointwiseDescriptor,
       {{kAttrPointwiseMode, {{kTypePointwiseMode}}}, {kAttrPointwiseMathPrec, {{kTypeDataType}}}}},
      {kOperationConvolutionForwardDescriptor,
       {{kAttrOperationConvolutionForwardAlpha, {{kTypeFloat, kTypeDouble}}},
        {kAttrOperationConvolutionForwardBeta, {{kTypeFloat, kTypeDouble}}},
        {kAttrOperationConvolutionForwardConvDesc, {{kTypeBackendDescriptor}, 1, 1, {kConvolutionDescriptor}}},
        {kAttrOperationConvolutionForwardW, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}},
        {kAttrOperationConvolutionForwardX, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}},
        {kAttrOperationConvolutionForwardY, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}}}},
      {kOperationPointwiseDescriptor,
       {{kAttrOperationPointwisePwDescriptor, {{kTypeBackendDescriptor}, 1, 1, {kPointwiseDescriptor}}},
        {kAttrOperationPointwiseXDesc, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}},
        {kAttrOperationPointwiseBDesc, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}},
        {kAttrOperationPointwiseYDesc, {{kTypeBackendDescriptor}, 1, 1, {kTensorDescriptor}}},
        {kAttrOperationPointwiseAlpha1, {{kTypeFloat, kTypeDouble}}},
        {kAttrOperationPointwiseAlpha2, {{kTypeFloat, kTypeDouble}}}}},
      {kOperationGraphDescriptor,
       {{kAttrOperationGraphHandle, {{kTypeHandle}}},
        {kAttrOperationGraphOps,
         {{kTypeBackendDescriptor}, 1, 64, {kOperationConvolutionForwardDescriptor, kOperationPointwiseDescriptor}}}}},
      {kEngineHeurDescriptor,
       {{kAttrEngineHeurOperationGraph, {{kTypeBackendDescriptor}, 1, 1, {kOperationGraphDescriptor}}},
        {kAttrEngineHeurMode, {{kTypeHeurMode}}}}},
      {kEngineDescriptor,
       {{1300 /* CUDNN_ATTR_ENGINE_OPERATION_GRAPH */, {{kTypeBackendDescriptor}, 1, 1, {kOperationGraphDescriptor}}},
        {kAttrEngineGlobalIndex, {{kTypeInt64}}}}},
      {kEngineCfgDescriptor, {{kAttrEngineCfgEngine, {{kTypeBackendDescriptor}, 1, 1, {kEngineDescriptor}}}}},
      {kExecutionPlanDescriptor,
       {{kAttrExecutionPlanHandle, {{kTypeHandle}}},
        {kAttrExecutionPlanEngineConfig, {{kTypeBackendDescriptor}, 1, 1, {kEngineCfgDescriptor}}}}},
      {kVariantPackDescriptor,
       {{kAttrVariantPackUniqueIds, {{kTypeInt64}, 0, 64}},
        {kAttrVariantPackDataPointers, {{kTypeVoidPtr}, 0, 64}},
        {kAttrVariantPackWorkspace, {{kTypeVoidPtr}}}}},
  };
  return table;
}

/// Whether `name` is one of the attributes cuDNN gives descriptors of
/// `type` (cudnn_graph.h numbers each descriptor's attributes in a block).
bool belongsTo(cudnnBackendDescriptorType_t type, cudnnBackendAttributeName_t name) {
  using namespace dnn;
  const std::map<cudnnBackendDescriptorType_t, std::pair<int, int>> blocks = {
      {kPointwiseDescriptor, {0, 100}},
      {kConvolutionDescriptor, {100, 200}},
      {kEngineHeurDescriptor, {200, 300}},
      {kEngineCfgDescriptor, {300, 400}},
      {kExecutionPlanDescriptor, {400, 500}},
      {kOperationConvolutionForwardDescriptor, {700, 706}},
      {kOperationPointwiseDescriptor, {750, 760}},
      {kOperationGraphDescriptor, {800, 900}},
      {kTensorDescriptor, {900, 1000}},
      {kVariantPackDescriptor, {1000, 1100}},
      {kEngineDescriptor, {1300, 1400}},
  };
  auto it = blocks.find(type);
  return it != blocks.end() && name >= it->second.first && name < it->second.second;
}

//===--- Finalize ----------------------------------------------------------===//

template <typename T> std::optional<T> one(const Descriptor &d, cudnnBackendAttributeName_t name) {
  const Attribute *attribute = d.find(name);
  if (!attribute || attribute->count != 1)
    return std::nullopt;
  return attribute->at<T>(0);
}

std::optional<std::vector<int64_t>> int64s(const Descriptor &d, cudnnBackendAttributeName_t name) {
  const Attribute *attribute = d.find(name);
  if (!attribute)
    return std::nullopt;
  std::vector<int64_t> values(static_cast<size_t>(attribute->count));
  for (int64_t i = 0; i < attribute->count; ++i)
    values[i] = attribute->at<int64_t>(i);
  return values;
}

/// A float or double attribute, as a float; `fallback` when absent.
float scalar(const Descriptor &d, cudnnBackendAttributeName_t name, float fallback) {
  const Attribute *attribute = d.find(name);
  if (!attribute)
    return fallback;
  return attribute->type == dnn::kTypeDouble ? static_cast<float>(attribute->at<double>(0)) : attribute->at<float>(0);
}

/// The one descriptor an attribute refers to, or null.
const Descriptor *referred(const Descriptor &d, cudnnBackendAttributeName_t name) {
  const Attribute *attribute = d.find(name);
  return attribute && attribute->descriptors.size() == 1 ? attribute->descriptors[0].get() : nullptr;
}

cudnnStatus_t finalizeTensor(Descriptor &d) {
  const auto type = one<int32_t>(d, dnn::kAttrTensorDataType);
  const auto dims = int64s(d, dnn::kAttrTensorDimensions), strides = int64s(d, dnn::kAttrTensorStrides);
  const auto uid = one<int64_t>(d, dnn::kAttrTensorUniqueId);
  const auto alignment = one<int64_t>(d, dnn::kAttrTensorByteAlignment);
  if (!type || !dims || !strides || !uid || !alignment)
    return refuse(kBadParam, "a tensor without its type, dimensions, strides, id or byte alignment");
  if (dims->size() != strides->size())
    return refuse(kBadParam, "a tensor with more dimensions than strides, or fewer");
  for (size_t i = 0; i < dims->size(); ++i)
    if ((*dims)[i] < 1 || (*strides)[i] < 1)
      return refuse(kBadParam, "a tensor dimension or stride below 1");
  if (*alignment < 1 || (*alignment & (*alignment - 1)) != 0)
    return refuse(kBadParam, "a byte alignment that is not a power of two");
  if (*type != dnn::kCudnnDataFloat && *type != dnn::kCudnnDataHalf && *type != dnn::kCudnnDataBfloat16)
    return refuse(kNotSupportedDataType, "a tensor type other than FLOAT, HALF and BFLOAT16");
  d.tensor =
      TensorInfo{*uid, *type, *dims, *strides, *alignment, one<bool>(d, dnn::kAttrTensorIsVirtual).value_or(false)};
  return kSuccess;
}

cudnnStatus_t finalizeConvolution(Descriptor &d) {
  const auto compute = one<int32_t>(d, dnn::kAttrConvolutionCompType);
  const auto mode = one<int32_t>(d, dnn::kAttrConvolutionConvMode);
  const auto spatial = one<int64_t>(d, dnn::kAttrConvolutionSpatialDims);
  const auto pre = int64s(d, dnn::kAttrConvolutionPrePaddings), post = int64s(d, dnn::kAttrConvolutionPostPaddings);
  const auto stride = int64s(d, dnn::kAttrConvolutionFilterStrides);
  const auto dilation = int64s(d, dnn::kAttrConvolutionDilations);
  if (!compute || !mode || !spatial || !pre || !post || !stride || !dilation)
    return refuse(kBadParam, "a convolution without its compute type, mode, spatial dimensions, paddings, strides "
                             "or dilations");
  const auto count = static_cast<size_t>(*spatial);
  if (pre->size() != count || post->size() != count || stride->size() != count || dilation->size() != count)
    return refuse(kBadParam, "convolution paddings, strides or dilations not one per spatial dimension");
  if (*mode != dnn::kCudnnCrossCorrelation && *mode != dnn::kCudnnConvolution)
    return refuse(kBadParam, "an unknown convolution mode");
  if (*spatial != 2)
    return refuse(kNotSupportedShape, "a convolution of other than 2 spatial dimensions (not modeled)");
  if (*compute != dnn::kCudnnDataFloat)
    return refuse(kNotSupportedDataType, "a convolution compute type other than FLOAT");
  ConvInfo info;
  info.mode = *mode;
  for (size_t i = 0; i < 2; ++i) {
    if ((*pre)[i] < 0 || (*post)[i] < 0 || (*stride)[i] < 1 || (*dilation)[i] < 1)
      return refuse(kBadParam, "a negative padding, or a stride or dilation below 1");
    info.pre[i] = (*pre)[i];
    info.post[i] = (*post)[i];
    info.stride[i] = (*stride)[i];
    info.dilation[i] = (*dilation)[i];
  }
  d.conv = info;
  return kSuccess;
}

cudnnStatus_t finalizePointwise(Descriptor &d) {
  const auto mode = one<int32_t>(d, dnn::kAttrPointwiseMode);
  const auto precision = one<int32_t>(d, dnn::kAttrPointwiseMathPrec);
  if (!mode || !precision)
    return refuse(kBadParam, "a pointwise descriptor without its mode or math precision");
  if (*mode != dnn::kPointwiseAdd && *mode != dnn::kPointwiseMul && *mode != dnn::kPointwiseReluFwd)
    return refuse(kNotSupported, "a pointwise mode other than ADD, MUL and RELU_FWD (not modeled)");
  if (*precision != dnn::kCudnnDataFloat)
    return refuse(kNotSupportedDataType, "a pointwise math precision other than FLOAT");
  OpInfo op;
  op.pointwiseMode = *mode;
  d.op = op;
  return kSuccess;
}

/// The finalized tensor an operation attribute refers to.
const TensorInfo *tensorAt(const Descriptor &d, cudnnBackendAttributeName_t name) {
  const Descriptor *tensor = referred(d, name);
  return tensor && tensor->finalized && tensor->tensor ? &*tensor->tensor : nullptr;
}

cudnnStatus_t finalizeConvolutionForward(Descriptor &d) {
  const TensorInfo *x = tensorAt(d, dnn::kAttrOperationConvolutionForwardX);
  const TensorInfo *w = tensorAt(d, dnn::kAttrOperationConvolutionForwardW);
  const TensorInfo *y = tensorAt(d, dnn::kAttrOperationConvolutionForwardY);
  const Descriptor *conv = referred(d, dnn::kAttrOperationConvolutionForwardConvDesc);
  if (!x || !w || !y || !conv || !conv->finalized)
    return refuse(kBadParam, "a convolution operation without finalized x, w, y and convolution descriptors");
  if (x->dims.size() != 4 || w->dims.size() != 4 || y->dims.size() != 4)
    return refuse(kNotSupportedShape, "a convolution of tensors other than 4-dimensional (not modeled)");
  const ConvInfo &c = *conv->conv;
  // cuDNN infers the groups from the channels: x's C over w's.
  const int64_t channels = x->dims[1], groupChannels = w->dims[1], filters = w->dims[0];
  if (channels % groupChannels != 0 || filters % (channels / groupChannels) != 0)
    return refuse(kBadParam, "w's channels do not divide x's, or the groups do not divide w's filters");
  std::vector<int64_t> expected = {x->dims[0], filters, 0, 0};
  for (int i = 0; i < 2; ++i)
    expected[2 + i] =
        (x->dims[2 + i] + c.pre[i] + c.post[i] - c.dilation[i] * (w->dims[2 + i] - 1) - 1) / c.stride[i] + 1;
  if (expected[2] < 1 || expected[3] < 1 || y->dims != expected)
    return refuse(kBadParam, "y's dimensions are not the convolution's output dimensions");
  OpInfo op;
  op.isConv = true;
  op.conv = c;
  op.x = *x;
  op.w = *w;
  op.y = *y;
  op.alpha1 = scalar(d, dnn::kAttrOperationConvolutionForwardAlpha, 1.0f);
  op.alpha2 = scalar(d, dnn::kAttrOperationConvolutionForwardBeta, 0.0f);
  if (op.alpha2 != 0.0f)
    return refuse(kNotSupported, "a convolution beta other than 0 (not modeled)");
  d.op = op;
  return kSuccess;
}

cudnnStatus_t finalizePointwiseOperation(Descriptor &d) {
  const Descriptor *pointwise = referred(d, dnn::kAttrOperationPointwisePwDescriptor);
  const TensorInfo *x = tensorAt(d, dnn::kAttrOperationPointwiseXDesc);
  const TensorInfo *y = tensorAt(d, dnn::kAttrOperationPointwiseYDesc);
  const TensorInfo *b = tensorAt(d, dnn::kAttrOperationPointwiseBDesc);
  if (!pointwise || !pointwise->finalized || !x || !y)
    return refuse(kBadParam, "a pointwise operation without finalized pointwise, x and y descriptors");
  OpInfo op = *pointwise->op;
  const bool binary = op.pointwiseMode != dnn::kPointwiseReluFwd;
  if (binary && !b)
    return refuse(kBadParam, "a binary pointwise operation without a finalized b");
  op.x = *x;
  op.y = *y;
  op.hasB = binary;
  if (binary)
    op.b = *b;
  op.alpha1 = scalar(d, dnn::kAttrOperationPointwiseAlpha1, 1.0f);
  op.alpha2 = scalar(d, dnn::kAttrOperationPointwiseAlpha2, 1.0f);
  d.op = op;
  return kSuccess;
}

/// The tensors an operation reads and writes.
std::vector<const TensorInfo *> readsOf(const OpInfo &op) {
  if (op.isConv)
    return {&op.x, &op.w};
  if (op.hasB)
    return {&op.x, &op.b};
  return {&op.x};
}

cudnnStatus_t finalizeOperationGraph(Descriptor &d) {
  const Attribute *opsAttribute = d.find(dnn::kAttrOperationGraphOps);
  if (!opsAttribute)
    return refuse(kBadParam, "an operation graph without operations");
  std::vector<OpInfo> ops;
  for (const Snapshot &op : opsAttribute->descriptors) {
    if (!op->finalized || !op->op)
      return refuse(kBadParam, "an operation graph of an operation not finalized");
    ops.push_back(*op->op);
  }
  // One tensor per id; each written by one operation at most.
  std::map<int64_t, TensorInfo> tensors;
  std::map<int64_t, size_t> writer;
  std::map<int64_t, std::vector<size_t>> readers;
  auto add = [&](const TensorInfo &t) {
    auto [it, inserted] = tensors.emplace(t.uid, t);
    return inserted || it->second == t;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const TensorInfo *t : readsOf(ops[i])) {
      if (!add(*t))
        return refuse(kBadParam, "two different tensors with one unique id");
      readers[t->uid].push_back(i);
    }
    if (!add(ops[i].y))
      return refuse(kBadParam, "two different tensors with one unique id");
    if (!writer.emplace(ops[i].y.uid, i).second)
      return refuse(kBadParam, "a tensor two operations write");
  }
  for (const auto &[uid, t] : tensors)
    if (t.isVirtual && (!writer.count(uid) || !readers.count(uid)))
      return refuse(kBadParam, "a virtual tensor no operation writes, or none reads");
  // Connected: every operation reaches the first through shared tensors.
  std::vector<size_t> component(ops.size());
  std::iota(component.begin(), component.end(), 0);
  std::function<size_t(size_t)> root = [&](size_t i) {
    return component[i] == i ? i : component[i] = root(component[i]);
  };
  for (const auto &[uid, users] : readers)
    if (auto it = writer.find(uid); it != writer.end())
      for (size_t user : users)
        component[root(user)] = root(it->second);
  for (size_t i = 0; i < ops.size(); ++i)
    if (root(i) != root(0))
      return refuse(kBadParam, "an operation graph that is not connected");
  // Pointwise operands: x of y's shape, b of y's or broadcast along 1s.
  for (const OpInfo &op : ops) {
    if (op.isConv)
      continue;
    if (op.x.dims != op.y.dims)
      return refuse(kBadParam, "a pointwise x of another shape than its y");
    if (op.hasB) {
      if (op.b.dims.size() != op.y.dims.size())
        return refuse(kBadParam, "a pointwise b of another rank than its y");
      for (size_t i = 0; i < op.b.dims.size(); ++i)
        if (op.b.dims[i] != op.y.dims[i] && op.b.dims[i] != 1)
          return refuse(kBadParam, "a pointwise b that does not broadcast to its y");
    }
  }
  // The pattern the engines run: a convolution, then a chain.
  auto graph = std::make_shared<Graph>();
  const auto conv = std::find_if(ops.begin(), ops.end(), [](const OpInfo &op) { return op.isConv; });
  if (std::count_if(ops.begin(), ops.end(), [](const OpInfo &op) { return op.isConv; }) != 1)
    return refuse(kNotSupportedGraphPattern, "not exactly one convolution in the graph");
  graph->ops.push_back(*conv);
  std::set<size_t> used = {static_cast<size_t>(conv - ops.begin())};
  while (graph->ops.back().y.isVirtual) {
    const auto &users = readers[graph->ops.back().y.uid];
    if (users.size() != 1 || ops[users[0]].x.uid != graph->ops.back().y.uid)
      return refuse(kNotSupportedGraphPattern, "operations that do not form a chain after the convolution");
    used.insert(users[0]);
    graph->ops.push_back(ops[users[0]]);
  }
  if (used.size() != ops.size() || readers.count(graph->ops.back().y.uid))
    return refuse(kNotSupportedGraphPattern, "not exactly one non-virtual output at the end of the chain");
  for (const auto &[uid, t] : tensors)
    if (!t.isVirtual)
      graph->real.emplace(uid, t);
  if (conv->x.type != conv->w.type)
    return refuse(kNotSupportedDataType, "x and w of different types");
  graph->inputType = conv->x.type;
  d.graph = graph;
  return kSuccess;
}

/// The engines `mode` offers for `graph`, best first.
std::vector<int> heuristics(const Graph &graph, int32_t mode) {
  const HostCudnnFailure failure = record().cudnnFailure;
  if (failure == HostCudnnFailure::NoEngine ||
      (failure == HostCudnnFailure::FallbackOnly && mode != dnn::kHeurModeFallback))
    return {};
  const bool f32 = graph.inputType == dnn::kCudnnDataFloat;
  if (mode == dnn::kHeurModeFallback)
    return {f32 ? kFmaEngine : kTensorCoreEngine};
  if (f32)
    return {kTensorCoreEngine, kFmaEngine};
  return {kTensorCoreEngine};
}

std::vector<int32_t> notesOf(int engine, const Graph &graph) {
  if (engine != kTensorCoreEngine)
    return {};
  if (graph.inputType == dnn::kCudnnDataFloat)
    return {dnn::kNumericalNoteTensorCore, dnn::kNumericalNoteDownConvertInputs};
  return {dnn::kNumericalNoteTensorCore};
}

int64_t workspaceOf(int engine) {
  if (record().cudnnFailure == HostCudnnFailure::HugeWorkspace)
    return kHugeWorkspace;
  return engine == kTensorCoreEngine ? kTensorCoreWorkspace : kFmaWorkspace;
}

/// Whether `engine` runs `graph`.
cudnnStatus_t supports(int engine, const Graph &graph) {
  if (engine != kTensorCoreEngine && engine != kFmaEngine)
    return refuse(kNotSupported, "an engine index the double does not have");
  if (engine == kFmaEngine && graph.inputType != dnn::kCudnnDataFloat)
    return refuse(kNotSupportedDataType, "the f32 engine for 16-bit operands");
  return kSuccess;
}

cudnnStatus_t finalize(Descriptor &d) {
  using namespace dnn;
  switch (d.type) {
  case kTensorDescriptor:
    return finalizeTensor(d);
  case kConvolutionDescriptor:
    return finalizeConvolution(d);
  case kPointwiseDescriptor:
    return finalizePointwise(d);
  case kOperationConvolutionForwardDescriptor:
    return finalizeConvolutionForward(d);
  case kOperationPointwiseDescriptor:
    return finalizePointwiseOperation(d);
  case kOperationGraphDescriptor: {
    const Attribute *handle = d.find(kAttrOperationGraphHandle);
    if (handle && !liveHandle(handle->at<const void *>(0)))
      return refuse(kBadParam, "an operation graph's handle that is not alive");
    return finalizeOperationGraph(d);
  }
  case kEngineHeurDescriptor: {
    const Descriptor *graph = referred(d, kAttrEngineHeurOperationGraph);
    const auto mode = one<int32_t>(d, kAttrEngineHeurMode);
    if (!graph || !graph->finalized || !mode)
      return refuse(kBadParam, "engine heuristics without a finalized operation graph or a mode");
    if (*mode < 0 || *mode > kHeurModeA)
      return refuse(kBadParam, "an unknown heuristics mode");
    ++record().cudnnHeuristicQueries;
    d.graph = graph->graph;
    d.engines = heuristics(*d.graph, *mode);
    return kSuccess;
  }
  case kEngineDescriptor: {
    const Descriptor *graph = referred(d, 1300);
    const auto index = one<int64_t>(d, kAttrEngineGlobalIndex);
    if (!graph || !graph->finalized || !index)
      return refuse(kBadParam, "an engine without a finalized operation graph or an index");
    if (cudnnStatus_t status = supports(static_cast<int>(*index), *graph->graph); status != kSuccess)
      return status;
    d.graph = graph->graph;
    d.engine = static_cast<int>(*index);
    return kSuccess;
  }
  case kEngineCfgDescriptor: {
    const Descriptor *engine = referred(d, kAttrEngineCfgEngine);
    if (!engine || !engine->finalized)
      return refuse(kBadParam, "an engine config without a finalized engine");
    d.graph = engine->graph;
    d.engine = engine->engine;
    d.workspace = workspaceOf(d.engine);
    return kSuccess;
  }
  case kExecutionPlanDescriptor: {
    const Descriptor *config = referred(d, kAttrExecutionPlanEngineConfig);
    if (!config)
      return refuse(kBadParam, "an execution plan without an engine config");
    if (!config->finalized)
      return refuse(kBadParamNotFinalized, "an execution plan of an engine config not finalized");
    const Attribute *handle = d.find(kAttrExecutionPlanHandle);
    if (handle && !liveHandle(handle->at<const void *>(0)))
      return refuse(kBadParam, "an execution plan's handle that is not alive");
    if (cudnnStatus_t status = supports(config->engine, *config->graph); status != kSuccess)
      return status;
    d.graph = config->graph;
    d.engine = config->engine;
    d.workspace = workspaceOf(d.engine);
    return kSuccess;
  }
  case kVariantPackDescriptor: {
    const Attribute *uids = d.find(kAttrVariantPackUniqueIds);
    const Attribute *pointers = d.find(kAttrVariantPackDataPointers);
    if (!uids || !pointers || uids->count != pointers->count)
      return refuse(kBadParam, "a variant pack without as many data pointers as unique ids");
    for (int64_t i = 0; i < uids->count; ++i)
      d.pointers[uids->at<int64_t>(i)] = pointers->at<uintptr_t>(i);
    if (const Attribute *workspace = d.find(kAttrVariantPackWorkspace))
      d.workspacePointer = workspace->at<uintptr_t>(0);
    return kSuccess;
  }
  default:
    return refuse(kNotSupported, "finalizing a descriptor the double does not model");
  }
}

//===--- Execution ---------------------------------------------------------===//

uint64_t typeBytes(int32_t type) { return type == dnn::kCudnnDataFloat ? 4 : 2; }

/// Bytes from a tensor's first element to past its last.
uint64_t extentBytes(const TensorInfo &t) {
  uint64_t last = 0;
  for (size_t i = 0; i < t.dims.size(); ++i)
    last += uint64_t(t.dims[i] - 1) * uint64_t(t.strides[i]);
  return (last + 1) * typeBytes(t.type);
}

float load(uintptr_t base, int32_t type, uint64_t index) {
  if (type == dnn::kCudnnDataFloat) {
    float value;
    std::memcpy(&value, reinterpret_cast<const void *>(base + index * 4), sizeof value);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, reinterpret_cast<const void *>(base + index * 2), sizeof bits);
  return type == dnn::kCudnnDataHalf ? fusec::halfBitsToFloat(bits) : fusec::bfloat16BitsToFloat(bits);
}

void store(uintptr_t base, int32_t type, uint64_t index, float value) {
  if (type == dnn::kCudnnDataFloat) {
    std::memcpy(reinterpret_cast<void *>(base + index * 4), &value, sizeof value);
    return;
  }
  const uint16_t bits = type == dnn::kCudnnDataHalf ? fusec::floatToHalfBits(value) : fusec::floatToBfloat16Bits(value);
  std::memcpy(reinterpret_cast<void *>(base + index * 2), &bits, sizeof bits);
}

/// A value rounded to `type` (to nearest even).
float roundTo(int32_t type, float value) {
  if (type == dnn::kCudnnDataHalf)
    return fusec::roundToHalf(value);
  if (type == dnn::kCudnnDataBfloat16)
    return fusec::roundToBfloat16(value);
  return value;
}

/// fusec_to_tf32 (codegen/include/fusec_mma.h), as HostCublasLt.cpp has it:
/// 10 mantissa bits, to nearest with ties away from zero.
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

/// A 4-d tensor's values in logical (d0, d1, d2, d3) order.
struct Values {
  std::array<int64_t, 4> dims{};
  std::vector<float> data;

  float &at(int64_t a, int64_t b, int64_t c, int64_t d) {
    return data[size_t(((a * dims[1] + b) * dims[2] + c) * dims[3] + d)];
  }
};

Values shaped(const TensorInfo &t) {
  Values v;
  std::copy(t.dims.begin(), t.dims.end(), v.dims.begin());
  v.data.assign(size_t(v.dims[0] * v.dims[1] * v.dims[2] * v.dims[3]), 0.0f);
  return v;
}

/// Calls `visit(logical index, a, b, c, d)` for every element.
template <typename Visit> void forEach(const std::array<int64_t, 4> &dims, Visit visit) {
  size_t i = 0;
  for (int64_t a = 0; a < dims[0]; ++a)
    for (int64_t b = 0; b < dims[1]; ++b)
      for (int64_t c = 0; c < dims[2]; ++c)
        for (int64_t d = 0; d < dims[3]; ++d)
          visit(i++, a, b, c, d);
}

uint64_t offsetOf(const TensorInfo &t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return uint64_t(a * t.strides[0] + b * t.strides[1] + c * t.strides[2] + d * t.strides[3]);
}

Values read(const TensorInfo &t, uintptr_t base) {
  Values v = shaped(t);
  forEach(v.dims, [&](size_t i, int64_t a, int64_t b, int64_t c, int64_t d) {
    v.data[i] = load(base, t.type, offsetOf(t, a, b, c, d));
  });
  return v;
}

/// The graph on the host: each operation's result rounded to its y's type,
/// the last one stored.
void compute(const Graph &graph, int engine, const std::map<int64_t, uintptr_t> &at) {
  const bool tf32 = engine == kTensorCoreEngine && graph.inputType == dnn::kCudnnDataFloat;
  std::map<int64_t, Values> values;
  auto operand = [&](const TensorInfo &t) -> Values & {
    auto it = values.find(t.uid);
    if (it == values.end())
      it = values.emplace(t.uid, read(t, at.at(t.uid))).first;
    return it->second;
  };
  for (const OpInfo &op : graph.ops) {
    Values y = shaped(op.y);
    if (op.isConv) {
      Values &x = operand(op.x), &w = operand(op.w);
      const int64_t groupChannels = op.w.dims[1], groups = op.x.dims[1] / groupChannels;
      const int64_t filtersPerGroup = op.w.dims[0] / groups, r = op.w.dims[2], s = op.w.dims[3];
      const bool flip = op.conv.mode == dnn::kCudnnConvolution;
      auto input = [tf32](float v) { return tf32 ? toTf32(v) : v; };
      forEach(y.dims, [&](size_t i, int64_t n, int64_t k, int64_t p, int64_t q) {
        const int64_t group = k / filtersPerGroup;
        float sum = 0.0f;
        for (int64_t c = 0; c < groupChannels; ++c)
          for (int64_t u = 0; u < r; ++u)
            for (int64_t v = 0; v < s; ++v) {
              const int64_t h = p * op.conv.stride[0] - op.conv.pre[0] + u * op.conv.dilation[0];
              const int64_t wIndex = q * op.conv.stride[1] - op.conv.pre[1] + v * op.conv.dilation[1];
              if (h < 0 || h >= op.x.dims[2] || wIndex < 0 || wIndex >= op.x.dims[3])
                continue; // zero padding
              const float tap = flip ? w.at(k, c, r - 1 - u, s - 1 - v) : w.at(k, c, u, v);
              sum += input(x.at(n, group * groupChannels + c, h, wIndex)) * input(tap);
            }
        y.data[i] = roundTo(op.y.type, op.alpha1 * sum);
      });
    } else {
      Values &x = operand(op.x);
      Values *b = op.hasB ? &operand(op.b) : nullptr;
      forEach(y.dims, [&](size_t i, int64_t n, int64_t c, int64_t h, int64_t w) {
        const float a = op.alpha1 * x.data[i];
        float result = a;
        if (b) {
          auto index = [&](int dim, int64_t value) { return b->dims[dim] == 1 ? 0 : value; };
          const float other = op.alpha2 * b->at(index(0, n), index(1, c), index(2, h), index(3, w));
          result = op.pointwiseMode == dnn::kPointwiseMul ? a * other : a + other;
        } else {
          result = std::max(a, 0.0f);
        }
        y.data[i] = roundTo(op.y.type, result);
      });
    }
    values[op.y.uid] = std::move(y);
  }
  // The output is stored once every operation has read what it needs.
  const TensorInfo &out = graph.ops.back().y;
  Values &y = values.at(out.uid);
  forEach(y.dims, [&](size_t i, int64_t a, int64_t b, int64_t c, int64_t d) {
    store(at.at(out.uid), out.type, offsetOf(out, a, b, c, d), y.data[i]);
  });
}

/// Whether every real tensor and the workspace lie in live memory (the lock
/// held).
bool addressable(const Graph &graph, const std::map<int64_t, uintptr_t> &at, uintptr_t workspace,
                 int64_t workspaceBytes) {
  for (const auto &[uid, t] : graph.real)
    if (!host_cuda::inside(at.at(uid), extentBytes(t)))
      return false;
  return workspaceBytes == 0 || host_cuda::inside(workspace, uint64_t(workspaceBytes));
}

} // namespace

// The entry points have exactly the types of CudnnApi's table: a call
// through a pointer of another function type is undefined.
#define FUSEC_LOCK auto lock = host_cuda::lock()

extern "C" {

size_t cudnnGetVersion() {
  FUSEC_LOCK;
  return static_cast<size_t>(record().cudnnVersion);
}

const char *cudnnGetErrorString(cudnnStatus_t status) {
  auto it = kStatusNames.find(status);
  return it == kStatusNames.end() ? "CUDNN_UNKNOWN_STATUS" : it->second;
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  FUSEC_LOCK;
  if (!handle)
    return refuse(kBadParam, "a null pointer for the created handle");
  auto object = std::make_unique<Handle>();
  *handle = reinterpret_cast<cudnnHandle_t>(object.get());
  objects().handles.emplace(object.get(), std::move(object));
  recount();
  return kSuccess;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  FUSEC_LOCK;
  if (!objects().handles.erase(handle))
    return refuse(kBadParam, "destroying a handle that is not alive");
  recount();
  return kSuccess;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, CUstream stream) {
  FUSEC_LOCK;
  auto it = objects().handles.find(handle);
  if (it == objects().handles.end())
    return refuse(kBadParam, "not a live cuDNN handle");
  it->second->stream = stream;
  return kSuccess;
}

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *descriptor) {
  FUSEC_LOCK;
  if (!descriptor)
    return refuse(kBadParam, "a null pointer for the created descriptor");
  if (type < 0 || type > kLastDescriptorType)
    return refuse(kHostAllocationFailed, "an unknown descriptor type"); // what cuDNN 9.19 answers
  if (!settable().count(type))
    return refuse(kNotSupported, "a descriptor type the double does not model");
  auto object = std::make_unique<Descriptor>();
  object->type = type;
  *descriptor = object.get();
  objects().descriptors.emplace(object.get(), std::move(object));
  recount();
  return kSuccess;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  FUSEC_LOCK;
  if (!objects().descriptors.erase(descriptor))
    return refuse(kBadParam, "destroying a descriptor that is not alive");
  recount();
  return kSuccess;
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  FUSEC_LOCK;
  Descriptor *d = findDescriptor(descriptor);
  if (!d)
    return refuse(kBadParam, "not a live descriptor");
  if (d->finalized)
    return refuse(kBadParam, "finalizing a descriptor twice");
  const cudnnStatus_t status = finalize(*d);
  d->finalized = status == kSuccess;
  return status;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t elementCount, const void *elements) {
  FUSEC_LOCK;
  Descriptor *d = findDescriptor(descriptor);
  if (!d)
    return refuse(kBadParam, "not a live descriptor");
  if (d->finalized)
    return refuse(kBadParam, "setting an attribute of a finalized descriptor");
  const Rules &rules = settable().at(d->type);
  auto rule = rules.find(name);
  if (rule == rules.end())
    return belongsTo(d->type, name) ? refuse(kNotSupported, "an attribute the double does not model")
                                    : refuse(kBadParam, "an attribute of another kind of descriptor");
  const Rule &r = rule->second;
  if (std::find(r.types.begin(), r.types.end(), type) == r.types.end())
    return refuse(kBadParamAttributeType, "an attribute value of the wrong type");
  if (elementCount < r.minCount || elementCount > r.maxCount)
    return refuse(kBadParam, "an attribute with the wrong number of elements");
  if (elementCount > 0 && !elements)
    return refuse(kBadParam, "a null attribute value");
  Attribute attribute;
  attribute.type = type;
  attribute.count = elementCount;
  const size_t size = elementBytes(type) * static_cast<size_t>(elementCount);
  attribute.bytes.resize(size);
  if (size > 0)
    std::memcpy(attribute.bytes.data(), elements, size);
  if (type == dnn::kTypeBackendDescriptor)
    for (int64_t i = 0; i < elementCount; ++i) {
      const Descriptor *other = findDescriptor(attribute.at<const void *>(i));
      if (!other)
        return refuse(kBadParam, "an attribute naming a descriptor that is not alive");
      if (std::find(r.kinds.begin(), r.kinds.end(), other->type) == r.kinds.end())
        return refuse(kBadParam, "an attribute naming a descriptor of the wrong kind");
      attribute.descriptors.push_back(std::make_shared<const Descriptor>(*other)); // a copy, as cuDNN keeps
    }
  if (type == dnn::kTypeHandle && !liveHandle(attribute.at<const void *>(0)))
    return refuse(kBadParam, "an attribute naming a handle that is not alive");
  d->attributes[name] = std::move(attribute);
  return kSuccess;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requestedElementCount,
                                       int64_t *elementCount, void *elements) {
  FUSEC_LOCK;
  using namespace dnn;
  const Descriptor *d = findDescriptor(descriptor);
  if (!d || !elementCount || requestedElementCount < 0)
    return refuse(kBadParam, "not a live descriptor, or no element count");
  if (!d->finalized)
    return refuse(kNotInitialized, "getting an attribute of a descriptor not finalized");
  if (requestedElementCount > 0 && !elements)
    return refuse(kBadParam, "a null array for the attribute's elements");
  // Descriptor values: the caller's descriptors, of `kind`, are filled.
  auto fill = [&](cudnnBackendDescriptorType_t kind, const std::vector<Descriptor> &values) {
    if (type != kTypeBackendDescriptor)
      return refuse(kBadParamAttributeType, "an attribute value of the wrong type");
    *elementCount = requestedElementCount == 0 ? int64_t(values.size())
                                               : std::min<int64_t>(requestedElementCount, int64_t(values.size()));
    if (requestedElementCount == 0)
      return kSuccess;
    for (int64_t i = 0; i < *elementCount; ++i) {
      void *target = static_cast<cudnnBackendDescriptor_t *>(elements)[i];
      Descriptor *into = findDescriptor(target);
      if (!into || into->type != kind)
        return refuse(kBadParam, "an element that is not a live descriptor of the attribute's kind");
      *into = values[size_t(i)];
    }
    return kSuccess;
  };
  auto scalars = [&](cudnnBackendAttributeType_t expected, const auto &values) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    if (type != expected)
      return refuse(kBadParamAttributeType, "an attribute value of the wrong type");
    *elementCount = requestedElementCount == 0 ? int64_t(values.size())
                                               : std::min<int64_t>(requestedElementCount, int64_t(values.size()));
    if (*elementCount > 0) // an empty vector's data() may be null, which memcpy must not see
      std::memcpy(elements, values.data(), size_t(*elementCount) * sizeof(T));
    return kSuccess;
  };
  if (d->type == kEngineHeurDescriptor && name == kAttrEngineHeurResults) {
    std::vector<Descriptor> configs;
    for (int engine : d->engines) {
      Descriptor config;
      config.type = kEngineCfgDescriptor;
      config.finalized = true;
      config.graph = d->graph;
      config.engine = engine;
      config.workspace = workspaceOf(engine);
      configs.push_back(std::move(config));
    }
    return fill(kEngineCfgDescriptor, configs);
  }
  if (d->type == kEngineCfgDescriptor && name == kAttrEngineCfgEngine) {
    Descriptor engine;
    engine.type = kEngineDescriptor;
    engine.finalized = true;
    engine.graph = d->graph;
    engine.engine = d->engine;
    return fill(kEngineDescriptor, {engine});
  }
  if ((d->type == kEngineCfgDescriptor && name == kAttrEngineCfgWorkspaceSize) ||
      (d->type == kExecutionPlanDescriptor && name == kAttrExecutionPlanWorkspaceSize))
    return scalars(kTypeInt64, std::vector<int64_t>{d->workspace});
  if (d->type == kEngineDescriptor && name == kAttrEngineNumericalNote)
    return scalars(kTypeNumericalNote, notesOf(d->engine, *d->graph));
  if (d->type == kEngineDescriptor && name == kAttrEngineGlobalIndex)
    return scalars(kTypeInt64, std::vector<int64_t>{d->engine});
  // An attribute that was set: its elements as they were given.
  const Attribute *attribute = d->find(name);
  if (!attribute)
    return belongsTo(d->type, name) ? refuse(kNotSupported, "an attribute the double does not model")
                                    : refuse(kBadParam, "an attribute of another kind of descriptor");
  if (attribute->type != type || type == kTypeBackendDescriptor)
    return refuse(type == kTypeBackendDescriptor ? kNotSupported : kBadParamAttributeType,
                  "an attribute value of the wrong type (or a descriptor attribute, not modeled)");
  *elementCount = requestedElementCount == 0 ? attribute->count : std::min(requestedElementCount, attribute->count);
  if (requestedElementCount > 0)
    std::memcpy(elements, attribute->bytes.data(), size_t(*elementCount) * elementBytes(type));
  return kSuccess;
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack) {
  FUSEC_LOCK;
  auto found = objects().handles.find(handle);
  if (found == objects().handles.end())
    return refuse(kBadParam, "not a live cuDNN handle");
  const Descriptor *plan = findDescriptor(executionPlan), *pack = findDescriptor(variantPack);
  if (!plan || plan->type != dnn::kExecutionPlanDescriptor || !pack || pack->type != dnn::kVariantPackDescriptor)
    return refuse(kBadParam, "not a live execution plan and variant pack");
  if (!plan->finalized || !pack->finalized)
    return refuse(kBadParamNotFinalized, "an execution plan or variant pack not finalized");
  const Graph &graph = *plan->graph;
  std::map<int64_t, uintptr_t> at;
  for (const auto &[uid, t] : graph.real) {
    auto pointer = pack->pointers.find(uid);
    if (pointer == pack->pointers.end())
      return refuse(kBadParam, "a variant pack without a non-virtual tensor's id");
    if (pointer->second == 0)
      return refuse(kBadParamNullPointer, "a null data pointer");
    if (pointer->second % uint64_t(t.alignment) != 0)
      return refuse(kBadParamMisalignedPointer, "a data pointer less aligned than its tensor's byte alignment");
    at[uid] = pointer->second;
  }
  if (plan->workspace > 0 && !pack->workspacePointer)
    return refuse(kBadParam, "no workspace for a plan that needs one");
  if (record().cudnnFailure == HostCudnnFailure::ExecuteFails)
    return refuse(kExecutionFailed, "the execution fails (cudnnFailure)");
  const uintptr_t workspace = pack->workspacePointer;
  const int64_t workspaceBytes = plan->workspace;
  if (!addressable(graph, at, workspace, workspaceBytes))
    return refuse(kExecutionFailed, "a tensor or the workspace outside live device memory");
  const std::shared_ptr<const Graph> kept = plan->graph;
  const int engine = plan->engine;
  const int queued = host_cuda::enqueue(found->second->stream, [kept, engine, at, workspace, workspaceBytes] {
    if (!addressable(*kept, at, workspace, workspaceBytes))
      return kCudaIllegalAddress;
    compute(*kept, engine, at);
    ++record().cudnnExecutionsRun;
    return kCudaSuccess;
  });
  if (queued != kCudaSuccess)
    return refuse(kExecutionFailed, "the stream refused the execution (not a live stream of the double)");
  ++record().cudnnExecutions;
  return kSuccess;
}

} // extern "C"

// The exported functions have the table's types exactly.
#define FUSEC_SAME_TYPE(member, function)                                                                              \
  static_assert(std::is_same_v<decltype(dnn::CudnnApi::member), decltype(&function)>,                                  \
                #function " does not have CudnnApi::" #member "'s type")
FUSEC_SAME_TYPE(getVersion, cudnnGetVersion);
FUSEC_SAME_TYPE(getErrorString, cudnnGetErrorString);
FUSEC_SAME_TYPE(create, cudnnCreate);
FUSEC_SAME_TYPE(destroy, cudnnDestroy);
FUSEC_SAME_TYPE(setStream, cudnnSetStream);
FUSEC_SAME_TYPE(backendCreateDescriptor, cudnnBackendCreateDescriptor);
FUSEC_SAME_TYPE(backendDestroyDescriptor, cudnnBackendDestroyDescriptor);
FUSEC_SAME_TYPE(backendFinalize, cudnnBackendFinalize);
FUSEC_SAME_TYPE(backendSetAttribute, cudnnBackendSetAttribute);
FUSEC_SAME_TYPE(backendGetAttribute, cudnnBackendGetAttribute);
FUSEC_SAME_TYPE(backendExecute, cudnnBackendExecute);
