//===- CudnnConv.cpp - Library variants run on cuDNN ----------------------===//

#include "runtime/cuda/CudnnConv.h"

#include "runtime/ElementType.h"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace fusec::runtime::cuda {

namespace {

using Dims = std::array<int64_t, 4>;

/// Unique ids of the graph's tensors: the real ones, which the variant pack
/// names, then the virtual intermediates.
constexpr int64_t kInputUid = 1, kFilterUid = 2, kOutputUid = 3, kBiasUid = 4, kResidualUid = 5;
constexpr int64_t kFirstVirtualUid = 100;

/// cuDNN answered "not supported" (a status of category 3000): the reason
/// unsupported() gives, never an Error.
class NotSupported : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

cudnnDataType_t cudnnTypeOf(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return kCudnnDataHalf;
  case ElementType::BF16:
    return kCudnnDataBfloat16;
  default: // the verifier admits only f32 besides
    return kCudnnDataFloat;
  }
}

/// Dense strides of a tensor with logical dimensions (d0, d1, d2, d3)
/// (N, C, H, W or K, C, R, S) stored in that order, or channels last
/// (d0, d2, d3, d1).
Dims denseStrides(const Dims &d, bool channelsLast) {
  if (channelsLast)
    return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
}

/// The largest power of two, at most kCudnnTensorAlignment, dividing
/// `address`.
uint32_t alignmentOf(gpu::DevicePtr address) {
  const uint64_t bits = address | kCudnnTensorAlignment;
  return static_cast<uint32_t>(bits & (~bits + 1));
}

/// A backend descriptor, destroyed with its owner.
class Descriptor {
public:
  Descriptor(const CudnnApi &api, cudnnBackendDescriptorType_t type, const std::string &where) : api_(&api) {
    api.check(api.backendCreateDescriptor(type, &descriptor_), "cudnnBackendCreateDescriptor", where);
  }
  ~Descriptor() {
    if (descriptor_)
      api_->backendDestroyDescriptor(descriptor_);
  }
  Descriptor(Descriptor &&other) noexcept : api_(other.api_), descriptor_(std::exchange(other.descriptor_, nullptr)) {}
  Descriptor &operator=(Descriptor &&other) noexcept {
    std::swap(api_, other.api_);
    std::swap(descriptor_, other.descriptor_);
    return *this;
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;

  cudnnBackendDescriptor_t get() const { return descriptor_; }

private:
  const CudnnApi *api_;
  cudnnBackendDescriptor_t descriptor_ = nullptr;
};

/// The calls that build one operation graph, each checked: "not supported"
/// from a finalize throws NotSupported, any other failure Error.
class GraphBuilder {
public:
  GraphBuilder(const CudnnApi &api, const std::string &where, std::vector<Descriptor> &owned)
      : api_(api), where_(where), owned_(owned) {}

  /// A new descriptor that lives as long as the prepared plan (cuDNN copies
  /// what a descriptor attribute refers to, but nothing says it always will).
  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type) {
    owned_.emplace_back(api_, type, where_);
    return owned_.back().get();
  }

