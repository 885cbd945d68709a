//===- EmulationTest.cpp - Hand-written CUDA kernels under emulation ------===//
//
// The codegen tests trust the emulation to run kernels as a GPU would; these
// kernels use each CUDA feature the code generator may emit, and check the
// results against values computed here.
//
//===----------------------------------------------------------------------===//

#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <utility>

using namespace fusec::test;
using Catch::Contains;

namespace {

/// Compiles `source` with a stand-in for codegen's fusec_cuda_prelude.h,
/// which under emulation first of all includes the emulation header.
EmulatedModule compileKernels(const std::string &source) {
  ScratchDir preludeDir;
  std::ofstream(preludeDir.file("fusec_cuda_prelude.h")) << "#include \"fusec_cuda_emulation.h\"\n";
  return EmulatedModule::compile(source, "", {preludeDir.path()});
}

std::vector<float> iota(size_t count, float start = 0.0f) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = start + static_cast<float>(i);
  return values;
}

} // namespace

TEST_CASE("emulated grid-stride kernel covers every element despite early "
          "returns") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void affine(const float *__restrict__ in0,
                                  float *__restrict__ out0, int batch) {
  const int n = batch * 5;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (first >= n)
    return;
  for (int i = first; i < n; i += blockDim.x * gridDim.x)
    out0[i] = 2.0f * __ldg(in0 + i) + 1.0f;
}

#ifdef FUSEC_EMULATION
extern "C" void affine__emulated(void **args) {
  affine(static_cast<const float *>(args[0]), static_cast<float *>(args[1]),
         *static_cast<int *>(args[2]));
}
#endif
)cuda");

  // 3 blocks of 64 threads: 505 elements take each thread several strides;
  // 20 leave most threads out of range.
  for (int batch : {101, 20}) {
    INFO("batch " << batch);
    std::vector<float> in = iota(batch * 5);
    std::vector<float> out(in.size(), -1.0f);
    module.launch("affine", {3}, {64}, {in.data(), out.data(), &batch});
    for (size_t i = 0; i < in.size(); ++i)
      REQUIRE(out[i] == 2.0f * in[i] + 1.0f);
  }
}

TEST_CASE("emulated math builtins match the host's") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void builtins(const float *__restrict__ in0,
                                    float *__restrict__ out0, int batch) {
  const float x = __ldg(in0);
  float *out = out0;
  *out++ = expf(x);
  *out++ = logf(x);
  *out++ = sqrtf(x);
  *out++ = rsqrtf(x);
  *out++ = tanhf(x);
  *out++ = erff(x);
  *out++ = fabsf(-x);
  *out++ = fmaxf(x, 0.5f);
  *out++ = fminf(x, 0.5f);
  *out++ = powf(x, 3.0f);
  *out++ = floorf(3.0f * x);
  *out++ = ceilf(3.0f * x);
  *out++ = __expf(x);
  *out++ = __fdividef(x, 4.0f);
  *out++ = fmaf(x, 2.0f, 1.0f);
  *out++ = fmaxf(-INFINITY, x);
  *out++ = __int_as_float(__float_as_int(x) + 1);
  *out++ = min(batch, 2);
  *out++ = max(batch, 2);
#pragma unroll
  for (int i = 0; i < 2; ++i)
    *out++ = i * x;
}

#ifdef FUSEC_EMULATION
extern "C" void builtins__emulated(void **args) {
  builtins(static_cast<const float *>(args[0]), static_cast<float *>(args[1]),
           *static_cast<int *>(args[2]));
}
#endif
)cuda");

  float x = 0.75f;
  int batch = 7;
  const std::vector<std::pair<const char *, float>> expected = {
      {"expf", std::exp(x)},
      {"logf", std::log(x)},
      {"sqrtf", std::sqrt(x)},
      {"rsqrtf", 1 / std::sqrt(x)},
      {"tanhf", std::tanh(x)},
      {"erff", std::erf(x)},
      {"fabsf", x},
      {"fmaxf", x},
      {"fminf", 0.5f},
      {"powf", x * x * x},
      {"floorf", 2.0f},
      {"ceilf", 3.0f},
      {"__expf", std::exp(x)},
      {"__fdividef", x / 4},
      {"fmaf", 2 * x + 1},
      {"INFINITY", x},
      {"__int_as_float", std::nextafter(x, INFINITY)},
      {"min", 2.0f},
      {"max", 7.0f},
      {"#pragma unroll", 0.0f},
      {"#pragma unroll", x},
  };
  std::vector<float> out(expected.size(), NAN);
  module.launch("builtins", {1}, {1}, {&x, out.data(), &batch});
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(expected[i].first);
    CHECK(out[i] == Approx(expected[i].second).epsilon(1e-6));
  }
}

TEST_CASE("emulated block reduction through __shared__ memory and "
          "__syncthreads") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

