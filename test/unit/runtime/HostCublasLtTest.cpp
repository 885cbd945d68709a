//===- HostCublasLtTest.cpp - The cuBLASLt double against a reference ------===//
//
// The cuBLASLt double (HostCublasLt.cpp) stands in for the real library in
// every test of the runtime's library variants, so it must compute what
// cuBLASLt computes: these tests drive it through CublasLtApi, as the runtime
// does, on the driver double's memory and streams, and compare each result
// bit for bit (GELU: to rounding) with a column-major reference written here
// from cuBLASLt's documentation. Inputs are small integers, exact in every
// type, so that the order of the sums cannot matter; padding and unused
// elements are NaN, so that a matmul that reads or writes one shows.
//
//===----------------------------------------------------------------------===//

#include "HostCudaDriver.h"

#include "runtime/cuda/CublasLtApi.h"
#include "runtime/cuda/DriverApi.h"
#include "support/HalfFloat.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace fusec::runtime;
using cuda::cublasLtMatmulHeuristicResult_t;
using cuda::cublasStatus_t;
using cuda::cudaDataType;

namespace {

// cublas_api.h's statuses the tests expect, besides kCublasSuccess and
// kCublasNotSupported.
constexpr cublasStatus_t kInvalidValue = 7;
constexpr cublasStatus_t kExecutionFailed = 13;
constexpr cuda::cublasComputeType_t kCompute32F = cuda::kCublasCompute32F;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The double's record, reset (the library the APIs load is this one).
HostCudaState &hostRecord() {
  static HostCudaState *state = [] {
    void *library = dlopen(FUSEC_HOST_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(library);
    auto *accessor = reinterpret_cast<HostCudaState *(*)()>(dlsym(library, "hostCudaState"));
    REQUIRE(accessor);
    return accessor();
  }();
  *state = HostCudaState();
  return *state;
}

uint64_t elementBytes(cudaDataType type) { return type == cuda::kCudaR32F ? 4 : 2; }

/// A value's bits in `type` (rounded to nearest even), as the device holds it.
uint32_t bitsIn(cudaDataType type, float value) {
  if (type == cuda::kCudaR16F)
    return fusec::floatToHalfBits(value);
  if (type == cuda::kCudaR16BF)
    return fusec::floatToBfloat16Bits(value);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::vector<uint8_t> encode(cudaDataType type, const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * elementBytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = bitsIn(type, values[i]);
    std::memcpy(bytes.data() + i * elementBytes(type), &bits, elementBytes(type)); // little-endian
  }
  return bytes;
}

/// A column-major matrix (or a strided batch of them) as cuBLASLt sees it,
/// with its whole buffer: elements no matrix covers are NaN.
struct Matrix {
  cudaDataType type = cuda::kCudaR32F;
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  int64_t stride = 0;
  std::vector<float> values;

  size_t index(int32_t b, uint64_t i, uint64_t j) const { return size_t(b * stride + int64_t(i) + int64_t(j) * ld); }
  float at(int32_t b, uint64_t i, uint64_t j) const { return values[index(b, i, j)]; }
};

/// A matrix whose element (b, i, j) is value(b, i, j).
Matrix matrix(cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld, int32_t batch, int64_t stride,
              const std::function<float(int32_t, uint64_t, uint64_t)> &value) {
  Matrix m{type, rows, cols, ld, batch, stride, {}};
  m.values.assign(size_t((batch - 1) * stride + int64_t(cols - 1) * ld + int64_t(rows)), kNaN);
  for (int32_t b = 0; b < batch; ++b)
    for (uint64_t j = 0; j < cols; ++j)
      for (uint64_t i = 0; i < rows; ++i)
        m.values[m.index(b, i, j)] = value(b, i, j);
  return m;
}

/// Small integers, exact in f16 and bf16, different for every element.
std::function<float(int32_t, uint64_t, uint64_t)> integers(int seed) {
  return [seed](int32_t b, uint64_t i, uint64_t j) {
    return float(int((seed * 7 + b * 5 + int(i) * 3 + int(j) * 11) % 9) - 4);
  };
}

/// D = act(alpha op(A) op(B) + beta C + bias), as the runtime would ask it.
struct Gemm {
  cuda::cublasComputeType_t compute = kCompute32F;
  bool transA = false;
  bool transB = false;
  uint32_t epilogue = cuda::kEpilogueDefault;
  float alpha = 1.0f;
  float beta = 0.0f;
  Matrix a, b, c, d;
  /// C is D's buffer (c describes it; its values are d's).
  bool cIsD = false;
  std::vector<float> bias;
  int64_t biasStride = 0;
  std::optional<int32_t> biasType;
};

bool hasBias(uint32_t epilogue) {
  return epilogue == cuda::kEpilogueBias || epilogue == cuda::kEpilogueReluBias || epilogue == cuda::kEpilogueGeluBias;
}

/// fusec_to_tf32: 10 mantissa bits, to nearest with ties away from zero
/// (std::round), written here without the double's bit tricks.
float toTf32(float x) {
  if (!std::isfinite(x) || x == 0.0f)
    return x;
  int exponent;
  const float mantissa = std::frexp(x, &exponent); // [0.5, 1): 11 significant bits are 2^11 of it
  return std::ldexp(std::round(mantissa * 2048.0f) / 2048.0f, exponent);
}

/// The reference: cuBLASLt's documented matmul, column-major, in double,
/// D's buffer as the library leaves it (padding untouched).
std::vector<float> reference(const Gemm &g) {
  std::vector<float> d = g.d.values;
  const uint64_t m = g.d.rows, n = g.d.cols, k = g.transA ? g.a.rows : g.a.cols;
  const bool tf32 = g.compute == cuda::kCublasCompute32FFastTf32;
  const auto input = [tf32](float x) { return double(tf32 ? toTf32(x) : x); };
  for (int32_t b = 0; b < g.d.batch; ++b) {
    std::vector<float> out(m * n);
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (uint64_t l = 0; l < k; ++l)
          sum +=
              input(g.transA ? g.a.at(b, l, i) : g.a.at(b, i, l)) * input(g.transB ? g.b.at(b, j, l) : g.b.at(b, l, j));
        double value = double(g.alpha) * sum;
        if (g.beta != 0.0f)
          value += double(g.beta) * (g.cIsD ? g.d : g.c).at(b, i, j);
        if (hasBias(g.epilogue))
          value += g.bias[size_t(b * g.biasStride) + i]; // cuBLASLt: one bias per row of D
        if (g.epilogue == cuda::kEpilogueRelu || g.epilogue == cuda::kEpilogueReluBias)
          value = std::max(value, 0.0);
        if (g.epilogue == cuda::kEpilogueGelu || g.epilogue == cuda::kEpilogueGeluBias)
          value = 0.5 * value * (1.0 + std::tanh(0.7978845608028654 * (value + 0.044715 * value * value * value)));
        out[i + j * m] = float(value);
      }
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j)
        d[g.d.index(b, i, j)] = out[i + j * m];
  }
  return d;
}

