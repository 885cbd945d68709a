//===- GemmSm90NvrtcTest.cpp - fusec_gemm_sm90.h compiles for sm_90a ------===//
//
// The Hopper GEMM's instantiations compile with NVRTC for sm_90a from the
// embedded headers, without spills, into PTX that has the instructions the
// design rests on (wgmma.mma_async, TMA loads, mbarrier waits, setmaxnreg)
// and a ptxas log without C7509 (wgmma serialized: a silent slowdown).
// Where scripts/setup.sh installed cuobjdump and nvdisasm (.tools/bin), the
// SASS is read too: HGMMA and UTMALDG present, one WARPGROUP.ARRIVE (a
// serialized wgmma gets one per HGMMA) and no ldmatrix. Prints each
// instantiation's ptxas resource report and SASS counts. NVRTC needs no
// GPU; a build without NVRTC, or a machine without the tools, skips
// visibly. ResNet-50's convs and a GPT-2 block's projections, generated for
// sm_90a, pass the same checks.
//
//===----------------------------------------------------------------------===//
#include "FusedModule.h"

#include "bench/ModelGenerators.h"
#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "ir/FuseOps.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace fusec;

namespace {

struct Instantiation {
  const char *name;
  const char *parameters; // FusecSm90TileOf's template arguments: the tile description
};

/// A kernel running one instantiation with a bias epilogue writing f16.
codegen::GeneratedKernel gemmKernel(const Instantiation &instantiation) {
  std::ostringstream source;
  source << "#include \"fusec_cuda_prelude.h\"\n"
         << "#include \"fusec_gemm_sm90.h\"\n"
         << "using Gemm = FusecGemmSm90<FusecSm90TileOf<" << instantiation.parameters << ">>;\n"
         << "struct BiasEpilogue {\n"
         << "  fusec_f16 *c; int ldc; const float *bias;\n"
         << "  __device__ void operator()(int row, int col, float value) const {\n"
         << "    c[row * ldc + col] = fusec_convert<fusec_f16>::from(value + fusec_ld(bias + col));\n"
         << "  }\n"
         << "};\n"
         << "extern \"C\" __global__ void __launch_bounds__(Gemm::kThreads, 1) " << instantiation.name
         << "(const __grid_constant__ FusecTensorMap mapA, const __grid_constant__ FusecTensorMap mapB,\n"
         << "    fusec_f16 *__restrict__ c, const float *__restrict__ bias, int m, int n, int k) {\n"
         << "  BiasEpilogue epilogue{c, n, bias};\n"
         << "  Gemm::run(&mapA, &mapB, m, n, k, blockIdx.y * Gemm::kBlockM, blockIdx.x * Gemm::kBlockN, epilogue);\n"
         << "}\n";
  codegen::GeneratedKernel kernel;
  kernel.name = instantiation.name;
  kernel.kind = "gemm";
  kernel.source = source.str();
  return kernel;
}

std::string resourceReport(const std::string &log) {
  std::istringstream lines(log);
  std::string line, report;
  while (std::getline(lines, line))
    if (line.find("Used ") != std::string::npos || line.find("spill") != std::string::npos)
      report += line + "\n";
  return report;
}

/// The SASS of `cubin` as cuobjdump prints it; empty if the tools are not
/// installed.
std::string disassemble(const std::vector<uint8_t> &cubin) {
  const std::string tools = FUSEC_SASS_TOOLS_DIR;
  struct stat info;
  if (stat((tools + "/cuobjdump").c_str(), &info) != 0 || stat((tools + "/nvdisasm").c_str(), &info) != 0)
    return "";
  char path[] = "/tmp/fusec-sm90-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(cubin.data()), cubin.size());
  const std::string command = "PATH='" + tools + "':\"$PATH\" cuobjdump -sass '" + path + "' 2>&1";
  std::string sass;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t count;
    while ((count = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      sass.append(buffer, count);
    pclose(pipe);
  }
  std::remove(path);
  return sass;
}

/// `kernels` compiled with NVRTC for `arch`; fails the test on an error.
std::vector<codegen::CompiledKernel> compileFor(const std::vector<codegen::GeneratedKernel> &kernels,
                                                const std::string &arch) {
  codegen::CompileOptions options;
  options.arch = arch;
  std::string error;
  auto compiled = codegen::compileKernels(kernels, options, error);
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(compiled.size() == kernels.size());
  return compiled;
}

std::vector<codegen::CompiledKernel> compileForSm90a(const std::vector<codegen::GeneratedKernel> &kernels) {
  return compileFor(kernels, "sm_90a");
}

size_t countOf(const std::string &text, const std::string &word) {
  size_t count = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size()))
    ++count;
  return count;
}

