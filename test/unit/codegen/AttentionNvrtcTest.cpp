//===- AttentionNvrtcTest.cpp - The attention kernel compiles without spills ===//
//
// fuse.attention at the head dims the pass accepts (up to 128), f32, f16 and
// bf16, with a mask and causal, compiles with NVRTC for sm_80 and sm_90
// without warnings or register spills. The SIMT loop (f32 heads that are not
// whole k8 steps) stays in the 48 KiB of static shared memory a block may
// have and reads Q, K and the probabilities as float4; the f16/bf16 loop has
// mma.m16n8k16, ldmatrix (.trans for V) and cp.async in its PTX and no 64-bit
// division, with dynamic shared memory above 48 KiB; the f32 loop has
// mma.m16n8k8 tf32 with its operands split by cvt.rna.tf32, ldmatrix and
// cp.async, in dynamic shared memory. Both split over the keys the
// same way. Prints the registers ptxas reports (docs/codegen.md quotes
// them).
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"

#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Driver.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "test/unit/TestSkip.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <regex>

using namespace fusec;

namespace {

/// The attention superkernel of [?, 4, 100, D] x [?, 4, 130, D] heads, with a
/// [100, 130] mask when `masked`, split over the keys into up to `split`
/// slices (1: unsplit).
codegen::GeneratedKernel emitAttention(mlir::MLIRContext &context, int64_t headDim, const std::string &type,
                                       bool masked, bool causal, int64_t split = 1) {
  const std::string d = std::to_string(headDim);
  const std::string q = "tensor<?x4x100x" + d + "x" + type + ">", k = "tensor<?x4x130x" + d + "x" + type + ">";
  const std::string m = "tensor<100x130x" + type + ">";
  const std::string ir =
      "func.func @main(%q: " + q + ", %k: " + k + ", %v: " + k + (masked ? ", %m: " + m : std::string()) + ") -> " + q +
      " {\n  %o = fuse.attention %q, %k, %v" + (masked ? ", %m" : "") +
      " {scale = 0.125 : f32, causal = " + (causal ? "true" : "false") + "} : (" + q + ", " + k + ", " + k +
      (masked ? ", " + m : std::string()) + ") -> " + q + "\n  return %o : " + q + "\n}\n";
  auto module = test::parseAndFuse(context, ir);
  std::vector<codegen::GeneratedKernel> kernels;
  module->walk([&](fuse::SuperkernelOp superkernel) {
    // The split pinned (the pass splits kernels of few blocks by itself).
    fuse::KernelConfig config = fuse::KernelConfig::fromAttr(superkernel.getConfigAttr());
    config.splitK = split;
    superkernel.setConfigAttr(config.toAttr(&context));
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    kernels.push_back(*kernel);
  });
  REQUIRE(kernels.size() == 1);
  REQUIRE(kernels[0].kind == "attention");
  return kernels[0];
}

} // namespace