/// The driver double with a context, a stream and a cuBLASLt handle, loaded
/// as the runtime loads them: both from the one library.
class HostLt {
public:
  HostLt() : record(hostRecord()) {
    check(driver->init(0));
    check(driver->ctxGetCurrent(&previous_));
    check(driver->devicePrimaryCtxRetain(&context_, 0));
    check(driver->ctxSetCurrent(context_));
    check(driver->streamCreate(&stream, cuda::kStreamNonBlocking));
    REQUIRE(lt->create(&handle) == cuda::kCublasSuccess);
  }
  ~HostLt() {
    lt->destroy(handle);
    for (cuda::CUdeviceptr pointer : allocations_)
      driver->memFree(pointer);
    driver->streamDestroy(stream);
    driver->devicePrimaryCtxRelease(0);
    driver->ctxSetCurrent(previous_);
  }
  HostLt(const HostLt &) = delete;
  HostLt &operator=(const HostLt &) = delete;

  void check(cuda::CUresult result) const {
    INFO(driver->describe(result));
    REQUIRE(result == cuda::kCudaSuccess);
  }

  cuda::CUdeviceptr allocate(uint64_t bytes) {
    cuda::CUdeviceptr pointer = 0;
    check(driver->memAlloc(&pointer, bytes));
    allocations_.push_back(pointer);
    return pointer;
  }