/// Compiles generated Hopper kernels for sm_90a and checks each: no spills,
/// no C7509, wgmma in the PTX and, where the tools are installed, HGMMA in
/// groups of four per WARPGROUP.ARRIVE (K is a constant here, so ptxas may
/// unroll the k-loops, but each k-tile's four k16 steps still issue after
/// one arrive; serialized, each HGMMA would have its own), at least two
/// UTMALDG (a k-tile's two boxes) and no LDSM. Returns the most registers
/// a kernel uses.
int checkHopperKernels(const std::vector<codegen::GeneratedKernel> &kernels) {
  REQUIRE(!kernels.empty());
  const auto compiled = compileForSm90a(kernels);
  int most = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    INFO(kernels[i].name << " " << kernels[i].config << ":\n" << compiled[i].log);
    most = std::max(most, compiled[i].registers);
    CHECK(compiled[i].spillBytes == 0);
    CHECK(compiled[i].log.find("C7509") == std::string::npos);
    CHECK(compiled[i].ptx.find("wgmma.mma_async.sync.aligned.m64n") != std::string::npos);
    const std::string sass = disassemble(compiled[i].cubin);
    if (sass.empty()) {
      WARN("SASS checks SKIPPED: no cuobjdump/nvdisasm in " FUSEC_SASS_TOOLS_DIR " (scripts/setup.sh installs them)");
      continue;
    }
    const size_t hgmma = countOf(sass, "HGMMA."), arrives = countOf(sass, "WARPGROUP.ARRIVE");
    INFO(hgmma << " HGMMA, " << arrives << " WARPGROUP.ARRIVE, " << countOf(sass, "UTMALDG") << " UTMALDG");
    CHECK(arrives >= 1);
    CHECK(hgmma == 4 * arrives);
    CHECK(countOf(sass, "UTMALDG") >= 2);
    CHECK(countOf(sass, "LDSM") == 0);
  }
  return most;
}

} // namespace

