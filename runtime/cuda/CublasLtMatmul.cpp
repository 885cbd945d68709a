//===- CublasLtMatmul.cpp - Library variants run on cuBLASLt ----------------===//

#include "runtime/cuda/CublasLtMatmul.h"

#include "runtime/ElementType.h"

#include <array>

namespace fusec::runtime::cuda {

namespace {

cudaDataType cudaTypeOf(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return kCudaR16F;
  case ElementType::BF16:
    return kCudaR16BF;
  default: // the verifier admits only f32 besides
    return kCudaR32F;
  }
}

/// The largest power of two (at most 256, what cuBLASLt assumes by
/// default) dividing every matrix's address: the first's, and each next one
/// `strideBytes` further.
uint32_t alignmentOf(gpu::DevicePtr address, uint64_t strideBytes) {
  uint64_t bits = address | strideBytes | 256;
  return static_cast<uint32_t>(bits & (~bits + 1));
}

} // namespace

/// The descriptors of one call, and the algorithm the heuristic chose.
struct CublasLtMatmuls::Prepared {
  const CublasLtApi *api = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  /// cuBLASLt's A, B, C, D: the plan's B, A, C, D (see the header).
  std::array<cublasLtMatrixLayout_t, 4> layouts{};
  cublasLtMatmulAlgo_t algo{};
  size_t workspaceBytes = 0;
  float alpha = 1, beta = 0;

  ~Prepared() {
    for (cublasLtMatrixLayout_t layout : layouts)
      if (layout)
        api->matrixLayoutDestroy(layout);
    if (desc)
      api->matmulDescDestroy(desc);
  }
};

CublasLtMatmuls::CublasLtMatmuls(const CudaDevice &driver, const Plan &plan, const std::string &library)
    : driver_(driver), plan_(plan), api_(CublasLtApi::load(library)) {
  api_->check(api_->create(&handle_), "cublasLtCreate", "while loading cuBLASLt '" + library + "'");
  try {
    workspace_ = driver_.allocate(kCublasLtWorkspaceBytes, "for the cuBLASLt workspace");
  } catch (...) {
    api_->destroy(handle_);
    throw;
  }
}

CublasLtMatmuls::~CublasLtMatmuls() {
  prepared_.clear();
  driver_.free(workspace_);
  api_->destroy(handle_);
}

const CublasLtMatmuls::Prepared &CublasLtMatmuls::prepare(const Key &key, const LibraryMatmul &m,
                                                          const LaunchStep &step, gpu::Where where) const {
  const KernelDesc &kernel = plan_.kernels()[step.kernel];
  const size_t inputs = kernel.inputs.size();
  auto typeOf = [&](size_t position) {
    const size_t buffer = position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs];
    return plan_.buffers()[buffer].dtype;
  };
  const CublasLtApi &lt = *api_;
  auto prepared = std::make_unique<Prepared>();
  prepared->api = &lt;
  const std::string context = where.str();
  auto check = [&](cublasStatus_t status, const char *call) { lt.check(status, call, context); };

  const uint64_t rows = static_cast<uint64_t>(m.m.at(step.batch));
  const int32_t count = static_cast<int32_t>(m.batchCount.at(step.batch));
  const uint64_t n = static_cast<uint64_t>(m.n), k = static_cast<uint64_t>(m.k);
  const ElementType abType = typeOf(m.a), dType = typeOf(m.d);
  const bool tf32 = m.compute == LibraryMatmul::Compute::Tf32;
  check(lt.matmulDescCreate(&prepared->desc, tf32 ? kCublasCompute32FFastTf32 : kCublasCompute32F, kCudaR32F),
        "cublasLtMatmulDescCreate");
  // cuBLASLt's A is the plan's B: stored n x k column-major unless the
  // plan's B is transposed (then k x n, read transposed); likewise its B.
  const int32_t opA = m.transB ? kCublasOpT : kCublasOpN, opB = m.transA ? kCublasOpT : kCublasOpN;
  auto setDesc = [&](cublasLtMatmulDescAttributes_t attribute, const void *value, size_t bytes) {
    check(lt.matmulDescSetAttribute(prepared->desc, attribute, value, bytes), "cublasLtMatmulDescSetAttribute");
  };
  setDesc(kMatmulDescTransA, &opA, sizeof(opA));
  setDesc(kMatmulDescTransB, &opB, sizeof(opB));
  uint32_t epilogue = kEpilogueDefault;
  switch (m.activation) {
  case LibraryMatmul::Activation::None:
    epilogue = m.bias ? kEpilogueBias : kEpilogueDefault;
    break;
  case LibraryMatmul::Activation::Relu:
    epilogue = m.bias ? kEpilogueReluBias : kEpilogueRelu;
    break;
  case LibraryMatmul::Activation::GeluTanh:
    epilogue = m.bias ? kEpilogueGeluBias : kEpilogueGelu;
    break;
  }
  setDesc(kMatmulDescEpilogue, &epilogue, sizeof(epilogue));
  if (m.bias) {
    // The pointer is set per call (run()); the type and the batch stride (0:
    // every matrix adds the same bias) here.
    const cudaDataType biasType = cudaTypeOf(typeOf(*m.bias));
    const int64_t biasStride = 0;
    setDesc(kMatmulDescBiasDataType, &biasType, sizeof(biasType));
    setDesc(kMatmulDescBiasBatchStride, &biasStride, sizeof(biasStride));
  }

  auto layout = [&](cublasLtMatrixLayout_t &slot, ElementType type, uint64_t layoutRows, uint64_t layoutCols,
                    int64_t stride) {
    check(lt.matrixLayoutCreate(&slot, cudaTypeOf(type), layoutRows, layoutCols, static_cast<int64_t>(layoutRows)),
          "cublasLtMatrixLayoutCreate");
    check(lt.matrixLayoutSetAttribute(slot, kMatrixLayoutBatchCount, &count, sizeof(count)),
          "cublasLtMatrixLayoutSetAttribute");
    check(lt.matrixLayoutSetAttribute(slot, kMatrixLayoutStridedBatchOffset, &stride, sizeof(stride)),
          "cublasLtMatrixLayoutSetAttribute");
  };
  // Row-major r x c storage is the column-major c x r matrix, leading
  // dimension c.
  if (m.transB)
    layout(prepared->layouts[0], abType, k, n, m.strideB);
  else
    layout(prepared->layouts[0], abType, n, k, m.strideB);
  if (m.transA)
    layout(prepared->layouts[1], abType, rows, k, m.strideA);
  else
    layout(prepared->layouts[1], abType, k, rows, m.strideA);
  layout(prepared->layouts[2], dType, n, rows, m.c ? m.strideC : m.strideD);
  layout(prepared->layouts[3], dType, n, rows, m.strideD);

  cublasLtMatmulPreference_t preference = nullptr;
  check(lt.matmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t status = kCublasSuccess;
  {
    const uint64_t workspace = kCublasLtWorkspaceBytes;
    const uint32_t alignments[4] = {std::get<4>(key), std::get<3>(key), std::get<5>(key), std::get<6>(key)};
    const cublasLtMatmulPreferenceAttributes_t alignmentAttributes[4] = {
        kMatmulPrefMinAlignmentABytes, kMatmulPrefMinAlignmentBBytes, kMatmulPrefMinAlignmentCBytes,
        kMatmulPrefMinAlignmentDBytes};
    status = lt.matmulPreferenceSetAttribute(preference, kMatmulPrefMaxWorkspaceBytes, &workspace, sizeof(workspace));
    for (int i = 0; i < 4 && status == kCublasSuccess; ++i)
      status =
          lt.matmulPreferenceSetAttribute(preference, alignmentAttributes[i], &alignments[i], sizeof(alignments[i]));
    if (status == kCublasSuccess)
      status = lt.matmulAlgoGetHeuristic(handle_, prepared->desc, prepared->layouts[0], prepared->layouts[1],
                                         prepared->layouts[2], prepared->layouts[3], preference, 1, &result, &found);
  }
  lt.matmulPreferenceDestroy(preference);
  if (status == kCublasSuccess && found == 0)
    status = kCublasNotSupported;
  check(status, "cublasLtMatmulAlgoGetHeuristic");
  prepared->algo = result.algo;
  prepared->workspaceBytes = result.workspaceSize;
  prepared->alpha = static_cast<float>(m.alpha);
  prepared->beta = static_cast<float>(m.beta);
  return *prepared_.emplace(key, std::move(prepared)).first->second;
}