  /// Copies `bytes` to new device memory, and waits.
  cuda::CUdeviceptr upload(const std::vector<uint8_t> &bytes) {
    const cuda::CUdeviceptr pointer = allocate(bytes.size());
    check(driver->memcpyHtoDAsync(pointer, bytes.data(), bytes.size(), stream));
    check(driver->streamSynchronize(stream)); // the double copies when the stream runs: `bytes` must live till then
    return pointer;
  }

  /// Waits for the stream, then copies `bytes` back.
  std::vector<uint8_t> download(cuda::CUdeviceptr pointer, size_t bytes) {
    std::vector<uint8_t> host(bytes);
    check(driver->memcpyDtoHAsync(host.data(), pointer, bytes, stream));
    check(driver->streamSynchronize(stream));
    return host;
  }

  std::shared_ptr<const cuda::DriverApi> driver = cuda::DriverApi::load(FUSEC_HOST_CUDA_DRIVER);
  std::shared_ptr<const cuda::CublasLtApi> lt = cuda::CublasLtApi::load(FUSEC_HOST_CUDA_DRIVER);
  HostCudaState &record;
  cuda::CUstream stream = nullptr;
  cuda::cublasLtHandle_t handle = nullptr;

private:
  cuda::CUcontext previous_ = nullptr;
  cuda::CUcontext context_ = nullptr;
  std::vector<cuda::CUdeviceptr> allocations_;
};

/// One matmul set up as the runtime sets it up: descriptors, the heuristic's
/// algorithm, the operands in device memory and a workspace of the size the
/// algorithm asks. Destroys its descriptors when it goes.
class Matmul {
public:
  Matmul(HostLt &host, const Gemm &gemm, uint64_t maxWorkspace = 1 << 20) : host_(host), gemm_(gemm) {
    const auto &lt = *host.lt;
    REQUIRE(lt.matmulDescCreate(&desc_, gemm.compute, cuda::kCudaR32F) == cuda::kCublasSuccess);
    const int32_t transA = gemm.transA ? cuda::kCublasOpT : cuda::kCublasOpN;
    const int32_t transB = gemm.transB ? cuda::kCublasOpT : cuda::kCublasOpN;
    setDesc(cuda::kMatmulDescTransA, &transA, sizeof transA);
    setDesc(cuda::kMatmulDescTransB, &transB, sizeof transB);
    setDesc(cuda::kMatmulDescEpilogue, &gemm.epilogue, sizeof gemm.epilogue);
    a_ = layout(gemm.a);
    b_ = layout(gemm.b);
    c_ = layout(gemm.c);
    d_ = layout(gemm.d);
    REQUIRE(lt.matmulPreferenceCreate(&preference_) == cuda::kCublasSuccess);
    REQUIRE(lt.matmulPreferenceSetAttribute(preference_, cuda::kMatmulPrefMaxWorkspaceBytes, &maxWorkspace,
                                            sizeof maxWorkspace) == cuda::kCublasSuccess);
    // The double's allocations and the 16-bit matrices' strides promise no
    // more than an element's alignment (cuBLASLt assumes 256 unless told).
    const uint32_t alignment = 2;
    for (auto attribute : {cuda::kMatmulPrefMinAlignmentABytes, cuda::kMatmulPrefMinAlignmentBBytes,
                           cuda::kMatmulPrefMinAlignmentCBytes, cuda::kMatmulPrefMinAlignmentDBytes})
      REQUIRE(lt.matmulPreferenceSetAttribute(preference_, attribute, &alignment, sizeof alignment) ==
              cuda::kCublasSuccess);
    // Device memory: C is uploaded only when it is not D.
    aMemory = host.upload(encode(gemm.a.type, gemm.a.values));
    bMemory = host.upload(encode(gemm.b.type, gemm.b.values));
    dMemory = host.upload(encode(gemm.d.type, gemm.d.values));
    cMemory = gemm.cIsD ? dMemory : host.upload(encode(gemm.c.type, gemm.c.values));
    if (!gemm.bias.empty()) {
      const cudaDataType biasType = gemm.biasType.value_or(gemm.d.type);
      biasMemory = host.upload(encode(biasType, gemm.bias));
      const void *pointer = reinterpret_cast<const void *>(biasMemory);
      setDesc(cuda::kMatmulDescBiasPointer, &pointer, sizeof pointer);
      setDesc(cuda::kMatmulDescBiasBatchStride, &gemm.biasStride, sizeof gemm.biasStride);
      if (gemm.biasType)
        setDesc(cuda::kMatmulDescBiasDataType, &*gemm.biasType, sizeof *gemm.biasType);
    }
    heuristic = lt.matmulAlgoGetHeuristic(host.handle, desc_, a_, b_, c_, d_, preference_, 1, &result, &found);
    if (heuristic == cuda::kCublasSuccess && found == 1 && result.workspaceSize > 0)
      workspace = host.allocate(result.workspaceSize);
  }
  ~Matmul() {
    const auto &lt = *host_.lt;
    lt.matmulPreferenceDestroy(preference_);
    for (cuda::cublasLtMatrixLayout_t layout : {a_, b_, c_, d_})
      lt.matrixLayoutDestroy(layout);
    lt.matmulDescDestroy(desc_);
  }
  Matmul(const Matmul &) = delete;
  Matmul &operator=(const Matmul &) = delete;

