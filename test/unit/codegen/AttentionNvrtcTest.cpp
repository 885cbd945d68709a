//===- AttentionNvrtcTest.cpp - The attention kernel compiles without spills ===//
//
// fuse.attention at the head dims the pass accepts (up to 128), f32 and f16,
// with a mask and causal, compiles with NVRTC for sm_80 and sm_90 without
// warnings or register spills, in the 48 KiB of static shared memory a block
// may have, reading Q, K and the probabilities as float4. Prints the
// registers ptxas reports (docs/codegen.md quotes them).
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"

#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Driver.h"
#include "test/unit/TestSkip.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <regex>

using namespace fusec;

namespace {

/// The attention superkernel of [?, 4, 100, D] x [?, 4, 130, D] heads, with a
/// [100, 130] mask when `masked`.
codegen::GeneratedKernel emitAttention(mlir::MLIRContext &context, int64_t headDim, const std::string &type,
                                       bool masked, bool causal) {
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
  };
  for (Variant variant : {Variant{64, "f32", false, false}, Variant{64, "f16", true, false},
                          Variant{128, "f32", false, true}, Variant{128, "bf16", true, true}}) {
    codegen::GeneratedKernel kernel =
        emitAttention(*context, variant.headDim, variant.type, variant.masked, variant.causal);
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
      // D is a multiple of 4: Q, K and P are read from shared memory as float4.
      CHECK(compiled[0].ptx.find("ld.shared.v4.f32") != std::string::npos);
      std::smatch smem;
      REQUIRE(std::regex_search(compiled[0].log, smem, std::regex("(\\d+) bytes smem")));
      CHECK(std::stol(smem[1]) <= 48 * 1024);
      std::cout << "attention D=" << variant.headDim << " " << variant.type << (variant.masked ? " masked" : "")
                << (variant.causal ? " causal" : "") << " " << arch << ": " << compiled[0].registers << " registers, "
                << smem[1] << " bytes smem\n";
    }
  }
}