  void set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
           int64_t count, const void *values) const {
    const cudnnStatus_t status = api_.backendSetAttribute(descriptor, name, type, count, values);
    if (status != kCudnnSuccess)
      api_.check(status, "cudnnBackendSetAttribute", where_ + " (attribute " + std::to_string(name) + ")");
  }
  template <typename T>
  void setOne(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
              const T &value) const {
    set(descriptor, name, type, 1, static_cast<const void *>(&value));
  }
  void setDescriptor(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                     cudnnBackendDescriptor_t value) const {
    setOne(descriptor, name, kTypeBackendDescriptor, value);
  }

  /// Finalizes `descriptor`, `what` naming it in a reason.
  void finalize(cudnnBackendDescriptor_t descriptor, const char *what) const {
    const cudnnStatus_t status = api_.backendFinalize(descriptor);
    if (status == kCudnnSuccess)
      return;
    if (cudnnStatusCategory(status) == kCudnnNotSupported)
      throw NotSupported(std::string(what) + ": " + api_.describe(status));
    api_.check(status, "cudnnBackendFinalize", where_ + " (" + what + ")");
  }

  cudnnBackendDescriptor_t tensor(const Dims &dims, const Dims &strides, cudnnDataType_t type, int64_t uid,
                                  int64_t alignment, bool isVirtual) {
    cudnnBackendDescriptor_t tensor = create(kTensorDescriptor);
    setOne(tensor, kAttrTensorDataType, kTypeDataType, type);
    set(tensor, kAttrTensorDimensions, kTypeInt64, 4, dims.data());
    set(tensor, kAttrTensorStrides, kTypeInt64, 4, strides.data());
    setOne(tensor, kAttrTensorUniqueId, kTypeInt64, uid);
    setOne(tensor, kAttrTensorByteAlignment, kTypeInt64, alignment);
    setOne(tensor, kAttrTensorIsVirtual, kTypeBoolean, isVirtual);
    finalize(tensor, "a tensor");
    return tensor;
  }

  /// y = mode(x, b), alpha2 scaling b.
  cudnnBackendDescriptor_t pointwise(cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
                                     cudnnBackendDescriptor_t y, std::optional<float> alpha2 = std::nullopt) {
    cudnnBackendDescriptor_t op = create(kPointwiseDescriptor);
    setOne(op, kAttrPointwiseMode, kTypePointwiseMode, mode);
    setOne(op, kAttrPointwiseMathPrec, kTypeDataType, kCudnnDataFloat);
    finalize(op, "a pointwise descriptor");
    cudnnBackendDescriptor_t node = create(kOperationPointwiseDescriptor);
    setDescriptor(node, kAttrOperationPointwisePwDescriptor, op);
    setDescriptor(node, kAttrOperationPointwiseXDesc, x);
    if (b)
      setDescriptor(node, kAttrOperationPointwiseBDesc, b);
    setDescriptor(node, kAttrOperationPointwiseYDesc, y);
    if (alpha2)
      setOne(node, kAttrOperationPointwiseAlpha2, kTypeFloat, *alpha2);
    finalize(node, "a pointwise operation");
    return node;
  }

  const CudnnApi &api() const { return api_; }
  const std::string &where() const { return where_; }

private:
  const CudnnApi &api_;
  const std::string &where_;
  std::vector<Descriptor> &owned_;
};

/// Whether the engine of `config` notes tensor cores or inputs converted
/// to a narrower type (TF32 for f32 operands).
bool usesTensorCores(const GraphBuilder &graph, cudnnBackendDescriptor_t config) {
  const CudnnApi &api = graph.api();
  Descriptor engine(api, kEngineDescriptor, graph.where());
  cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  api.check(api.backendGetAttribute(config, kAttrEngineCfgEngine, kTypeBackendDescriptor, 1, &count,
                                    static_cast<void *>(&raw)),
            "cudnnBackendGetAttribute", graph.where() + " (the engine config's engine)");
  std::array<cudnnBackendNumericalNote_t, kNumericalNoteTypeCount> notes{};
  api.check(api.backendGetAttribute(engine.get(), kAttrEngineNumericalNote, kTypeNumericalNote,
                                    static_cast<int64_t>(notes.size()), &count, notes.data()),
            "cudnnBackendGetAttribute", graph.where() + " (the engine's numerical notes)");
  const auto end = notes.begin() + std::clamp<int64_t>(count, 0, static_cast<int64_t>(notes.size()));
  return std::any_of(notes.begin(), end, [](cudnnBackendNumericalNote_t note) {
    return note == kNumericalNoteTensorCore || note == kNumericalNoteDownConvertInputs;
  });
}

} // namespace

/// One graph's execution plan, or why cuDNN has none.
struct CudnnConvs::Prepared {
  /// Every descriptor of the graph, the engine config and the plan last.
  std::vector<Descriptor> descriptors;
  cudnnBackendDescriptor_t plan = nullptr;
  int64_t workspaceBytes = 0;
  /// The real tensors' unique ids, and their positions in the kernel's
  /// buffer list, in the variant pack's order.
  std::vector<int64_t> uids;
  std::vector<size_t> positions;
  /// Non-empty: cuDNN has no engine, and this says why.
  std::string unsupported;

  ~Prepared() {
    // The plan first: the reverse of the creation order.
    while (!descriptors.empty())
      descriptors.pop_back();
  }
};

CudnnConvs::CudnnConvs(const CudaDevice &driver, const Plan &plan, const std::string &library)
    : driver_(driver), plan_(plan), api_(CudnnApi::load(library)) {
  api_->check(api_->create(&handle_), "cudnnCreate", "while loading cuDNN '" + library + "'");
  try {
    workspace_ = driver_.allocate(kCudnnWorkspaceBytes, "for the cuDNN workspace");
  } catch (...) {
    api_->destroy(handle_);
    throw;
  }
}

CudnnConvs::~CudnnConvs() {
  prepared_.clear();
  driver_.free(workspace_);
  api_->destroy(handle_);
}

