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

// The cost model prices a conv or product on the config
// fuse-select-kernel-configs will compile it with: the compile's precision
// and target, not fp32 on sm_80 templates whatever the compile asks.
TEST_CASE("products are priced at the precision and on the target the compile uses", "[cost]") {
  auto profile = loadDeviceProfile("h200");
  REQUIRE(bool(profile));
  const RooflineCostModel fp32(CostTarget{*profile, 1, fuse::ProductPrecision::Fp32, false});
  const RooflineCostModel tf32(CostTarget{*profile, 1, fuse::ProductPrecision::Tf32, false});
  // One TF32 pass instead of the 3xTF32 split, on the same tile.
  CHECK(productTimeUs(fp32, largeMatMul("f32")) / productTimeUs(tf32, largeMatMul("f32")) == Approx(3.0).epsilon(0.01));
  // f16 operands take their own type whatever the precision.
  CHECK(productTimeUs(tf32, largeMatMul("f16")) == Approx(productTimeUs(fp32, largeMatMul("f16"))));
  // sm_90a: the Hopper GEMM at its own efficiency (both tiles are 128 x 128,
  // and their 1024 blocks fill the waves alike).
  const RooflineCostModel hopper(CostTarget{*profile, 1, fuse::ProductPrecision::Fp32, true});
  CHECK(
      productTimeUs(fp32, largeMatMul("f16")) / productTimeUs(hopper, largeMatMul("f16")) ==
      Approx(profile->efficiencyOf("wgmma_gemm_half") / profile->efficiencyOf("tensor_core_gemm_half")).epsilon(0.05));
  // f32 products have no Hopper template: priced as on sm_90.
  CHECK(productTimeUs(hopper, largeMatMul("f32")) == Approx(productTimeUs(fp32, largeMatMul("f32"))));
}

namespace {

/// A channels-last 3x3 conv (padded, stride 1) of `channels` to 256
/// channels on [batch, size, size] images, f16, inside a superkernel
/// with `config`.
std::string hopperConv(int64_t channels, int64_t size, const std::string &config) {
  const std::string c = std::to_string(channels), hw = std::to_string(size) + "x" + std::to_string(size);
  const std::string in = "tensor<32x" + hw + "x" + c + "xf16>", weight = "tensor<256x3x3x" + c + "xf16>",
                    out = "tensor<32x" + hw + "x256xf16>";
  return "func.func @main(%x: " + in + ", %w: " + weight + ") -> " + out + " {\n  %k = fuse.superkernel \"c\" kind " +
         "\"conv\" (%x, %w) attributes {config = " + config + "} : (" + in + ", " + weight + ") -> " + out +
         " {\n  ^bb0(%a: " + in + ", %b: " + weight +
         "):\n    %y = fuse.conv %a, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = " +
         "array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (" + in + ", " + weight + ") -> " + out +
         "\n    fuse.yield %y : " + out + "\n  }\n  return %k : " + out + "\n}\n";
}

} // namespace

// The Hopper implicit GEMM's blocks are spatial tiles of each image (a
// 14 x 14 output in two tiles of 9 x 14 pixels: 196 of 256 rows at work)
// and its k-tiles 64 channels a tap (32 channels: half of each multiplies
// zeros). The model charges both.
TEST_CASE("Hopper convs are priced on their spatial tiles and 64-channel k-tiles", "[cost]") {
  auto profile = loadDeviceProfile("h200");
  REQUIRE(bool(profile));
  const RooflineCostModel hopper(CostTarget{*profile, 32, fuse::ProductPrecision::Fp32, true});
  const std::string config = "#fuse.config<\"wgmma_gemm\", block = [128, 128, 64], warp = [64, 128], stages = 4, "
                             "mma = \"m64nNk16\", precision = \"f16\", split_k = 1, vector = [8, 8]>";
  auto timeUs = [&](int64_t channels, int64_t size) {
    return computeTimeUs<fuse::ConvOp>(hopper, hopperConv(channels, size, config));
  };
  // The same FLOP per output pixel and channel over 64 channels; per pixel
  // of the image, 16 x 16 fills its 2 tiles exactly, 14 x 14 leaves 60
  // of 256 rows idle.
  const double full = timeUs(256, 16) / (16.0 * 16.0), ragged = timeUs(256, 14) / (14.0 * 14.0);
  CHECK(ragged / full == Approx(256.0 / 196.0).epsilon(0.02));
  // 32 channels cost what 64 would: the k-tile is the same.
  CHECK(timeUs(32, 16) == Approx(timeUs(64, 16)).epsilon(0.02));
}