// One block per row of `batch` values; blockDim.x is a power of two.
extern "C" __global__ void row_sum(const float *__restrict__ in0,
                                   float *__restrict__ out0, int batch) {
  __shared__ float partial[1024];
  const unsigned tid = threadIdx.x;
  const float *row = in0 + blockIdx.x * batch;
  float sum = 0.0f;
  for (int i = tid; i < batch; i += blockDim.x)
    sum += row[i];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    out0[blockIdx.x] = partial[0];
}

#ifdef FUSEC_EMULATION
extern "C" void row_sum__emulated(void **args) {
  row_sum(static_cast<const float *>(args[0]), static_cast<float *>(args[1]),
          *static_cast<int *>(args[2]));
}
#endif
)cuda");

  // Small integers keep every partial sum exact, whatever the order.
  const unsigned rows = 5;
  int batch = 3000;
  std::vector<float> in(rows * batch);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(static_cast<int>(i % 17) - 8);
  for (unsigned threads : {32u, 256u, 1024u}) {
    INFO(threads << " threads per block");
    std::vector<float> out(rows, NAN);
    module.launch("row_sum", {rows}, {threads}, {in.data(), out.data(), &batch});
    for (unsigned r = 0; r < rows; ++r) {
      float expected = 0.0f;
      for (int i = 0; i < batch; ++i)
        expected += in[r * batch + i];
      CHECK(out[r] == expected);
    }
  }
}

TEST_CASE("emulated warp shuffles reduce within each warp") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void warp_reduce(const float *__restrict__ in0,
                                       float *__restrict__ out0,
                                       float *__restrict__ out1,
                                       float *__restrict__ out2, int batch) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float value = in0[i];
  float sum = value;
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (threadIdx.x % 32 == 0)
    out0[i / 32] = sum;
  float largest = value;
  for (int mask = 16; mask > 0; mask /= 2)
    largest = fmaxf(largest, __shfl_xor_sync(0xffffffff, largest, mask));
  out1[i] = largest;
  out2[i] = __shfl_down_sync(0xffffffff, value, 20);
}

#ifdef FUSEC_EMULATION
extern "C" void warp_reduce__emulated(void **args) {
  warp_reduce(static_cast<const float *>(args[0]),
              static_cast<float *>(args[1]), static_cast<float *>(args[2]),
              static_cast<float *>(args[3]), *static_cast<int *>(args[4]));
}
#endif
)cuda");

  // 2 blocks of 3 warps; values that peak in the middle of each warp.
  const size_t threads = 2 * 96;
  std::vector<float> in(threads);
  for (size_t i = 0; i < threads; ++i)
    in[i] = static_cast<float>((i % 32) * (31 - i % 32) + i / 32);
  std::vector<float> sums(threads / 32, NAN), largest(threads, NAN), shifted(threads, NAN);
  int batch = 0;
  module.launch("warp_reduce", {2}, {96}, {in.data(), sums.data(), largest.data(), shifted.data(), &batch});

  for (size_t warp = 0; warp < threads / 32; ++warp) {
    INFO("warp " << warp);
    float sum = 0.0f, warpMax = -INFINITY;
    for (size_t lane = 0; lane < 32; ++lane) {
      sum += in[warp * 32 + lane];
      warpMax = std::max(warpMax, in[warp * 32 + lane]);
    }
    CHECK(sums[warp] == sum);
    for (size_t lane = 0; lane < 32; ++lane) {
      INFO("lane " << lane);
      const size_t i = warp * 32 + lane;
      CHECK(largest[i] == warpMax);
      // Sources past the end of the warp leave a lane its own value.
      CHECK(shifted[i] == (lane + 20 < 32 ? in[i + 20] : in[i]));
    }
  }
}

TEST_CASE("emulated tiled matmul with 16x16 blocks over a 2-D grid") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

#define TILE 16
#define K 29
#define N 45

// c[batch x N] = a[batch x K] * b[K x N]
extern "C" __global__ void matmul(const float *__restrict__ in0,
                                  const float *__restrict__ in1,
                                  float *__restrict__ out0, int batch) {
  __shared__ float a[TILE][TILE + 1];
  __shared__ float b[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    a[ty][tx] = row < batch && k0 + tx < K ? in0[row * K + k0 + tx] : 0.0f;
    b[ty][tx] = k0 + ty < K && col < N ? in1[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += a[ty][k] * b[k][tx];
    __syncthreads();
  }
  if (row < batch && col < N)
    out0[row * N + col] = acc;
}

#ifdef FUSEC_EMULATION
extern "C" void matmul__emulated(void **args) {
  matmul(static_cast<const float *>(args[0]),
         static_cast<const float *>(args[1]), static_cast<float *>(args[2]),
         *static_cast<int *>(args[3]));
}
#endif
)cuda");

  const int m = 37, k = 29, n = 45;
  // Multiples of 1/4 of small size: products and sums stay exact.
  std::vector<float> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 4;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 4;
  std::vector<float> c(m * n, NAN);
  int batch = m;
  module.launch("matmul", {(n + 15) / 16, (m + 15) / 16}, {16, 16}, {a.data(), b.data(), c.data(), &batch});

  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float expected = 0.0f;
      for (int p = 0; p < k; ++p)
        expected += a[i * k + p] * b[p * n + j];
      INFO("c[" << i << "][" << j << "]");
      REQUIRE(c[i * n + j] == expected);
    }
}

