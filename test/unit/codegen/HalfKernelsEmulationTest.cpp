//===- HalfKernelsEmulationTest.cpp - Generated f16/bf16 conv/GEMM kernels -===//
//
// What codegen emits for f16/bf16 convs and products, with every half
// config fusec chooses pinned on them (64x64, 32x64, 64x32, 128x64, 128x128,
// each vector width its shapes allow) and the one fuse-select-kernel-configs
// picks, compiled through the emulation and run on 16-bit buffers between
// guard pages. Plans with f16 tensors do not load in the runtime yet, so the
// reference is computed here: float64 sums of the 16-bit inputs' products
// plus the bias, and the kernel's stored value must be that sum rounded to
// the op's type within the f32 accumulation's bound (1e-6 of sum |a b|):
// between the roundings of reference -/+ the bound.
//
//===----------------------------------------------------------------------===//
#include "EmulatedTensorMaps.h"
#include "EmulationHarness.h"
#include "KernelEmulation.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "config/TileSelection.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "support/HalfFloat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace fusec;

namespace {

bool isBf16 = false;

uint16_t toBits(float value) { return isBf16 ? floatToBfloat16Bits(value) : floatToHalfBits(value); }
float fromBits(uint16_t bits) { return isBf16 ? bfloat16BitsToFloat(bits) : halfBitsToFloat(bits); }

/// Emits the module's one superkernel, with `config` pinned when given, and
/// runs it on `buffers` (inputs, then the output) at `batch`.
void emitAndRun(const std::string &ir, const char *config, std::vector<std::vector<uint16_t>> &buffers, int batch) {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  std::string text = ir;
  const std::string marker = "CONFIG";
  const size_t at = text.find(marker);
  REQUIRE(at != std::string::npos);
  text.replace(at, marker.size(), config ? std::string("attributes {config = ") + config + "}" : "");
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
  INFO((config ? config : "the chosen config") << "\n" << diagnostics.text());
  REQUIRE(module);
  fuse::SuperkernelOp superkernel;
  module->walk([&](fuse::SuperkernelOp op) { superkernel = op; });
  REQUIRE(superkernel);
  if (!config) // the config fuse-select-kernel-configs would choose
    superkernel.getBody().walk([&](mlir::Operation *op) {
      if (llvm::isa<fuse::ConvOp, fuse::GemmOp>(op))
        superkernel.setConfigAttr(fusec::config::chooseKernelConfig(op, {}).toAttr(context.get()));
    });
  auto kernel = codegen::emitKernel(superkernel);
  INFO(diagnostics.text());
  REQUIRE(mlir::succeeded(kernel));
  const bool hopper = config && std::string(config).find("wgmma_gemm") != std::string::npos;
  REQUIRE(kernel->source.find(hopper ? "FusecGemmSm90<" : "FusecGemmHalf<") != std::string::npos);
  auto emulated = test::EmulatedModule::compile(kernel->source, "", {FUSEC_PRELUDE_DIR});
  std::vector<void *> args;
  std::vector<size_t> bytes;
  for (auto &buffer : buffers) {
    args.push_back(buffer.data());
    bytes.push_back(buffer.size() * 2);
  }
  test::EmulatedTensorMaps maps(kernel->launch.tensorMaps, args, batch);
  const auto &launch = kernel->launch;
  // A split-capable kernel runs with the slices the runtime would give it.
  test::SplitScratch scratch(launch, size_t(launch.grid[0].at(batch) * launch.grid[1].at(batch)));
  scratch.appendTo(args, bytes);
  args.push_back(&batch);
  std::vector<uint32_t> arguments = launch.arguments;
  if (!arguments.empty())
    args.push_back(arguments.data());
  maps.appendTo(args);
  emulated.launch(kernel->name,
                  {unsigned(launch.grid[0].at(batch)), unsigned(launch.grid[1].at(batch)), scratch.slices()},
                  {unsigned(launch.block[0]), unsigned(launch.block[1]), unsigned(launch.block[2])}, args, bytes);
  REQUIRE(scratch.countersCleared());
}

std::vector<uint16_t> randomValues(size_t count, std::mt19937 &random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<uint16_t> values(count);
  for (uint16_t &value : values)
    value = toBits(uniform(random));
  return values;
}

/// The stored value lies between the roundings of exact -/+ the f32
/// accumulation's bound.
void checkRounded(double exact, double magnitude, uint16_t stored) {
  const double slack = 1e-6 * magnitude;
  const float low = fromBits(toBits(float(exact - slack))), high = fromBits(toBits(float(exact + slack)));
  const float got = fromBits(stored);
  REQUIRE(std::isfinite(got));
  CHECK(got >= low);
  CHECK(got <= high);
}

struct Conv {
  int c, h, w, co, k, stride, pad;
  /// NHWC input and output, OHWI weight (fuse-convert-to-channels-last).
  bool channelsLast = false;
  int ho() const { return (h + 2 * pad - k) / stride + 1; }
  int wo() const { return (w + 2 * pad - k) / stride + 1; }
};

std::string convIR(const Conv &conv, const char *type) {
  auto t = [&](const std::string &shape) { return "tensor<" + shape + "x" + type + ">"; };
  // [outer, channels, height, width] in the conv's layout.
  auto image = [&](const std::string &outer, int channels, int height, int width) {
    const std::string c = std::to_string(channels), h = std::to_string(height), w = std::to_string(width);
    return t(conv.channelsLast ? outer + "x" + h + "x" + w + "x" + c : outer + "x" + c + "x" + h + "x" + w);
  };
  const std::string x = image("?", conv.c, conv.h, conv.w);
  const std::string w = image(std::to_string(conv.co), conv.c, conv.k, conv.k);
  const std::string b = t(std::to_string(conv.co));
  const std::string y = image("?", conv.co, conv.ho(), conv.wo());
  const std::string s = std::to_string(conv.stride), p = std::to_string(conv.pad);
  return "func.func @main(%x: " + x + ", %w: " + w + ", %b: " + b + ") -> " + y + " {\n" +
         "  %k = fuse.superkernel \"conv\" kind \"conv\" (%x, %w, %b) CONFIG : (" + x + ", " + w + ", " + b + ") -> " +
         y + " {\n  ^bb0(%a0: " + x + ", %a1: " + w + ", %a2: " + b + "):\n" +
         "    %c = fuse.conv %a0, %a1, %a2 {strides = array<i64: " + s + ", " + s + ">, pads = array<i64: " + p + ", " +
         p + ", " + p + ", " + p + ">, dilations = array<i64: 1, 1>, group = 1 : i64" +
         (conv.channelsLast ? ", channels_last = true" : "") + "} : (" + x + ", " + w + ", " + b + ") -> " + y +
         "\n    fuse.yield %c : " + y + "\n  }\n  return %k : " + y + "\n}\n";
}

void runConv(const Conv &conv, const char *config, int batch, unsigned seed) {
  std::mt19937 random(seed);
  const int ho = conv.ho(), wo = conv.wo();
  std::vector<std::vector<uint16_t>> buffers = {randomValues(size_t(batch) * conv.c * conv.h * conv.w, random),
                                                randomValues(size_t(conv.co) * conv.c * conv.k * conv.k, random),
                                                randomValues(conv.co, random),
                                                std::vector<uint16_t>(size_t(batch) * conv.co * ho * wo, 0x7bffu)};
  emitAndRun(convIR(conv, isBf16 ? "bf16" : "f16"), config, buffers, batch);
  const auto &x = buffers[0], &w = buffers[1], &bias = buffers[2], &out = buffers[3];
  for (int n = 0; n < batch; ++n)
    for (int co = 0; co < conv.co; ++co)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow) {
          double exact = fromBits(bias[co]), magnitude = std::fabs(exact);
          for (int c = 0; c < conv.c; ++c)
            for (int i = 0; i < conv.k; ++i)
              for (int j = 0; j < conv.k; ++j) {
                const int ih = oh * conv.stride - conv.pad + i, iw = ow * conv.stride - conv.pad + j;
                if (ih < 0 || ih >= conv.h || iw < 0 || iw >= conv.w)
                  continue;
                const size_t input = conv.channelsLast ? ((size_t(n) * conv.h + ih) * conv.w + iw) * conv.c + c
                                                       : ((size_t(n) * conv.c + c) * conv.h + ih) * conv.w + iw;
                const size_t weight = conv.channelsLast ? ((size_t(co) * conv.k + i) * conv.k + j) * conv.c + c
                                                        : ((size_t(co) * conv.c + c) * conv.k + i) * conv.k + j;
                const double product = double(fromBits(x[input])) * fromBits(w[weight]);
                exact += product;
                magnitude += std::fabs(product);
              }
          INFO((config ? config : "chosen") << " out(" << n << ", " << co << ", " << oh << ", " << ow << ")");
          checkRounded(exact, magnitude,
                       out[conv.channelsLast ? ((size_t(n) * ho + oh) * wo + ow) * conv.co + co
                                             : ((size_t(n) * conv.co + co) * ho + oh) * wo + ow]);
        }
}