std::unique_ptr<CudnnConvs::Prepared> CudnnConvs::prepare(const Key &key, const std::string &where) const {
  const auto &[kernelIndex, variant, batch, alignment] = key;
  const KernelDesc &kernel = plan_.kernels()[kernelIndex];
  const LibraryCall *call = kernel.libraryOf(variant);
  if (!call || !call->conv)
    throw Error("variant " + std::to_string(variant) + " of kernel '" + kernel.name + "' is not a cuDNN convolution");
  const LibraryConv &c = *call->conv;
  if (c.activation == LibraryConv::Activation::GeluTanh)
    throw Error("cannot run kernel '" + kernel.name +
                "' on cuDNN: gelu_tanh is not a convolution activation (the plan verifier refuses it)");
  const size_t inputs = kernel.inputs.size();
  auto typeOf = [&](size_t position) {
    const size_t buffer = position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs];
    return plan_.buffers()[buffer].dtype;
  };

  auto prepared = std::make_unique<Prepared>();
  GraphBuilder graph(*api_, where, prepared->descriptors);
  try {
    const bool nhwc = c.layout == LibraryConv::Layout::Nhwc;
    const int64_t n = c.n.at(batch);
    const Dims xDims{n, c.c, c.h, c.w}, wDims{c.k, c.c / c.groups, c.r, c.s}, yDims{n, c.k, c.p(), c.q()};
    const Dims bDims{1, c.k, 1, 1};
    const cudnnDataType_t xType = cudnnTypeOf(typeOf(c.input)), yType = cudnnTypeOf(typeOf(c.output));
    const int64_t align = alignment;
    cudnnBackendDescriptor_t x = graph.tensor(xDims, denseStrides(xDims, nhwc), xType, kInputUid, align, false);
    cudnnBackendDescriptor_t w = graph.tensor(wDims, denseStrides(wDims, nhwc), xType, kFilterUid, align, false);
    prepared->uids = {kInputUid, kFilterUid};
    prepared->positions = {c.input, c.filter};

    // The convolution's output, then one per step after it (bias, residual,
    // ReLU, those the conv has): the last is the real output, the others
    // virtual f32 tensors.
    const int written = 1 + (c.bias ? 1 : 0) + (c.residual ? 1 : 0) + (c.activation == LibraryConv::Activation::Relu);
    int64_t nextVirtual = kFirstVirtualUid;
    int made = 0;
    auto next = [&]() {
      if (++made == written)
        return graph.tensor(yDims, denseStrides(yDims, nhwc), yType, kOutputUid, align, false);
      return graph.tensor(yDims, denseStrides(yDims, nhwc), kCudnnDataFloat, nextVirtual++, align, true);
    };

    cudnnBackendDescriptor_t conv = graph.create(kConvolutionDescriptor);
    graph.setOne(conv, kAttrConvolutionCompType, kTypeDataType, kCudnnDataFloat);
    graph.setOne(conv, kAttrConvolutionConvMode, kTypeConvolutionMode, kCudnnCrossCorrelation);
    graph.setOne(conv, kAttrConvolutionSpatialDims, kTypeInt64, int64_t{2});
    graph.set(conv, kAttrConvolutionPrePaddings, kTypeInt64, 2, c.padBegin.data());
    graph.set(conv, kAttrConvolutionPostPaddings, kTypeInt64, 2, c.padEnd.data());
    graph.set(conv, kAttrConvolutionFilterStrides, kTypeInt64, 2, c.stride.data());
    graph.set(conv, kAttrConvolutionDilations, kTypeInt64, 2, c.dilation.data());
    graph.finalize(conv, "the convolution descriptor");

    std::vector<cudnnBackendDescriptor_t> ops;
    cudnnBackendDescriptor_t current = next();
    {
      cudnnBackendDescriptor_t op = graph.create(kOperationConvolutionForwardDescriptor);
      graph.setDescriptor(op, kAttrOperationConvolutionForwardX, x);
      graph.setDescriptor(op, kAttrOperationConvolutionForwardW, w);
      graph.setDescriptor(op, kAttrOperationConvolutionForwardY, current);
      graph.setDescriptor(op, kAttrOperationConvolutionForwardConvDesc, conv);
      graph.setOne(op, kAttrOperationConvolutionForwardAlpha, kTypeFloat, static_cast<float>(c.alpha));
      graph.setOne(op, kAttrOperationConvolutionForwardBeta, kTypeFloat, 0.0f);
      graph.finalize(op, "the convolution operation");
      ops.push_back(op);
    }
    if (c.bias) {
      const ElementType biasType = typeOf(*c.bias);
      cudnnBackendDescriptor_t bias =
          graph.tensor(bDims, denseStrides(bDims, nhwc), cudnnTypeOf(biasType), kBiasUid, align, false);
      cudnnBackendDescriptor_t sum = next();
      ops.push_back(graph.pointwise(kPointwiseAdd, current, bias, sum));
      current = sum;
      prepared->uids.push_back(kBiasUid);
      prepared->positions.push_back(*c.bias);
    }
    if (c.residual) {
      cudnnBackendDescriptor_t residual =
          graph.tensor(yDims, denseStrides(yDims, nhwc), yType, kResidualUid, align, false);
      cudnnBackendDescriptor_t sum = next();
      ops.push_back(graph.pointwise(kPointwiseAdd, current, residual, sum, static_cast<float>(c.beta)));
      current = sum;
      prepared->uids.push_back(kResidualUid);
      prepared->positions.push_back(*c.residual);
    }
    if (c.activation == LibraryConv::Activation::Relu) {
      cudnnBackendDescriptor_t relu = next();
      ops.push_back(graph.pointwise(kPointwiseReluFwd, current, nullptr, relu));
      current = relu;
    }
    prepared->uids.push_back(kOutputUid);
    prepared->positions.push_back(c.output);

    cudnnBackendDescriptor_t opGraph = graph.create(kOperationGraphDescriptor);
    graph.set(opGraph, kAttrOperationGraphOps, kTypeBackendDescriptor, static_cast<int64_t>(ops.size()),
              static_cast<const void *>(ops.data()));
    graph.setOne(opGraph, kAttrOperationGraphHandle, kTypeHandle, handle_);
    graph.finalize(opGraph, "the operation graph");

    // The engine configs, best first: mode A's, then the fallback's.
    const bool strictF32 = typeOf(c.input) == ElementType::F32 && c.compute == LibraryConv::Compute::F32;
    std::vector<std::string> reasons;
    auto note = [&](std::string reason) {
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
        reasons.push_back(std::move(reason));
    };
    for (cudnnBackendHeurMode_t mode : {kHeurModeA, kHeurModeFallback}) {
      const std::string modeName = mode == kHeurModeA ? "heuristics mode A" : "heuristics mode FALLBACK";
      Descriptor heuristics(*api_, kEngineHeurDescriptor, where);
      graph.setDescriptor(heuristics.get(), kAttrEngineHeurOperationGraph, opGraph);
      graph.setOne(heuristics.get(), kAttrEngineHeurMode, kTypeHeurMode, mode);
      try {
        graph.finalize(heuristics.get(), "the engine heuristics");
      } catch (const NotSupported &refused) {
        note(modeName + ": " + refused.what());
        continue;
      }
      int64_t count = 0;
      api_->check(api_->backendGetAttribute(heuristics.get(), kAttrEngineHeurResults, kTypeBackendDescriptor, 0, &count,
                                            nullptr),
                  "cudnnBackendGetAttribute", where + " (the number of engine configs)");
      std::vector<Descriptor> configs;
      std::vector<cudnnBackendDescriptor_t> raw;
      for (int64_t i = 0; i < count; ++i) {
        configs.emplace_back(*api_, kEngineCfgDescriptor, where);
        raw.push_back(configs.back().get());
      }
      int64_t returned = 0;
      if (count > 0)
        api_->check(api_->backendGetAttribute(heuristics.get(), kAttrEngineHeurResults, kTypeBackendDescriptor, count,
                                              &returned, static_cast<void *>(raw.data())),
                    "cudnnBackendGetAttribute", where + " (the engine configs)");
      if (returned <= 0)
        note(modeName + " offered no engine config");
      for (int64_t i = 0; i < std::min(returned, count); ++i) {
        if (strictF32 && usesTensorCores(graph, raw[i])) {
          note("engines on TF32 tensor cores are skipped (compute f32)");
          continue;
        }
        Descriptor plan(*api_, kExecutionPlanDescriptor, where);
        graph.setOne(plan.get(), kAttrExecutionPlanHandle, kTypeHandle, handle_);
        graph.setDescriptor(plan.get(), kAttrExecutionPlanEngineConfig, raw[i]);
        try {
          graph.finalize(plan.get(), "the execution plan");
        } catch (const NotSupported &refused) {
          note(refused.what());
          continue;
        }
        int64_t workspace = 0, got = 0;
        api_->check(
            api_->backendGetAttribute(plan.get(), kAttrExecutionPlanWorkspaceSize, kTypeInt64, 1, &got, &workspace),
            "cudnnBackendGetAttribute", where + " (the plan's workspace size)");
        if (workspace < 0 || static_cast<uint64_t>(workspace) > kCudnnWorkspaceBytes) {
          note("an engine needs " + std::to_string(workspace) + " bytes of workspace, more than the " +
               std::to_string(kCudnnWorkspaceBytes) + " allocated");
          continue;
        }
        prepared->plan = plan.get();
        prepared->workspaceBytes = workspace;
        prepared->descriptors.push_back(std::move(configs[i]));
        prepared->descriptors.push_back(std::move(plan));
        return prepared;
      }
    }
    std::string reason = "cuDNN has no engine for it";
    for (size_t i = 0; i < reasons.size(); ++i)
      reason += (i == 0 ? ": " : "; ") + reasons[i];
    throw NotSupported(reason);
  } catch (const NotSupported &refused) {
    auto none = std::make_unique<Prepared>();
    none->unsupported = refused.what();
    return none;
  }
}

