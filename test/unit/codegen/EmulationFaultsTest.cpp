//===- EmulationFaultsTest.cpp - Broken kernels the emulation must catch ---===//
//
// Each kernel here has a bug a GPU would punish and a plain host loop would
// not: an out-of-bounds read or write, a misaligned float4, a read of
// __shared__ memory before any write, shared memory carried from one block
// to the next, a dependence on the order of the blocks. The emulation must
// fail the launch or poison the result. The data race (the last case) is
// found only by ThreadSanitizer: scripts/ci/tsan-emulation.sh runs it.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using Catch::Contains;
using fusec::test::EmulatedModule;

namespace {

const char *const kBrokenKernels = R"cuda(
#include "fusec_cuda_emulation.h"

// Reads one element past the end of `in` (n elements) in the last thread.
extern "C" __global__ void read_past_end(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i + 1];
}

// Writes one element past the end of `out`.
extern "C" __global__ void write_past_end(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    out[i] = i < n ? in[i] : 0.0f;
}

// Reads before the start of `in`.
extern "C" __global__ void read_before_start(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i - 1024];
}

// float4 loads one float off their alignment.
extern "C" __global__ void misaligned_float4(const float *in, float *out, int n) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q * 4 + 5 <= n) {
    float4 v = reinterpret_cast<const float4 *>(in + 1)[q];
    out[q] = v.x + v.y + v.z + v.w;
  }
}

// Reads its neighbour's shared slot before anyone wrote it.
extern "C" __global__ void shared_read_before_write(const float *in, float *out, int n) {
  __shared__ float slots[64];
  int t = threadIdx.x;
  float neighbour = slots[(t + 1) % 64];
  __syncthreads();
  slots[t] = in[t];
  out[blockIdx.x * 64 + t] = neighbour;
}

// Keeps a running total in shared memory across blocks, as if it survived.
extern "C" __global__ void shared_across_blocks(const float *in, float *out, int n) {
  __shared__ float total;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    total = 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    total += in[blockIdx.x];
    out[blockIdx.x] = total;
  }
}

// Every thread adds to one element without atomics.
extern "C" __global__ void racy_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[0] += in[i];
}

#define THUNK(name) extern "C" void name##__emulated(void **a) { name((const float *)a[0], (float *)a[1], *(int *)a[2]); }
THUNK(read_past_end)
THUNK(write_past_end)
THUNK(read_before_start)
THUNK(misaligned_float4)
THUNK(shared_read_before_write)
THUNK(shared_across_blocks)
THUNK(racy_sum)
)cuda";

const EmulatedModule &brokenKernels() {
  static const EmulatedModule module = EmulatedModule::compile(kBrokenKernels);
  return module;
}

/// Launches `kernel` on n = 256 floats in and out, with their bounds.
std::vector<float> launch(const std::string &kernel, unsigned blocks, unsigned threads) {
  int n = 256;
  std::vector<float> in(n, 1.0f), out(n, 0.0f);
  brokenKernels().launch(kernel, {blocks}, {threads}, {in.data(), out.data(), &n},
                         {in.size() * sizeof(float), out.size() * sizeof(float)});
  return out;
}

size_t countNaN(const std::vector<float> &values) {
  size_t count = 0;
  for (float value : values)
    count += std::isnan(value);
  return count;
}

} // namespace

TEST_CASE("emulation catches a read past the end of a buffer", "[codegen][emul][faults]") {
  CHECK_THROWS_WITH(launch("read_past_end", 4, 64),
                    Contains("kernel 'read_past_end': argument 0: out-of-bounds access at byte 1024 (0 past the end "
                             "of its 1024)"));
}

TEST_CASE("emulation catches a write past the end of a buffer", "[codegen][emul][faults]") {
  CHECK_THROWS_WITH(launch("write_past_end", 5, 64),
                    Contains("kernel 'write_past_end': argument 1: out-of-bounds write at byte 1024"));
}

TEST_CASE("emulation catches a read before the start of a buffer", "[codegen][emul][faults]") {
  CHECK_THROWS_WITH(launch("read_before_start", 4, 64),
                    Contains("kernel 'read_before_start': argument 0: out-of-bounds") &&
                        Contains("bytes before its start"));
}

TEST_CASE("emulation catches a misaligned float4", "[codegen][emul][faults]") {
  CHECK_THROWS_WITH(launch("misaligned_float4", 1, 32), Contains("misaligned float4 load at ") &&
                                                            Contains("(address % 16 == 4)") &&
                                                            Contains("a GPU would fault"));
}

TEST_CASE("emulation poisons shared memory read before it is written", "[codegen][emul][faults]") {
  const std::vector<float> out = launch("shared_read_before_write", 4, 64);
  CHECK(countNaN(out) == out.size());
}

TEST_CASE("emulation gives every block fresh shared memory, in a shuffled order", "[codegen][emul][faults]") {
  // On a host loop running blocks in order with one static, out[b] would be
  // b + 1; here any block not run right after block 0 starts from NaN.
  const std::vector<float> out = launch("shared_across_blocks", 8, 32);
  CHECK(countNaN({out.begin(), out.begin() + 8}) > 0);
}

// Hidden: only ThreadSanitizer sees this bug (scripts/ci/tsan-emulation.sh
// runs it and requires the report).
TEST_CASE("a data race between the threads of a block", "[.][tsan-race]") { launch("racy_sum", 2, 128); }