/// A [rows * batch, K] x [K, N] (or [N, K] with transB) Gemm with bias C.
struct Product {
  int rows, k, n;
  bool transB;
};

std::string productIR(const Product &p, const char *type) {
  auto t = [&](const std::string &shape) { return "tensor<" + shape + "x" + type + ">"; };
  const std::string a = t("?x" + std::to_string(p.k));
  const std::string b =
      t(p.transB ? std::to_string(p.n) + "x" + std::to_string(p.k) : std::to_string(p.k) + "x" + std::to_string(p.n));
  const std::string c = t(std::to_string(p.n)), y = t("?x" + std::to_string(p.n));
  return "func.func @main(%a: " + a + ", %b: " + b + ", %c: " + c + ") -> " + y + " {\n" +
         "  %k = fuse.superkernel \"gemm\" kind \"gemm\" (%a, %b, %c) CONFIG : (" + a + ", " + b + ", " + c + ") -> " +
         y + " {\n  ^bb0(%a0: " + a + ", %a1: " + b + ", %a2: " + c + "):\n" +
         "    %r = fuse.gemm %a0, %a1, %a2 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = " +
         (p.transB ? "true" : "false") + "} : (" + a + ", " + b + ", " + c + ") -> " + y +
         "\n    fuse.yield %r : " + y + "\n  }\n  return %k : " + y + "\n}\n";
}