TEST_CASE("the Hopper GEMM template compiles for sm_90a with wgmma, TMA and no spills", "[codegen][nvrtc][sm90]") {
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  // BlockN, Stages, Element, ConsumerGroups, BNMajor.
  const std::vector<Instantiation> instantiations = {
      {"gemm_sm90_128x128_s4_f16", "128, 4, fusec_f16, 2"},
      {"gemm_sm90_128x256_s3_f16", "256, 3, fusec_f16, 2"},
      {"gemm_sm90_128x128_s4_bf16", "128, 4, fusec_bf16, 2"},
      {"gemm_sm90_64x64_s6_f16", "64, 6, fusec_f16, 1"},
      {"gemm_sm90_128x128_s4_f16_nmajor", "128, 4, fusec_f16, 2, true"},
  };
  std::vector<codegen::GeneratedKernel> kernels;
  for (const Instantiation &instantiation : instantiations)
    kernels.push_back(gemmKernel(instantiation));
  const auto compiled = compileForSm90a(kernels);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string &ptx = compiled[i].ptx;
    INFO(kernels[i].name << ":\n" << compiled[i].log);
    std::cout << "sm_90a " << kernels[i].name << ": " << compiled[i].registers << " registers\n"
              << resourceReport(compiled[i].log);
    CHECK(compiled[i].cubin.size() > 0);
    CHECK(compiled[i].spillBytes == 0);
    CHECK(ptx.find(".target sm_90a") != std::string::npos);
    CHECK(ptx.find("wgmma.mma_async.sync.aligned.m64n") != std::string::npos);
    CHECK(ptx.find("wgmma.wait_group.sync.aligned 1") != std::string::npos);
    CHECK(ptx.find("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes") !=
          std::string::npos);
    CHECK(ptx.find("mbarrier.try_wait.parity.shared::cta.b64") != std::string::npos);
    CHECK(ptx.find("setmaxnreg.inc.sync.aligned.u32 232") != std::string::npos);
    // ptxas serializes wgmma (and warns C7509) when something between them
    // forces it, an extern call such as assert's among them.
    CHECK(compiled[i].log.find("C7509") == std::string::npos);
    CHECK(compiled[i].log.find("serialized") == std::string::npos);

    const std::string sass = disassemble(compiled[i].cubin);
    if (sass.empty()) {
      WARN("SASS checks SKIPPED: no cuobjdump/nvdisasm in " FUSEC_SASS_TOOLS_DIR " (scripts/setup.sh installs them)");
      continue;
    }
    INFO(sass.substr(0, 2000));
    const size_t hgmma = countOf(sass, "HGMMA."), tmaLoads = countOf(sass, "UTMALDG"),
                 arrives = countOf(sass, "WARPGROUP.ARRIVE"), ldmatrix = countOf(sass, "LDSM");
    std::cout << "  SASS: " << hgmma << " HGMMA, " << tmaLoads << " UTMALDG, " << arrives << " WARPGROUP.ARRIVE, "
              << ldmatrix << " LDSM\n";
    CHECK(hgmma == 4); // the k-tile's four k16 steps, once in the loop
    CHECK(tmaLoads == (kernels[i].name.find("nmajor") != std::string::npos ? 3 : 2)); // B: one box per 64 N
    CHECK(arrives == 1);
    CHECK(ldmatrix == 0);
  }
}

// ResNet-50 in fp16, channels-last, for sm_90a: every pointwise stride-1
// conv (a bottleneck's first and last, layer1's downsample: 33 of 53) is a
// product of pixels by weights on the Hopper GEMM, and every other conv but
// the stem (the 3x3s, stride 1 and 2, and the strided downsamples: 19) runs
// the Hopper implicit GEMM over spatial tiles, each with its fused epilogue
// (bias, ReLU, the residual add); the generated kernels compile like the
// template's instantiations above. The stem reads 3 channels, not a 16-byte
// TMA row, and stays on the mma.sync implicit GEMM (docs/hopper.md).
TEST_CASE("ResNet-50's convs compile for sm_90a on the Hopper GEMM and conv with wgmma, TMA and no spills",
          "[codegen][nvrtc][sm90]") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  auto module = import::buildModule(bench::makeResNet50(224), *context);
  INFO(diagnostics.text());
  REQUIRE(module);
  FusionOptions options;
  options.precision = "fp16";
  options.layout = "nhwc";
  options.target = "sm_90a";
  test::fuse(*module, options);
  size_t convs = 0, products = 0, spatial = 0;
  std::vector<codegen::GeneratedKernel> kernels;
  module->walk([&](fuse::SuperkernelOp superkernel) {
    bool conv = false;
    superkernel.getBody().walk([&](fuse::ConvOp) { conv = true; });
    if (!conv)
      return;
    ++convs;
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    if (kernel->source.find("FusecGemmSm90<") != std::string::npos) {
      kernels.push_back(*kernel);
      ++products;
    } else if (kernel->source.find("FusecConvSm90<") != std::string::npos) {
      kernels.push_back(*kernel);
      ++spatial;
    }
  });
  CHECK(convs == 53);
  CHECK(products == 33);
  CHECK(spatial == 20);
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  const int most = checkHopperKernels(kernels);
  std::cout << "sm_90a ResNet-50 fp16 NHWC: " << products << " of " << convs << " convs on the Hopper GEMM, " << spatial
            << " on the Hopper implicit GEMM; at most " << most << " registers a thread\n";
}

