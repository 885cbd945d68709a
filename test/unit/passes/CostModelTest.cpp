//===- CostModelTest.cpp - Template times for f32 and f16/bf16 products ---===//
//
// The roofline model prices a conv or product on its template: f32 operands
// at the TF32 tensor peak divided by the 3xTF32 passes, f16/bf16 operands
// (the half template) at the profile's f16 tensor peak, each at its own
// template efficiency; attention on its main loop (tensor cores for 16-bit
// heads of whole k16 steps, SIMT otherwise).
//
//===----------------------------------------------------------------------===//
#include "TestIR.h"

#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "passes/cost/CostModel.h"

#include <string>

using namespace fusec;

namespace {

std::string largeMatMul(const std::string &type) {
  const std::string tensor = "tensor<4096x4096x" + type + ">";
  return "func.func @main(%a: " + tensor + ", %b: " + tensor + ") -> " + tensor + " {\n  %c = fuse.matmul %a, %b : (" +
         tensor + ", " + tensor + ") -> " + tensor + "\n  return %c : " + tensor + "\n}\n";
}

/// The compute time the model gives the one `OpType` op of `ir` as a
/// kernel of its own, launch cost and bandwidth aside (the ops measured
/// here are compute-bound).
template <typename OpType> double computeTimeUs(const RooflineCostModel &model, const std::string &ir) {
  auto context = createContext();
  auto module = test::parseIR(*context, ir.c_str());
  mlir::Operation *core = nullptr;
  test::mainFunc(*module).walk([&](OpType op) { core = op; });
  REQUIRE(core);
  const CostEstimate cost = model.estimateKernel({core}, [&](mlir::Operation *op) { return op == core; });
  const double bandwidthUs = cost.bytes() / (model.getProfile().hbmBandwidthGBps * 1e3);
  const double computeUs = cost.timeUs - model.getProfile().graphLaunchOverheadUs;
  REQUIRE(computeUs > 2 * bandwidthUs);
  return computeUs;
}

/// A 4096^3 product's.
double productTimeUs(const RooflineCostModel &model, const std::string &ir) {
  return computeTimeUs<fuse::MatMulOp>(model, ir);
}

} // namespace

TEST_CASE("f16 and bf16 products are priced at the f16 tensor peak, f32 ones at TF32 / 3", "[cost]") {
  auto profile = loadDeviceProfile("h200");
  REQUIRE(bool(profile));
  CHECK(profile->peakHalfTensorTflops == 989);
  const RooflineCostModel model(*profile);
  const double f32 = productTimeUs(model, largeMatMul("f32"));
  const double f16 = productTimeUs(model, largeMatMul("f16"));
  const double bf16 = productTimeUs(model, largeMatMul("bf16"));
  // Both choose 128x128 tiles of the same shared memory: the same waves.
  const double expected = (profile->peakHalfTensorTflops * profile->efficiencyOf("tensor_core_gemm_half")) /
                          (profile->peakTensorTflops / 3 * profile->efficiencyOf("tensor_core_gemm"));
  INFO("f32 " << f32 << " us, f16 " << f16 << " us, bf16 " << bf16 << " us, expected ratio " << expected);
  CHECK(f32 / f16 == Approx(expected).epsilon(0.01));
  CHECK(bf16 == Approx(f16));
}

TEST_CASE("a profile without peak_f16_tensor_tflops gets twice its TF32 peak", "[cost]") {
  const std::string base = R"({"name": "X", "arch": "sm_80", "hbm_bandwidth_gbps": 1000, "peak_fp32_tflops": 10,
      "peak_tensor_tflops": 100, "launch_overhead_us": 1, "graph_launch_overhead_us": 1, "sm_count": 10,
      "shared_memory_per_block_kb": 100, "registers_per_thread": 255, "l2_cache_mb": 10)";
  auto implicit = parseDeviceProfile(base + "}", "implicit");
  REQUIRE(bool(implicit));
  CHECK(implicit->peakHalfTensorTflops == 200);
  auto given = parseDeviceProfile(base + R"(, "peak_f16_tensor_tflops": 150})", "given");
  REQUIRE(bool(given));
  CHECK(given->peakHalfTensorTflops == 150);
  auto bad = parseDeviceProfile(base + R"(, "peak_f16_tensor_tflops": -1})", "bad");
  REQUIRE(!bad);
  CHECK(llvm::toString(bad.takeError()).find("'peak_f16_tensor_tflops' must be positive") != std::string::npos);
}

namespace {

/// The compute time the model gives one fuse.attention of 16 heads of S =
/// 2048, head dimension `headDim`, of `type` (compute-bound).
double attentionTimeUs(const RooflineCostModel &model, const std::string &type, int64_t headDim) {
  const std::string tensor = "tensor<16x2048x" + std::to_string(headDim) + "x" + type + ">";
  const std::string ir = "func.func @main(%q: " + tensor + ", %k: " + tensor + ", %v: " + tensor + ") -> " + tensor +
                         " {\n  %o = fuse.attention %q, %k, %v {scale = 0.125 : f32, causal = false} : (" + tensor +
                         ", " + tensor + ", " + tensor + ") -> " + tensor + "\n  return %o : " + tensor + "\n}\n";
  return computeTimeUs<fuse::AttentionOp>(model, ir);
}

} // namespace