  /// Queues the matmul (alpha and beta from the Gemm, read now).
  cublasStatus_t enqueue(std::optional<size_t> workspaceBytes = std::nullopt) {
    return host_.lt->matmul(host_.handle, desc_, &gemm_.alpha, pointer(aMemory), a_, pointer(bMemory), b_, &gemm_.beta,
                            pointer(cMemory), c_, pointer(dMemory), d_, &result.algo, pointer(workspace),
                            workspaceBytes.value_or(result.workspaceSize), host_.stream);
  }

  /// D's bits once the stream is done.
  std::vector<uint8_t> d() { return host_.download(dMemory, gemm_.d.values.size() * elementBytes(gemm_.d.type)); }

  cublasStatus_t heuristic = cuda::kCublasSuccess;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cuda::CUdeviceptr aMemory = 0, bMemory = 0, cMemory = 0, dMemory = 0, biasMemory = 0, workspace = 0;

private:
  static void *pointer(cuda::CUdeviceptr address) { return reinterpret_cast<void *>(address); }

  void setDesc(cuda::cublasLtMatmulDescAttributes_t attribute, const void *value, size_t bytes) {
    REQUIRE(host_.lt->matmulDescSetAttribute(desc_, attribute, value, bytes) == cuda::kCublasSuccess);
  }

  cuda::cublasLtMatrixLayout_t layout(const Matrix &m) {
    cuda::cublasLtMatrixLayout_t layout = nullptr;
    const auto &lt = *host_.lt;
    REQUIRE(lt.matrixLayoutCreate(&layout, m.type, m.rows, m.cols, m.ld) == cuda::kCublasSuccess);
    REQUIRE(lt.matrixLayoutSetAttribute(layout, cuda::kMatrixLayoutBatchCount, &m.batch, sizeof m.batch) ==
            cuda::kCublasSuccess);
    REQUIRE(lt.matrixLayoutSetAttribute(layout, cuda::kMatrixLayoutStridedBatchOffset, &m.stride, sizeof m.stride) ==
            cuda::kCublasSuccess);
    return layout;
  }

  HostLt &host_;
  Gemm gemm_;
  cuda::cublasLtMatmulDesc_t desc_ = nullptr;
  cuda::cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr, d_ = nullptr;
  cuda::cublasLtMatmulPreference_t preference_ = nullptr;
};

/// Every element of D's buffer has the reference's bits in D's type; names
/// the first that does not.
void requireResult(const Gemm &gemm, const std::vector<uint8_t> &actual) {
  const std::vector<float> expected = reference(gemm);
  const std::vector<uint8_t> bits = encode(gemm.d.type, expected);
  REQUIRE(actual.size() == bits.size());
  const uint64_t size = elementBytes(gemm.d.type);
  for (size_t e = 0; e < expected.size(); ++e)
    if (std::memcmp(actual.data() + e * size, bits.data() + e * size, size) != 0) {
      uint32_t got = 0;
      std::memcpy(&got, actual.data() + e * size, size);
      INFO("element " << e << " of D's buffer: expected " << expected[e] << " (bits "
                      << bitsIn(gemm.d.type, expected[e]) << "), got bits " << got);
      FAIL("D differs from the reference");
    }
}