// tiny_resnet in fp16, channels-last, for sm_90a: its 3x3 convs on 8 and
// 16 channels (and the stem, padded to 8) take the implicit GEMM's narrow
// k-tiles (8 chunks of 8 channels, unswizzled 16-byte boxes: nine UTMALDG a
// k-tile), its 32- and 64-channel convs the 64-channel ones; each compiles
// like the rest.
TEST_CASE("tiny_resnet's 8- and 16-channel convs compile for sm_90a on the narrow implicit GEMM with wgmma, TMA and "
          "no spills",
          "[codegen][nvrtc][sm90]") {
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = std::string(FUSEC_TEST_DATA_DIR) + "/models/tiny_resnet/model.onnx";
  options.fusion.precision = "fp16";
  options.fusion.layout = "nhwc";
  options.plan.target = "sm_90a";
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  std::vector<codegen::GeneratedKernel> kernels;
  size_t narrow = 0;
  module->walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    if (kernel->source.find("FusecConvSm90<") == std::string::npos)
      return;
    kernels.push_back(*kernel);
    narrow += kernel->source.find("kChannels = 8;") != std::string::npos ||
              kernel->source.find("kChannels = 16;") != std::string::npos;
  });
  CHECK(kernels.size() == 10);
  CHECK(narrow == 6);
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  const int most = checkHopperKernels(kernels);
  std::cout << "sm_90a tiny_resnet fp16 NHWC: " << kernels.size() << " convs on the Hopper implicit GEMM, " << narrow
            << " with k-tiles of 8-channel chunks; at most " << most << " registers a thread\n";
}

// A GPT-2-sized block (d 768, 12 heads, ffn 3072, seq 128, causal), fp16
// and bf16, for sm_90a: its four projections (QKV, output, the two
// feed-forward layers) run the Hopper GEMM with their epilogues (bias,
// GELU, the residual adds) and compile like the template's instantiations.
TEST_CASE("a GPT-2 block's projections compile for sm_90a on the Hopper GEMM with wgmma, TMA and no spills",
          "[codegen][nvrtc][sm90]") {
  for (const char *precision : {"fp16", "bf16"}) {
    INFO(precision);
    auto context = createContext();
    DiagnosticCollector diagnostics(context.get());
    bench::TransformerLayerSpec spec;
    spec.causal = true;
    auto module = import::buildModule(bench::makeTransformerLayer(spec), *context);
    INFO(diagnostics.text());
    REQUIRE(module);
    FusionOptions options;
    options.precision = precision;
    options.target = "sm_90a";
    test::fuse(*module, options);
    size_t products = 0;
    std::vector<codegen::GeneratedKernel> kernels;
    module->walk([&](fuse::SuperkernelOp superkernel) {
      bool product = false;
      superkernel.getBody().walk([&](mlir::Operation *op) { product |= llvm::isa<fuse::GemmOp, fuse::MatMulOp>(op); });
      if (!product)
        return;
      ++products;
      auto kernel = codegen::emitKernel(superkernel);
      REQUIRE(mlir::succeeded(kernel));
      if (kernel->source.find("FusecGemmSm90<") != std::string::npos)
        kernels.push_back(*kernel);
    });
    CHECK(products == 4);
    CHECK(kernels.size() == products);
    if (!codegen::haveNvrtc()) {
      WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
      return;
    }
    const int most = checkHopperKernels(kernels);
    std::cout << "sm_90a GPT-2 block " << precision << ": " << kernels.size() << " of " << products
              << " projections on the Hopper GEMM; at most " << most << " registers a thread\n";
  }
}

