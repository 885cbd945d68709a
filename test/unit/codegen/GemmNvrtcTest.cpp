//===- GemmNvrtcTest.cpp - fusec_gemm.h compiles for the GPU --------------===//
//
// The GEMM template's instantiations at the block tiles meant for real
// shapes compile with NVRTC for sm_80 and sm_90 from the embedded headers,
// without register spills, into PTX that uses the tensor cores (mma.sync),
// ldmatrix and cp.async and has no 64-bit division. Prints each
// instantiation's ptxas resource report. NVRTC needs no GPU; a build without
// NVRTC skips visibly.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelCompiler.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>

using namespace fusec;

namespace {

struct Instantiation {
  const char *name;
  const char *tile;    // FusecTileOf's arguments: the tile description
  const char *operand; // the B operand
};

/// A kernel that runs one instantiation with dynamic shared memory (the
/// larger tiles need more than the 48 KiB a static array may have) and a
/// bias epilogue.
codegen::GeneratedKernel gemmKernel(const Instantiation &instantiation) {
  std::ostringstream source;
  source << "#include \"fusec_cuda_prelude.h\"\n"
         << "#include \"fusec_gemm.h\"\n"
         << "using Gemm = FusecGemmTf32<FusecTileOf<" << instantiation.tile << ">, " << instantiation.operand << ">;\n"
         << "struct BiasEpilogue {\n"
         << "  float *c; int ldc; const float *bias;\n"
         << "  __device__ void operator()(int row, int col, float value) const { c[row * ldc + col] = value + "
            "bias[col]; }\n"
         << "};\n"
         << "extern \"C\" __global__ void __launch_bounds__(Gemm::kThreads) " << instantiation.name
         << "(const float *__restrict__ a, int lda, const float *__restrict__ b, int ldb,\n"
         << "    float *__restrict__ c, int ldc, const float *__restrict__ bias, int m, int n, int k) {\n"
         << "  extern __shared__ float4 smem[];\n"
         << "  BiasEpilogue epilogue{c, ldc, bias};\n"
         << "  Gemm::Operand bOperand(b, ldb);\n"
         << "  Gemm::run(a, lda, bOperand, m, n, k, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN,\n"
         << "            reinterpret_cast<float *>(smem), epilogue);\n"
         << "}\n";
  codegen::GeneratedKernel kernel;
  kernel.name = instantiation.name;
  kernel.kind = "gemm";
  kernel.source = source.str();
  return kernel;
}

/// The ptxas lines that report registers, shared memory and spills.
std::string resourceReport(const std::string &log) {
  std::istringstream lines(log);
  std::string line, report;
  while (std::getline(lines, line))
    if (line.find("Used ") != std::string::npos || line.find("spill") != std::string::npos)
      report += line + "\n";
  return report;
}

} // namespace

TEST_CASE("the GEMM template compiles for sm_80 and sm_90 with tensor cores and no spills", "[codegen][nvrtc]") {
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  // BM, BN, BK, WM, WN, Stages, Vec, B operand, Passes.
  const std::vector<Instantiation> instantiations = {
      {"gemm_128x128x32_w64x32_s3_v4_nk_3xtf32", "128, 128, 32, 64, 32, 3, 4, 4, 3", "FusecDenseB<true, 4>"},
      {"gemm_128x64x32_w64x32_s3_v4_kn_3xtf32", "128, 64, 32, 64, 32, 3, 4, 4, 3", "FusecDenseB<false, 4>"},
      {"gemm_64x64x32_w32x32_s4_v4_nk_tf32", "64, 64, 32, 32, 32, 4, 4, 4, 1", "FusecDenseB<true, 4>"},
      {"gemm_64x32x32_w32x16_s3_v1_kn_3xtf32", "64, 32, 32, 32, 16, 3, 1, 1, 3", "FusecDenseB<false, 1>"},
  };
  std::vector<codegen::GeneratedKernel> kernels;
  for (const Instantiation &instantiation : instantiations)
    kernels.push_back(gemmKernel(instantiation));
  for (const char *arch : {"sm_80", "sm_90"}) {
    codegen::CompileOptions options;
    options.arch = arch;
    std::string error;
    auto compiled = codegen::compileKernels(kernels, options, error);
    INFO(arch << ": " << error);
    REQUIRE(error.empty());
    REQUIRE(compiled.size() == kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
      const std::string &ptx = compiled[i].ptx;
      INFO(arch << " " << kernels[i].name << ":\n" << compiled[i].log);
      std::cout << arch << " " << kernels[i].name << ": " << compiled[i].registers << " registers\n"
                << resourceReport(compiled[i].log);
      CHECK(compiled[i].cubin.size() > 0);
      CHECK(compiled[i].spillBytes == 0);
      CHECK(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
      CHECK(ptx.find("cvt.rna.tf32.f32") != std::string::npos);
      CHECK(ptx.find("cp.async.") != std::string::npos);
      CHECK(ptx.find("cp.async.wait_group") != std::string::npos);
      if (kernels[i].name.find("_nk_") != std::string::npos) // B fragments through ldmatrix too
        CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x2.shared.b16") != std::string::npos);
      CHECK(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos);
      for (const char *division : {"div.s64", "div.u64", "rem.s64", "rem.u64"})
        CHECK(ptx.find(division) == std::string::npos);
    }
  }
}