/// Runs `gemm` start to end and checks D against the reference.
void runAndCheck(HostLt &host, const Gemm &gemm) {
  Matmul matmul(host, gemm);
  INFO((host.record.cublasLtLastRefusal ? host.record.cublasLtLastRefusal : "no refusal"));
  REQUIRE(matmul.heuristic == cuda::kCublasSuccess);
  REQUIRE(matmul.found == 1);
  REQUIRE(matmul.enqueue() == cuda::kCublasSuccess);
  requireResult(gemm, matmul.d());
}

/// An m x n product of op(A) (m x k) and op(B) (k x n), every matrix with
/// `pad` unused rows, `batch` matrices apart by their size and 3 more.
Gemm product(cudaDataType in, cudaDataType out, uint64_t m, uint64_t n, uint64_t k, bool transA, bool transB,
             int32_t batch = 1, uint64_t pad = 2) {
  const auto make = [&](cudaDataType type, uint64_t rows, uint64_t cols, int seed) {
    const int64_t ld = int64_t(rows + pad);
    return matrix(type, rows, cols, ld, batch, batch > 1 ? ld * int64_t(cols) + 3 : 0, integers(seed));
  };
  Gemm g;
  g.transA = transA;
  g.transB = transB;
  g.a = transA ? make(in, k, m, 1) : make(in, m, k, 1);
  g.b = transB ? make(in, n, k, 2) : make(in, k, n, 2);
  g.c = make(out, m, n, 3);
  g.d = make(out, m, n, 4);
  std::fill(g.d.values.begin(), g.d.values.end(), kNaN); // D's old values are never read
  return g;
}

} // namespace

TEST_CASE("the cuBLASLt double multiplies column-major matrices with transposes and padded leading dimensions",
          "[cublaslt]") {
  HostLt host;
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      INFO("transA " << transA << ", transB " << transB);
      Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, transA, transB);
      gemm.alpha = 2.0f;
      runAndCheck(host, gemm);
    }
  CHECK(host.record.cublasLtMatmuls == 4);
  CHECK(host.record.cublasLtMatmulsRun == 4);
  CHECK(host.record.cublasLtHeuristicQueries == 4);
}

TEST_CASE("the cuBLASLt double runs strided batches with beta C and a bias per row of D under RELU", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 5, 4, true, false, 2);
  gemm.alpha = 0.5f;
  gemm.beta = 2.0f;
  gemm.epilogue = cuda::kEpilogueReluBias;
  gemm.bias = {1, -2, 3, 10, -20, 30}; // m values per batch element
  gemm.biasStride = 3;
  runAndCheck(host, gemm);
}

TEST_CASE("the cuBLASLt double reads no C when beta is 0, so C may be D", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 4, 3, 2, false, true, 2);
  gemm.cIsD = true;
  gemm.c = gemm.d; // the layouts are one; D holds NaN, which beta 0 must not read
  gemm.epilogue = cuda::kEpilogueRelu;
  runAndCheck(host, gemm);

  // In place with beta: C is read before D is written.
  std::fill(gemm.d.values.begin(), gemm.d.values.end(), 1.0f);
  gemm.beta = -1.0f;
  gemm.epilogue = cuda::kEpilogueDefault;
  runAndCheck(host, gemm);
}

TEST_CASE("the cuBLASLt double rounds a 16-bit D to nearest even and reads 16-bit inputs exactly", "[cublaslt]") {
  HostLt host;
  for (cudaDataType type : {cuda::kCudaR16F, cuda::kCudaR16BF}) {
    INFO("type " << type);
    // Sums past 2048 (f16) and 256 (bf16) are not all representable: the
    // odd ones round, ties to even.
    Gemm gemm = product(type, type, 4, 4, 3, false, false);
    gemm.a = matrix(type, 4, 3, 4, 1, 0, [](int32_t, uint64_t i, uint64_t j) { return float(30 + 3 * i + j); });
    gemm.b = matrix(type, 3, 4, 3, 1, 0, [](int32_t, uint64_t i, uint64_t j) { return float(20 + i + 5 * j); });
    gemm.epilogue = cuda::kEpilogueBias;
    gemm.bias = {1, 2, 3, 4};
    runAndCheck(host, gemm);
    gemm.biasType = cuda::kCudaR32F;
    gemm.bias = {0.5f, 1.5f, -0.5f, 2.25f};
    runAndCheck(host, gemm);
    // A 16-bit product into an f32 D: nothing rounds.
    Gemm wide = product(type, cuda::kCudaR32F, 3, 2, 4, true, true);
    runAndCheck(host, wide);
  }
}