void CublasLtMatmuls::run(const LaunchStep &step, const gpu::DevicePtr *args, gpu::Stream stream,
                          gpu::Where where) const {
  const KernelDesc &kernel = plan_.kernels()[step.kernel];
  const LibraryMatmul &m = *kernel.libraryOf(step.variant)->matmul;
  const size_t inputs = kernel.inputs.size();
  auto elementBytes = [&](size_t position) {
    const size_t buffer = position < inputs ? kernel.inputs[position] : kernel.outputs[position - inputs];
    return static_cast<uint64_t>(elementSize(plan_.buffers()[buffer].dtype));
  };
  auto alignment = [&](size_t position, int64_t stride) {
    return alignmentOf(args[position], static_cast<uint64_t>(stride) * elementBytes(position));
  };
  const gpu::DevicePtr c = m.c ? args[*m.c] : args[m.d];
  const Key key{step.kernel,
                step.variant,
                step.batch,
                alignment(m.a, m.strideA),
                alignment(m.b, m.strideB),
                m.c ? alignment(*m.c, m.strideC) : alignment(m.d, m.strideD),
                alignment(m.d, m.strideD)};
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = prepared_.find(key);
  const Prepared &call = found != prepared_.end() ? *found->second : prepare(key, m, step, where);
  const CublasLtApi &lt = *api_;
  if (m.bias) {
    // Set before the call, which reads the descriptor when it is enqueued (a
    // captured call keeps what it read).
    const gpu::DevicePtr bias = args[*m.bias];
    lt.check(lt.matmulDescSetAttribute(call.desc, kMatmulDescBiasPointer, &bias, sizeof(bias)),
             "cublasLtMatmulDescSetAttribute", where.str());
  }
  auto pointer = [](gpu::DevicePtr address) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(address)); // NOLINT(performance-no-int-to-ptr)
  };
  const cublasStatus_t status = lt.matmul(
      handle_, call.desc, &call.alpha, pointer(args[m.b]), call.layouts[0], pointer(args[m.a]), call.layouts[1],
      &call.beta, pointer(c), call.layouts[2], pointer(args[m.d]), call.layouts[3], &call.algo,
      call.workspaceBytes ? pointer(workspace_) : nullptr, call.workspaceBytes, static_cast<CUstream>(stream));
  if (status != kCublasSuccess)
    lt.check(status, "cublasLtMatmul", where.str());
}

} // namespace fusec::runtime::cuda