void runProduct(const Product &p, const char *config, int batch, unsigned seed) {
  std::mt19937 random(seed);
  const int m = p.rows * batch;
  std::vector<std::vector<uint16_t>> buffers = {randomValues(size_t(m) * p.k, random),
                                                randomValues(size_t(p.k) * p.n, random), randomValues(p.n, random),
                                                std::vector<uint16_t>(size_t(m) * p.n, 0x7bffu)};
  // A's rows are its dynamic dimension: the batch is M.
  emitAndRun(productIR(p, isBf16 ? "bf16" : "f16"), config, buffers, m);
  const auto &a = buffers[0], &b = buffers[1], &bias = buffers[2], &out = buffers[3];
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < p.n; ++col) {
      // Gemm: alpha * A B + beta * C in f32, rounded to its type.
      double exact = fromBits(bias[col]), magnitude = std::fabs(exact);
      for (int kk = 0; kk < p.k; ++kk) {
        const double product = double(fromBits(a[size_t(row) * p.k + kk])) *
                               fromBits(p.transB ? b[size_t(col) * p.k + kk] : b[size_t(kk) * p.n + col]);
        exact += product;
        magnitude += std::fabs(product);
      }
      INFO((config ? config : "chosen") << " C(" << row << ", " << col << ")");
      checkRounded(exact, magnitude, out[size_t(row) * p.n + col]);
    }
}

} // namespace

// Configs are chosen once, by fuse-select-kernel-configs: codegen compiles
// the one the plan was priced and tuned for, and never picks its own.
TEST_CASE("codegen refuses a conv or GEMM superkernel without a config", "[codegen][half]") {
  const Product product{4, 32, 16, false};
  for (const std::string &ir : {convIR(Conv{4, 6, 6, 8, 3, 1, 1}, "f16"), productIR(product, "f16")}) {
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    std::string text = ir;
    text.replace(text.find("CONFIG"), 6, "");
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
    REQUIRE(module);
    fuse::SuperkernelOp superkernel;
    module->walk([&](fuse::SuperkernelOp op) { superkernel = op; });
    REQUIRE(superkernel);
    CHECK(mlir::failed(codegen::emitKernel(superkernel)));
    CHECK_THAT(diagnostics.text(), Catch::Matchers::Contains("has no #fuse.config: run fuse-select-kernel-configs"));
  }
}