TEST_CASE("the cuBLASLt double applies GELU's tanh approximation after the bias", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 2, false, false);
  gemm.alpha = 0.25f;
  gemm.epilogue = cuda::kEpilogueGeluBias;
  gemm.bias = {-1.0f, 0.0f, 0.75f};
  Matmul matmul(host, gemm);
  REQUIRE(matmul.heuristic == cuda::kCublasSuccess);
  REQUIRE(matmul.enqueue() == cuda::kCublasSuccess);
  const std::vector<uint8_t> bytes = matmul.d();
  const std::vector<float> expected = reference(gemm);
  std::vector<float> actual(expected.size());
  std::memcpy(actual.data(), bytes.data(), bytes.size());
  for (size_t e = 0; e < expected.size(); ++e)
    if (std::isnan(expected[e]))
      CHECK(std::isnan(actual[e]));
    else
      CHECK(actual[e] == Approx(expected[e]).epsilon(1e-6).margin(1e-6));
}

TEST_CASE("the cuBLASLt double rounds f32 inputs to TF32 under CUBLAS_COMPUTE_32F_FAST_TF32", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 2, 2, 2, false, false);
  // Half a TF32 unit above 1 (a tie: rounds away from zero), a quarter
  // (rounds down), and three quarters (rounds up).
  const float tie = 1.0f + std::ldexp(1.0f, -11), quarter = 1.0f + std::ldexp(1.0f, -12);
  gemm.a.values = {tie, quarter, kNaN, kNaN, 1.0f + 3 * std::ldexp(1.0f, -12), 3.0f};
  gemm.b.values = {1.0f, 1.0f, kNaN, kNaN, 1.0f, -1.0f};
  for (cuda::cublasComputeType_t compute : {kCompute32F, cuda::kCublasCompute32FFastTf32}) {
    INFO("compute " << compute);
    gemm.compute = compute;
    runAndCheck(host, gemm);
  }
  CHECK(reference(gemm)[0] == 1.0f + std::ldexp(1.0f, -10) + 1.0f + std::ldexp(1.0f, -10));
}

TEST_CASE("cuBLASLt matmuls are queued on the stream and replayed by a captured graph", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 2, 3, 4, false, true);
  Matmul matmul(host, gemm);
  REQUIRE(matmul.heuristic == cuda::kCublasSuccess);
  REQUIRE(matmul.enqueue() == cuda::kCublasSuccess);
  CHECK(host.record.cublasLtMatmuls == 1);
  CHECK(host.record.cublasLtMatmulsRun == 0); // not until the host waits
  requireResult(gemm, matmul.d());
  CHECK(host.record.cublasLtMatmulsRun == 1);

  const auto &driver = *host.driver;
  // D back to NaN: the graph's replays must write it again.
  const std::vector<uint8_t> fresh = encode(gemm.d.type, gemm.d.values);
  host.check(driver.memcpyHtoDAsync(matmul.dMemory, fresh.data(), fresh.size(), host.stream));
  host.check(driver.streamSynchronize(host.stream));
  host.check(driver.streamBeginCapture(host.stream, cuda::kCaptureModeThreadLocal));
  REQUIRE(matmul.enqueue() == cuda::kCublasSuccess);
  cuda::CUgraph graph = nullptr;
  host.check(driver.streamEndCapture(host.stream, &graph));
  cuda::CUgraphExec exec = nullptr;
  host.check(driver.graphInstantiate(&exec, graph, 0));
  CHECK(host.record.cublasLtMatmulsRun == 1);
  host.check(driver.graphLaunch(exec, host.stream));
  host.check(driver.graphLaunch(exec, host.stream));
  requireResult(gemm, matmul.d());
  CHECK(host.record.cublasLtMatmulsRun == 3);
  host.check(driver.graphExecDestroy(exec));
  host.check(driver.graphDestroy(graph));
}