// The 8-bit integer mma primitives (fusec_mma.h, for the quantized
// templates): their inline PTX assembles for sm_80 and sm_90a into one
// IMMA.16832 each, s8 x s8 and u8 x s8.
TEST_CASE("the 8-bit integer mma primitives assemble to IMMA.16832 for sm_80 and sm_90a", "[codegen][nvrtc][mma]") {
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  codegen::GeneratedKernel kernel;
  kernel.name = "imma_probe";
  kernel.kind = "gemm";
  kernel.source = R"cuda(#include "fusec_cuda_prelude.h"
#include "fusec_mma.h"
extern "C" __global__ void imma_probe(const unsigned *a, const unsigned *b, int *d) {
  const unsigned ra[4] = {a[0], a[1], a[2], a[3]}, rb[2] = {b[0], b[1]};
  int acc[4] = {0, 0, 0, 0};
  fusec_mma_m16n8k32_s8(acc, ra, rb, acc);
  fusec_mma_m16n8k32_u8s8(acc, ra, rb, acc);
  for (int i = 0; i < 4; ++i)
    d[4 * threadIdx.x + i] = acc[i];
}
)cuda";
  for (const char *arch : {"sm_80", "sm_90a"}) {
    INFO(arch);
    const auto compiled = compileFor({kernel}, arch);
    CHECK(compiled[0].ptx.find("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32") != std::string::npos);
    CHECK(compiled[0].ptx.find("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32") != std::string::npos);
    const std::string sass = disassemble(compiled[0].cubin);
    if (sass.empty()) {
      WARN("SKIPPED the SASS check: cuobjdump/nvdisasm not installed (scripts/setup.sh)");
      continue;
    }
    CHECK(countOf(sass, "IMMA.16832.S8.S8") == 1);
    CHECK(countOf(sass, "IMMA.16832.U8.S8") == 1);
  }
}

// The 8-bit GEMM main loop (FusecMmaGemm with FusecInt8Step) at the tile a
// quantized projection would take: 128 x 128 x 64-byte k-tiles, 64 x 64 per
// warp (4 x 8 m16n8k32 tiles: 128 s32 accumulators a thread), 3 stages of
// 16-byte cp.async copies. It compiles for sm_80 and sm_90a without spills,
// its fragments come through ldmatrix (LDSM) and its products are IMMA.
TEST_CASE("the 8-bit GEMM main loop compiles to IMMA and LDSM without spills for sm_80 and sm_90a",
          "[codegen][nvrtc][mma]") {
  if (!codegen::haveNvrtc()) {
    WARN("SKIPPED: this build has no NVRTC (CUDA toolkit not found at configure time)");
    return;
  }
  codegen::GeneratedKernel kernel;
  kernel.name = "int8_gemm_probe";
  kernel.kind = "gemm";
  kernel.source = R"cuda(#include "fusec_cuda_prelude.h"
#include "fusec_gemm.h"
using Tile = FusecTileOf<128, 128, 64, 64, 64, 3, 16, 16, 1, unsigned char>;
using Gemm = FusecMmaGemm<Tile, FusecDenseB<true, 16, signed char>, FusecInt8Step<unsigned char>>;
extern "C" __global__ void __launch_bounds__(Gemm::kThreads, 1)
    int8_gemm_probe(const unsigned char *a, const signed char *b, int *c, int m, int n, int k) {
  extern __shared__ float4 smem[];
  auto epilogue = [&](int row, int col, int value) { c[static_cast<long long>(row) * n + col] = value; };
  FusecDenseB<true, 16, signed char> bOperand(b, k);
  Gemm::run(a, k, bOperand, m, n, k, blockIdx.x * Gemm::kBlockM, blockIdx.y * Gemm::kBlockN, smem, epilogue);
}
)cuda";
  for (const char *arch : {"sm_80", "sm_90a"}) {
    const auto compiled = compileFor({kernel}, arch);
    INFO(arch << ":\n" << compiled[0].log);
    CHECK(compiled[0].spillBytes == 0);
    const std::string sass = disassemble(compiled[0].cubin);
    if (sass.empty()) {
      WARN("SKIPPED the SASS check: cuobjdump/nvdisasm not installed (scripts/setup.sh)");
      continue;
    }
    CHECK(countOf(sass, "IMMA.16832.U8.S8") >= 64); // a k-tile: 4 x 8 tiles x 2 k-steps
    CHECK(countOf(sass, "LDSM") > 0);
    std::cout << "8-bit GEMM main loop, " << arch << ": " << compiled[0].registers << " registers, "
              << countOf(sass, "IMMA.16832.U8.S8") << " IMMA, " << countOf(sass, "LDSM") << " LDSM\n";
  }
}