TEST_CASE("attention is priced on its main loop: the tensor cores for heads of whole k steps", "[cost]") {
  auto profile = loadDeviceProfile("h200");
  REQUIRE(bool(profile));
  const RooflineCostModel model(*profile);
  const double f32 = attentionTimeUs(model, "f32", 64), f16 = attentionTimeUs(model, "f16", 64);
  const double bf16 = attentionTimeUs(model, "bf16", 64), odd = attentionTimeUs(model, "f16", 72);
  const double oddF32 = attentionTimeUs(model, "f32", 60);
  const double halfRate = profile->peakHalfTensorTflops * profile->efficiencyOf("tensor_core_attention_half");
  // f32 heads: 3xTF32, three TF32 products per one.
  const double tf32Rate = profile->peakTensorTflops / 3 * profile->efficiencyOf("tensor_core_attention");
  const double simtRate = profile->peakFp32Tflops * profile->efficiencyOf("simt_attention");
  INFO("f32 " << f32 << " us, f16 " << f16 << " us, bf16 " << bf16 << " us, f16 D = 72: " << odd
              << " us, f32 D = 60: " << oddF32 << " us");
  CHECK(f32 / f16 == Approx(halfRate / tf32Rate).epsilon(0.01));
  CHECK(bf16 == Approx(f16));
  // D = 72 is not whole k16 steps, D = 60 not whole k8 steps: the SIMT loop,
  // at the f32 rate (its 16-row blocks fill the GPU as the 64-row ones do).
  CHECK(odd / f16 == Approx(halfRate / simtRate * (2.0 * 144 + 5) / (2.0 * 128 + 5)).epsilon(0.01));
  CHECK(oddF32 / f32 == Approx(tf32Rate / simtRate * (2.0 * 120 + 5) / (2.0 * 128 + 5)).epsilon(0.01));
}

// Occupancy: what limits the blocks an SM holds (sm_80/sm_90: 2048
// threads, 32 blocks, 64K registers allocated per warp in units of 256).
TEST_CASE("blocks per SM count registers as well as threads and shared memory", "[cost]") {
  const int64_t shared = int64_t{227} * 1024;
  // 256 threads: 8 by threads alone; 64 registers leave 4, 138 leave 1
  // (138 rounds to 144 per thread, 4608 per warp, 14 warps).
  CHECK(fuse::blocksPerSm(256, 32, 0, shared) == 8);
  CHECK(fuse::blocksPerSm(256, 64, 0, shared) == 4);
  CHECK(fuse::blocksPerSm(256, 128, 0, shared) == 2);
  CHECK(fuse::blocksPerSm(256, 138, 0, shared) == 1);
  // 128 threads, 96 registers: 5 (21 warps of 3072 registers, 4 each).
  CHECK(fuse::blocksPerSm(128, 96, 0, shared) == 5);
  // Shared memory and the 32-block cap.
  CHECK(fuse::blocksPerSm(128, 32, 100 * 1024, shared) == 2);
  CHECK(fuse::blocksPerSm(32, 16, 0, shared) == 32);
}

TEST_CASE("the wave model gives a 128x128 3xTF32 tile one block per SM, by its registers", "[cost]") {
  fuse::KernelConfig config;
  config.kind = fuse::KernelTemplate::TensorCoreGemm;
  config.blockM = 128, config.blockN = 128, config.blockK = 16;
  config.warpM = 64, config.warpN = 32, config.stages = 3, config.passes = 3;
  config.aVector = config.bVector = 4;
  REQUIRE(config.threads() == 256);
  // 4 x 4 m16n8 accumulators (64 floats), 3xTF32 fragments (48), addresses.
  CHECK(config.estimatedRegisters() >= 128);
  const int64_t sharedPerSm = int64_t{227} * 1024;
  // 68 KB of shared memory (the pipeline's 55.5 KB, then the staged output
  // tile) alone would let 3 blocks share an SM, and its threads 8; its
  // registers leave room for one: 132 blocks are one full wave.
  REQUIRE(config.sharedBytes(false) == 128 * 136 * 4);
  REQUIRE(sharedPerSm / config.sharedBytes(false) >= 3);
  CHECK(fuse::blocksPerSm(config.threads(), config.estimatedRegisters(), config.sharedBytes(false), sharedPerSm) == 1);
  CHECK(fuse::waveUtilization(config, 132, 132, sharedPerSm) == Approx(1.0));
  // The 64x64 tile (4 warps of 32x32): 2 x 4 accumulators, fewer
  // registers, more blocks per SM.
  fuse::KernelConfig small = config;
  small.blockM = small.blockN = 64, small.warpM = small.warpN = 32, small.stages = 4;
  CHECK(small.estimatedRegisters() < 128);
  CHECK(fuse::blocksPerSm(small.threads(), small.estimatedRegisters(), small.sharedBytes(false), sharedPerSm) >= 3);
}