TEST_CASE("generated f16/bf16 convolutions on the half template match a float64 reference", "[codegen][emul][half]") {
  for (bool bf16 : {false, true}) {
    isBf16 = bf16;
    const std::string precision = bf16 ? "\"bf16\"" : "\"f16\"";
    auto config = [&](const char *block, const char *warp, int stages, const char *vector) {
      return std::string("#fuse.config<\"tensor_core_conv\", block = [") + block + "], warp = [" + warp +
             "], stages = " + std::to_string(stages) + ", mma = \"m16n8k16\", precision = " + precision +
             ", split_k = 1, vector = [" + vector + "]>";
    };
    // Pointwise over 6x6 (36 pixels: 4-element copies), 40 -> 70 channels.
    const Conv pointwise{40, 6, 6, 70, 1, 1, 0};
    // 3x3 padded, 5 -> 36 channels (K = 45: single-element copies).
    const Conv conv3x3{5, 9, 7, 36, 3, 1, 1};
    // 7x7 stride 2 over 3 channels (K = 147).
    const Conv stem{3, 15, 15, 20, 7, 2, 3};
    unsigned seed = bf16 ? 50 : 0;
    runConv(pointwise, nullptr, 2, ++seed);
    runConv(pointwise, config("64, 64, 32", "32, 32", 4, "8, 4").c_str(), 2, ++seed);
    runConv(pointwise, config("128, 128, 32", "64, 32", 3, "8, 2").c_str(), 3, ++seed);
    runConv(pointwise, config("32, 64, 32", "16, 32", 4, "4, 1").c_str(), 1, ++seed);
    runConv(conv3x3, nullptr, 2, ++seed);
    runConv(conv3x3, config("128, 64, 32", "32, 32", 3, "1, 1").c_str(), 2, ++seed);
    runConv(stem, nullptr, 2, ++seed);
    runConv(stem, config("64, 64, 16", "32, 32", 2, "1, 1").c_str(), 1, ++seed);
    // Channels-last: a tap's channels are one vector (40 channels: 8
    // halves; 12: 4), every window; 5 channels gather single elements.
    const Conv nhwc3x3{40, 9, 7, 36, 3, 2, 1, true};
    const Conv nhwcNarrow{12, 6, 5, 20, 3, 1, 1, true};
    const Conv nhwcOdd{5, 9, 7, 36, 3, 1, 1, true};
    const Conv nhwcStem{3, 15, 15, 20, 7, 2, 3, true};
    runConv(nhwc3x3, nullptr, 2, ++seed);
    runConv(nhwc3x3, config("64, 64, 32", "32, 32", 4, "8, 8").c_str(), 3, ++seed);
    runConv(nhwc3x3, config("128, 128, 32", "64, 32", 3, "8, 8").c_str(), 1, ++seed);
    runConv(nhwc3x3, config("32, 64, 32", "16, 32", 4, "4, 2").c_str(), 2, ++seed);
    runConv(nhwcNarrow, nullptr, 3, ++seed);
    runConv(nhwcNarrow, config("64, 64, 16", "32, 32", 2, "4, 4").c_str(), 2, ++seed);
    runConv(nhwcOdd, nullptr, 2, ++seed);
    runConv(nhwcStem, config("64, 64, 16", "32, 32", 2, "1, 1").c_str(), 2, ++seed);
  }
}

TEST_CASE("generated f16/bf16 Gemms on the half template match a float64 reference", "[codegen][emul][half]") {
  for (bool bf16 : {false, true}) {
    isBf16 = bf16;
    const std::string precision = bf16 ? "\"bf16\"" : "\"f16\"";
    auto config = [&](const char *block, const char *warp, int stages, const char *vector) {
      return std::string("#fuse.config<\"tensor_core_gemm\", block = [") + block + "], warp = [" + warp +
             "], stages = " + std::to_string(stages) + ", mma = \"m16n8k16\", precision = " + precision +
             ", split_k = 1, vector = [" + vector + "]>";
    };
    unsigned seed = bf16 ? 150 : 100;
    for (bool transB : {false, true}) {
      const Product wide{37, 72, 70, transB}, narrow{5, 53, 10, transB};
      runProduct(wide, nullptr, 2, ++seed);
      runProduct(wide, config("64, 64, 32", "32, 32", 4, "8, 2").c_str(), 2, ++seed);
      runProduct(wide, config("128, 64, 32", "32, 32", 3, "4, 2").c_str(), 3, ++seed);
      runProduct(wide, config("128, 128, 32", "64, 32", 3, "8, 2").c_str(), 2, ++seed);
      runProduct(narrow, nullptr, 3, ++seed);
      runProduct(narrow, config("64, 32, 32", "32, 16", 4, "1, 1").c_str(), 3, ++seed);
    }
  }
}

TEST_CASE("generated f16/bf16 Gemms on the Hopper template match a float64 reference", "[codegen][emul][half][sm90]") {
  // Ragged M, N and K tails, rows at batch 2 and 3, a bias epilogue.
  for (bool bf16 : {false, true}) {
    isBf16 = bf16;
    const std::string precision = bf16 ? "\"bf16\"" : "\"f16\"";
    auto config = [&](int blockM, int blockN, int stages) {
      return "#fuse.config<\"wgmma_gemm\", block = [" + std::to_string(blockM) + ", " + std::to_string(blockN) +
             ", 64], warp = [64, " + std::to_string(blockN) + "], stages = " + std::to_string(stages) +
             ", mma = \"m64nNk16\", precision = " + precision + ", split_k = 1, vector = [8, 8]>";
    };
    unsigned seed = bf16 ? 250 : 200;
    for (bool transB : {true, false}) { // B as N x K (K-major) and as K x N (N-major)
      const Product wide{37, 136, transB ? 70 : 72, transB}, narrow{5, 56, transB ? 10 : 16, transB};
      runProduct(wide, config(128, 128, 4).c_str(), 2, ++seed);
      runProduct(wide, config(64, 64, 2).c_str(), 3, ++seed);
      runProduct(narrow, config(128, 64, 3).c_str(), 3, ++seed);
    }
  }
}