const CudnnConvs::Prepared &CudnnConvs::prepared(const Key &key, gpu::Where where) const {
  auto found = prepared_.find(key);
  if (found != prepared_.end())
    return *found->second;
  return *prepared_.emplace(key, prepare(key, where.str())).first->second;
}

std::string CudnnConvs::unsupported(size_t kernel, size_t variant) const {
  const std::string where = "for kernel '" + plan_.kernels()[kernel].name + "'";
  std::lock_guard<std::mutex> lock(mutex_);
  return prepared({kernel, variant, 1, kCudnnTensorAlignment}, where).unsupported;
}

void CudnnConvs::run(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream, gpu::Where where) const {
  const KernelDesc &kernel = plan_.kernels()[step.kernel];
  const LibraryCall *call = kernel.libraryOf(step.variant);
  if (!call || !call->conv)
    throw Error("variant " + std::to_string(step.variant) + " of kernel '" + kernel.name +
                "' is not a cuDNN convolution");
  const LibraryConv &c = *call->conv;
  uint32_t alignment = kCudnnTensorAlignment;
  for (std::optional<size_t> position : {std::optional<size_t>(c.input), std::optional<size_t>(c.filter),
                                         std::optional<size_t>(c.output), c.bias, c.residual})
    if (position)
      alignment = std::min(alignment, alignmentOf(args[*position]));

  std::lock_guard<std::mutex> lock(mutex_);
  const Prepared &plan = prepared({step.kernel, step.variant, step.batch, alignment}, where);
  if (!plan.unsupported.empty())
    throw Error("cannot run " + where.str() + " on cuDNN at batch " + std::to_string(step.batch) + ": " +
                plan.unsupported);
  const CudnnApi &dnn = *api_;
  auto check = [&](cudnnStatus_t status, const char *call) {
    if (status != kCudnnSuccess)
      dnn.check(status, call, where.str());
  };
  // The variant pack: host work, built per call (a captured graph keeps only
  // what cudnnBackendExecute enqueued).
  cudnnBackendDescriptor_t pack = nullptr;
  check(dnn.backendCreateDescriptor(kVariantPackDescriptor, &pack), "cudnnBackendCreateDescriptor");
  struct Release {
    const CudnnApi &api;
    cudnnBackendDescriptor_t pack;
    ~Release() { api.backendDestroyDescriptor(pack); }
  } release{dnn, pack};
  std::array<void *, 5> pointers{};
  for (size_t i = 0; i < plan.positions.size(); ++i)
    pointers[i] =
        reinterpret_cast<void *>(static_cast<uintptr_t>(args[plan.positions[i]])); // NOLINT(performance-no-int-to-ptr)
  void *workspace =
      plan.workspaceBytes > 0
          ? reinterpret_cast<void *>(static_cast<uintptr_t>(workspace_)) // NOLINT(performance-no-int-to-ptr)
          : nullptr;
  const auto count = static_cast<int64_t>(plan.uids.size());
  check(dnn.backendSetAttribute(pack, kAttrVariantPackUniqueIds, kTypeInt64, count, plan.uids.data()),
        "cudnnBackendSetAttribute");
  check(dnn.backendSetAttribute(pack, kAttrVariantPackDataPointers, kTypeVoidPtr, count,
                                static_cast<const void *>(pointers.data())),
        "cudnnBackendSetAttribute");
  check(
      dnn.backendSetAttribute(pack, kAttrVariantPackWorkspace, kTypeVoidPtr, 1, static_cast<const void *>(&workspace)),
      "cudnnBackendSetAttribute");
  check(dnn.backendFinalize(pack), "cudnnBackendFinalize");
  check(dnn.setStream(handle_, static_cast<CUstream>(stream)), "cudnnSetStream");
  check(dnn.backendExecute(handle_, plan.plan, pack), "cudnnBackendExecute");
}

} // namespace fusec::runtime::cuda