TEST_CASE("the cuBLASLt double refuses what cuBLASLt refuses", "[cublaslt]") {
  HostLt host;
  const auto &lt = *host.lt;

  SECTION("an attribute value of the wrong size") {
    cuda::cublasLtMatmulDesc_t desc = nullptr;
    REQUIRE(lt.matmulDescCreate(&desc, kCompute32F, cuda::kCudaR32F) == cuda::kCublasSuccess);
    const int64_t wide = cuda::kCublasOpT;
    CHECK(lt.matmulDescSetAttribute(desc, cuda::kMatmulDescTransA, &wide, sizeof wide) == kInvalidValue);
    const uint64_t epilogue = cuda::kEpilogueRelu;
    CHECK(lt.matmulDescSetAttribute(desc, cuda::kMatmulDescEpilogue, &epilogue, sizeof epilogue) == kInvalidValue);
    const uint32_t bias = 0;
    CHECK(lt.matmulDescSetAttribute(desc, cuda::kMatmulDescBiasPointer, &bias, sizeof bias) == kInvalidValue);
    cuda::cublasLtMatrixLayout_t layout = nullptr;
    REQUIRE(lt.matrixLayoutCreate(&layout, cuda::kCudaR32F, 4, 4, 4) == cuda::kCublasSuccess);
    const int64_t batch = 2;
    CHECK(lt.matrixLayoutSetAttribute(layout, cuda::kMatrixLayoutBatchCount, &batch, sizeof batch) == kInvalidValue);
    const int32_t stride = 16;
    CHECK(lt.matrixLayoutSetAttribute(layout, cuda::kMatrixLayoutStridedBatchOffset, &stride, sizeof stride) ==
          kInvalidValue);
    cuda::cublasLtMatmulPreference_t preference = nullptr;
    REQUIRE(lt.matmulPreferenceCreate(&preference) == cuda::kCublasSuccess);
    const uint32_t bytes = 1024;
    CHECK(lt.matmulPreferenceSetAttribute(preference, cuda::kMatmulPrefMaxWorkspaceBytes, &bytes, sizeof bytes) ==
          kInvalidValue);
    CHECK(host.record.cublasLtDescriptorsLive == 3);
    CHECK(lt.matmulPreferenceDestroy(preference) == cuda::kCublasSuccess);
    CHECK(lt.matrixLayoutDestroy(layout) == cuda::kCublasSuccess);
    CHECK(lt.matmulDescDestroy(desc) == cuda::kCublasSuccess);
  }

  SECTION("a leading dimension below the rows") {
    cuda::cublasLtMatrixLayout_t layout = nullptr;
    CHECK(lt.matrixLayoutCreate(&layout, cuda::kCudaR32F, 4, 4, 3) == kInvalidValue);
  }

  SECTION("inconsistent shapes, types and batches") {
    Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, false, false);
    Gemm wrongK = gemm;
    wrongK.b = matrix(cuda::kCudaR32F, 6, 4, 6, 1, 0, integers(2));
    CHECK(Matmul(host, wrongK).heuristic == kInvalidValue);
    Gemm wrongTrans = gemm;
    wrongTrans.transA = true; // A is stored m x k: op(A) would be k x m
    CHECK(Matmul(host, wrongTrans).heuristic == kInvalidValue);
    Gemm wrongC = gemm;
    wrongC.c = matrix(cuda::kCudaR32F, 4, 3, 4, 1, 0, integers(3));
    CHECK(Matmul(host, wrongC).heuristic == kInvalidValue);
    Gemm mixed = gemm;
    mixed.d = matrix(cuda::kCudaR16F, 3, 4, 3, 1, 0, integers(4));
    CHECK(Matmul(host, mixed).heuristic == cuda::kCublasNotSupported);
    Gemm narrow = product(cuda::kCudaR32F, cuda::kCudaR16F, 3, 4, 5, false, false);
    CHECK(Matmul(host, narrow).heuristic == cuda::kCublasNotSupported); // f32 inputs make f32 only
    Gemm tf32Half = product(cuda::kCudaR16F, cuda::kCudaR16F, 3, 4, 5, false, false);
    tf32Half.compute = cuda::kCublasCompute32FFastTf32;
    CHECK(Matmul(host, tf32Half).heuristic == cuda::kCublasNotSupported);
    Gemm batches = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, false, false, 2);
    batches.b = matrix(cuda::kCudaR32F, 5, 4, 5, 1, 0, integers(2));
    CHECK(Matmul(host, batches).heuristic == kInvalidValue);
    Gemm auxiliary = gemm;
    auxiliary.epilogue = 130; // CUBLASLT_EPILOGUE_RELU_AUX
    CHECK(Matmul(host, auxiliary).heuristic == cuda::kCublasNotSupported);
    CHECK(host.record.cublasLtHeuristicQueries == 8);
  }

  SECTION("too little workspace, a foreign algorithm, memory outside any allocation") {
    Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, false, false);
    Matmul small(host, gemm, 512);
    CHECK(small.heuristic == cuda::kCublasNotSupported);
    CHECK(small.found == 0);
    Matmul matmul(host, gemm);
    REQUIRE(matmul.heuristic == cuda::kCublasSuccess);
    CHECK(matmul.result.workspaceSize == 1024);
    CHECK(matmul.enqueue(matmul.result.workspaceSize - 1) == kInvalidValue);
    matmul.result.algo.data[0] ^= 1;
    CHECK(matmul.enqueue() == kInvalidValue);
    matmul.result.algo.data[0] ^= 1;
    matmul.dMemory += 4; // one element past the end of D's allocation at its last
    CHECK(matmul.enqueue() == kExecutionFailed);
    matmul.dMemory -= 4;
    CHECK(host.record.cublasLtMatmuls == 0);
    REQUIRE(matmul.enqueue() == cuda::kCublasSuccess);
    CHECK(host.record.cublasLtMatmuls == 1);
  }
}