TEST_CASE("the attention kernel compiles for sm_80 and sm_90 without spills", "[codegen][nvrtc][attention]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  auto context = createContext();
  struct Variant {
    int64_t headDim;
    const char *type;
    bool masked, causal;
    int64_t split = 1;
  };
  // f32 heads of 60 (not whole k8 steps) take the SIMT loop; of 64 and
  // 128 the tf32 loop.
  for (Variant variant :
       {Variant{60, "f32", false, false}, Variant{64, "f32", false, false}, Variant{64, "f16", true, false},
        Variant{124, "f32", false, true}, Variant{120, "f32", false, false}, Variant{128, "f32", true, true},
        Variant{128, "bf16", true, true}, Variant{60, "f32", true, false, 2}, Variant{64, "f32", true, false, 2},
        Variant{64, "f16", false, true, 2}, Variant{128, "bf16", true, false, 4}}) {
    codegen::GeneratedKernel kernel =
        emitAttention(*context, variant.headDim, variant.type, variant.masked, variant.causal, variant.split);
    for (const char *arch : {"sm_80", "sm_90"}) {
      codegen::CompileOptions options;
      options.arch = arch;
      std::string error;
      auto compiled = codegen::compileKernels({kernel}, options, error);
      INFO("D " << variant.headDim << " " << variant.type << " " << arch << "\n" << error);
      REQUIRE(error.empty());
      REQUIRE(compiled.size() == 1);
      INFO(compiled[0].log);
      CHECK(compiled[0].cubin.size() > 0);
      CHECK(compiled[0].spillBytes == 0);
      CHECK(compiled[0].log.find("warning") == std::string::npos);
      const std::string &ptx = compiled[0].ptx;
      // A split kernel counts its slices in, and the last one merges them.
      CHECK((ptx.find("atom.global.add.u32") != std::string::npos) == (variant.split > 1));
      CHECK(kernel.launch.splitMaxSlices == variant.split);
      std::smatch smem;
      const int64_t staticBytes =
          std::regex_search(compiled[0].log, smem, std::regex("(\\d+) bytes smem")) ? std::stol(smem[1]) : 0;
      const int64_t sharedBytes = kernel.launch.sharedBytes;
      if (std::string(variant.type) == "f32" && variant.headDim % 8 != 0) {
        // D is a multiple of 4: Q, K and P are read from shared memory as float4.
        CHECK(ptx.find("ld.shared.v4.f32") != std::string::npos);
        CHECK(kernel.source.find("FusecAttention<") != std::string::npos);
        CHECK(staticBytes > 0);
        CHECK(staticBytes <= 48 * 1024);
      } else if (std::string(variant.type) == "f32") {
        CHECK(kernel.source.find("FusecAttentionTf32<") != std::string::npos);
        CHECK(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
        CHECK(ptx.find("cvt.rna.tf32.f32") != std::string::npos);
        CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos);
        CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x2.shared.b16") != std::string::npos);
        CHECK(ptx.find("cp.async.cg.shared.global") != std::string::npos);
        CHECK(ptx.find("div.s64") == std::string::npos);
        CHECK(ptx.find("rem.s64") == std::string::npos);
        // Dynamic: 52 KiB at D = 64 and 96 KiB at D = 120 (32-key tiles),
        // 66.5 KiB at D = 128 (16-key tiles: 32 would need 100 KiB).
        CHECK(sharedBytes == (variant.headDim == 64 ? 53248 : variant.headDim == 120 ? 98304 : 68096));
      } else {
        CHECK(kernel.source.find("FusecAttentionHalf<") != std::string::npos);
        CHECK(ptx.find(std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + variant.type) != std::string::npos);
        CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos);
        CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") != std::string::npos);
        CHECK(ptx.find("cp.async.cg.shared.global") != std::string::npos);
        CHECK(ptx.find("div.s64") == std::string::npos);
        CHECK(ptx.find("rem.s64") == std::string::npos);
        // 64 x 64 tiles fit the static 48 KiB; D = 128 asks for 51 KiB.
        CHECK(sharedBytes == (variant.headDim == 64 ? 0 : 52224));
      }
      std::cout << "attention D=" << variant.headDim << " " << variant.type << (variant.masked ? " masked" : "")
                << (variant.causal ? " causal" : "") << (variant.split > 1 ? " split" : "") << " " << arch << ": "
                << compiled[0].registers << " registers, " << staticBytes << " bytes static + " << sharedBytes
                << " bytes dynamic smem\n";
    }
  }
}

TEST_CASE("an f16 attention kernel and its 32-key variant are one program without spills",
          "[codegen][nvrtc][attention]") {
  if (!codegen::haveNvrtc()) {
    FUSEC_SKIP_TEST("this build has no NVRTC (CUDA toolkit not found at configure time)");
  }
  auto context = createContext();
  const std::string q = "tensor<?x4x100x64xf16>";
  const std::string ir = "func.func @main(%q: " + q + ") -> " + q +
                         " {\n  %o = fuse.attention %q, %q, %q {scale = " + "0.125 : f32, causal = true} : (" + q +
                         ", " + q + ", " + q + ") -> " + q + "\n  return %o : " + q + "\n}\n";
  FusionOptions options;
  options.kernelVariants = 2;
  auto module = test::parseAndFuse(*context, ir, options);
  std::vector<codegen::GeneratedKernel> kernels;
  module->walk([&](fuse::SuperkernelOp superkernel) {
    auto emitted = codegen::emitKernelVariants(superkernel);
    REQUIRE(mlir::succeeded(emitted));
    kernels = *emitted;
  });
  REQUIRE(kernels.size() == 2);
  for (const codegen::GeneratedKernel &kernel : kernels) {
    CHECK(kernel.source.find("using Attention = FusecAttentionHalf<" + kernel.name + "_tile>;") != std::string::npos);
    CHECK(kernel.source.find("  static constexpr int kHeadDim = 64;\n  static constexpr int kValueDim = 64;\n") !=
          std::string::npos);
    CHECK(kernel.source.find("  using Element = fusec_f16;\n") != std::string::npos);
  }
  CHECK(kernels[0].source.find("  static constexpr int kBlockN = 64;\n") != std::string::npos);
  CHECK(kernels[1].source.find("  static constexpr int kBlockN = 32;\n") != std::string::npos);
  codegen::CompileOptions compileOptions; // sm_90
  std::string error;
  // As the driver compiles them: one program defining both functions.
  auto compiled = codegen::compileKernels({codegen::joinVariants(kernels)}, compileOptions, error);
  INFO(error);
  REQUIRE(compiled.size() == 1);
  INFO(compiled[0].log);
  CHECK(compiled[0].ptx.find(".entry sk0_attention(") != std::string::npos);
  CHECK(compiled[0].ptx.find(".entry sk0_attention__v1(") != std::string::npos);
  CHECK(compiled[0].spillBytes == 0);
  CHECK(compiled[0].log.find("warning") == std::string::npos);
}