TEST_CASE("emulated launch runs every thread of every block once, with its "
          "indices") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void indices(float *__restrict__ out0, int batch) {
  const unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  float *out = out0 +
      batch * (block * blockDim.x * blockDim.y * blockDim.z + thread);
  const unsigned values[] = {blockIdx.x,  blockIdx.y,  blockIdx.z,
                             threadIdx.x, threadIdx.y, threadIdx.z,
                             gridDim.x,   gridDim.y,   gridDim.z,
                             blockDim.x,  blockDim.y,  blockDim.z};
  for (int i = 0; i < batch; ++i)
    out[i] += values[i];
}

#ifdef FUSEC_EMULATION
extern "C" void indices__emulated(void **args) {
  indices(static_cast<float *>(args[0]), *static_cast<int *>(args[1]));
}
#endif
)cuda");

  const Dim3 grid{3, 2, 2}, block{5, 3, 2};
  int valuesPerThread = 12;
  std::vector<float> out(12 * 30 * 12, 0.0f);
  module.launch("indices", grid, block, {out.data(), &valuesPerThread});

  const float *values = out.data();
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              const std::vector<float> expected = {float(bx),     float(by),      float(bz),      float(tx),
                                                   float(ty),     float(tz),      float(grid.x),  float(grid.y),
                                                   float(grid.z), float(block.x), float(block.y), float(block.z)};
              INFO("block " << bx << "," << by << "," << bz << " thread " << tx << "," << ty << "," << tz);
              REQUIRE(std::vector<float>(values, values + 12) == expected);
              values += 12;
            }
}

TEST_CASE("emulated threads that return early do not hold back a later "
          "__syncthreads") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

// Reverses the first `batch` values through shared memory and adds each
// lane's neighbour; threads past `batch` have left before the barrier. Each
// block writes its own row of the output.
extern "C" __global__ void reverse_prefix(const float *__restrict__ in0,
                                          float *__restrict__ out0,
                                          int batch) {
  __shared__ float values[128];
  const int t = threadIdx.x;
  if (t >= batch)
    return;
  values[t] = in0[t];
  __syncthreads();
  out0[blockIdx.x * 128 + t] = values[batch - 1 - t] + __shfl_xor_sync(0xffffffff, in0[t], 1);
  __syncthreads();
}

#ifdef FUSEC_EMULATION
extern "C" void reverse_prefix__emulated(void **args) {
  reverse_prefix(static_cast<const float *>(args[0]),
                 static_cast<float *>(args[1]), *static_cast<int *>(args[2]));
}
#endif
)cuda");

  // Even counts, so each shuffle partner is still running.
  std::vector<float> in = iota(128, 1.0f);
  for (int batch : {0, 2, 44, 128}) {
    INFO("batch " << batch);
    std::vector<float> out(4 * 128, -1.0f);
    module.launch("reverse_prefix", {4}, {128}, {in.data(), out.data(), &batch});
    for (int t = 0; t < 4 * 128; ++t)
      CHECK(out[t] == (t % 128 < batch ? in[batch - 1 - t % 128] + in[(t % 128) ^ 1] : -1.0f));
  }
}

TEST_CASE("emulation surfaces the compiler's message for invalid source") {
  ScratchDir workDir;
  const std::string source = "#include \"fusec_cuda_emulation.h\"\n"
                             "extern \"C\" __global__ void broken() {\n"
                             "  undeclared_value = 1;\n"
                             "}\n";
  CHECK_THROWS_WITH(EmulatedModule::compile(source, workDir.path()),
                    Contains(workDir.file("kernels.cu")) && Contains("undeclared_value"));
  // The source stays behind in a given work directory.
  std::ifstream kept(workDir.file("kernels.cu"));
  CHECK(std::string(std::istreambuf_iterator<char>(kept), {}) == source);
}

TEST_CASE("emulated launches reject unknown kernels and oversized blocks") {
  const EmulatedModule module = compileKernels(R"cuda(
#include "fusec_cuda_prelude.h"

extern "C" __global__ void noop(int batch) {}

#ifdef FUSEC_EMULATION
extern "C" void noop__emulated(void **args) { noop(*static_cast<int *>(args[0])); }
#endif
)cuda");

  int batch = 1;
  CHECK_THROWS_WITH(module.launch("missing", {1}, {1}, {&batch}), Contains("no thunk 'missing__emulated'"));
  CHECK_THROWS_WITH(module.launch("noop", {1}, {1025}, {&batch}), Contains("at most 1024 threads"));
  CHECK_THROWS_WITH(module.launch("noop", {1}, {32, 32, 2}, {&batch}), Contains("at most 1024 threads"));
  CHECK_THROWS_WITH(module.launch("noop", {1, 0}, {1}, {&batch}), Contains("grid dimensions"));
  CHECK_NOTHROW(module.launch("noop", {2, 2, 2}, {32, 32}, {&batch}));
}