TEST_CASE("the cuBLASLt double fails as its record says", "[cublaslt]") {
  HostLt host;
  Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, false, false);
  host.record.cublasLtFailure = HostCublasLtFailure::NoAlgorithm;
  {
    Matmul matmul(host, gemm);
    CHECK(matmul.heuristic == cuda::kCublasNotSupported);
    CHECK(matmul.found == 0);
  }
  host.record.cublasLtFailure = HostCublasLtFailure::MatmulFails;
  {
    Matmul matmul(host, gemm);
    REQUIRE(matmul.heuristic == cuda::kCublasSuccess);
    CHECK(matmul.enqueue() == kExecutionFailed);
    CHECK(host.record.cublasLtMatmuls == 0);
    host.check(host.driver->streamSynchronize(host.stream));
    CHECK(host.record.cublasLtMatmulsRun == 0);
  }
  CHECK(host.lt->describe(kExecutionFailed) == "CUBLAS_STATUS_EXECUTION_FAILED (the GPU program failed to execute)");
  CHECK(std::string(host.lt->getStatusName(cuda::kCublasNotSupported)) == "CUBLAS_STATUS_NOT_SUPPORTED");
  CHECK(host.lt->getVersion() == size_t(host.record.cublasLtVersion));
}

TEST_CASE("cuBLASLt handles and descriptors are counted while alive", "[cublaslt]") {
  const HostCudaState *record = nullptr;
  {
    HostLt host;
    record = &host.record;
    CHECK(host.record.cublasLtHandlesLive == 1);
    {
      Gemm gemm = product(cuda::kCudaR32F, cuda::kCudaR32F, 3, 4, 5, false, false);
      Matmul matmul(host, gemm);
      CHECK(host.record.cublasLtDescriptorsLive == 6); // a matmul descriptor, 4 layouts, a preference
    }
    CHECK(host.record.cublasLtDescriptorsLive == 0);
  }
  CHECK(record->cublasLtHandlesLive == 0);
  HostLt host;
  cuda::cublasLtHandle_t second = nullptr;
  REQUIRE(host.lt->create(&second) == cuda::kCublasSuccess);
  CHECK(host.record.cublasLtHandlesLive == 2);
  CHECK(host.lt->destroy(second) == cuda::kCublasSuccess);
  CHECK(host.record.cublasLtHandlesLive == 1);
  CHECK(host.lt->destroy(second) != cuda::kCublasSuccess);
}
