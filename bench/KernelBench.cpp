//===- KernelBench.cpp - ResNet-50's conv and GEMM kernels, one by one ----===//
//
// Prints, for every conv and GEMM kernel of ResNet-50 (224x224, fused as
// fusec does by default) at batch 1 and 32: its #fuse.config (template,
// block tile, stages, vector widths), what ptxas reports for sm_90
// (registers, static shared memory, spills), its GFLOP and the cost model's
// time on the H200 profile; then the totals. The figures a GPU run is
// compared with (docs/benchmarks.md). NVRTC needs no GPU.
// Usage: build/bin/fusec-bench-kernels [--target=sm_90] [--profile=h200]
//        [--cost-batch=N]  (the batch tiles are chosen for, as fusec's)
//        [--precision=fp32|tf32|fp16|bf16]  (as fusec's: fp16/bf16 run
//        fuse-auto-mixed-precision and put the convs and GEMMs on the half
//        template, priced at the profile's f16 tensor peak)
//        [--layout=nchw|nhwc]  (as fusec's: nhwc makes the convs
//        channels-last)
//
//===----------------------------------------------------------------------===//
#include "bench/ModelGenerators.h"

#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/import/GraphBuilder.h"
#include "ir/KernelConfig.h"
#include "passes/Pipeline.h"
#include "passes/cost/CostModel.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

using namespace fusec;

namespace {

/// "12288 bytes smem" from a ptxas report, or 0.
long sharedBytes(const std::string &log) {
  std::smatch match;
  static const std::regex pattern("([0-9]+) bytes smem");
  return std::regex_search(log, match, pattern) ? std::stol(match[1]) : 0;
}

std::string describe(const fuse::KernelConfig &config) {
  std::string text = fuse::templateName(config.kind).str() + " " + std::to_string(config.blockM) + "x" +
                     std::to_string(config.blockN) + "x" + std::to_string(config.blockK);
  if (config.usesTensorCores())
    text += " s" + std::to_string(config.stages) + " v" + std::to_string(config.aVector) + "/" +
            std::to_string(config.bVector) +
            (config.operands == fuse::OperandType::F16    ? " f16"
             : config.operands == fuse::OperandType::BF16 ? " bf16"
             : config.passes == 3                         ? " 3xtf32"
                                                          : " tf32");
  if (config.splitK > 1) // split-capable: up to this many k-slices
    text += " k" + std::to_string(config.splitK);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::string target = "sm_90", profileName = "h200", precision = "fp32", layout = "nchw";
  int64_t costBatch = 1;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument.rfind("--target=", 0) == 0)
      target = argument.substr(9);
    else if (argument.rfind("--profile=", 0) == 0)
      profileName = argument.substr(10);
    else if (argument.rfind("--precision=", 0) == 0)
      precision = argument.substr(12);
    else if (argument.rfind("--layout=", 0) == 0)
      layout = argument.substr(9);
    else if (argument.rfind("--cost-batch=", 0) == 0)
      costBatch = std::max<int64_t>(1, std::stoll(argument.substr(13)));
  }
  auto profile = loadDeviceProfile(profileName);
  if (!profile) {
    llvm::errs() << llvm::toString(profile.takeError()) << "\n";
    return 1;
  }
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  auto module = import::buildModule(bench::makeResNet50(224), *context);
  mlir::PassManager pm(context.get());
  FusionOptions fusion;
  fusion.costBatch = costBatch;
  fusion.deviceProfile = profileName;
  fusion.precision = precision;
  fusion.layout = layout;
  buildFusionPipeline(pm, fusion);
  if (!module || mlir::failed(pm.run(*module)))
    return 1;

  std::vector<fuse::SuperkernelOp> superkernels;
  std::vector<codegen::GeneratedKernel> kernels;
  module->walk([&](fuse::SuperkernelOp superkernel) {
    if (!superkernel.getConfigAttr())
      return;
    auto kernel = codegen::emitKernel(superkernel);
    if (mlir::succeeded(kernel)) {
      superkernels.push_back(superkernel);
      kernels.push_back(*kernel);
    }
  });
  std::vector<codegen::CompiledKernel> compiled;
  if (codegen::haveNvrtc()) {
    codegen::CompileOptions options;
    options.arch = target;
    std::string error;
    compiled = codegen::compileKernels(kernels, options, error);
    if (!error.empty()) {
      llvm::errs() << error << "\n";
      return 1;
    }
  }

  const RooflineCostModel batch1(*profile, 1), batch32(*profile, 32);
  std::printf("ResNet-50 224x224, %s, %s, %zu conv/GEMM kernels, %s, cost model: %s, tiles chosen for batch %lld\n",
              precision.c_str(), layout.c_str(), kernels.size(), target.c_str(), profile->name.c_str(),
              static_cast<long long>(costBatch));
  std::printf("%-48s %-40s %5s %6s %5s %9s %9s %9s %9s\n", "kernel", "config", "regs", "smem", "spill", "GFLOP@1",
              "us@1", "GFLOP@32", "us@32");
  double totalUs1 = 0, totalUs32 = 0, totalFlop1 = 0, totalFlop32 = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::vector<mlir::Operation *> ops;
    for (mlir::Operation &op : superkernels[i].getBody().front().without_terminator())
      ops.push_back(&op);
    auto inside = [&](mlir::Operation *op) { return op->getParentOp() == superkernels[i].getOperation(); };
    const CostEstimate at1 = batch1.estimateKernel(ops, inside), at32 = batch32.estimateKernel(ops, inside);
    totalUs1 += at1.timeUs, totalUs32 += at32.timeUs, totalFlop1 += at1.flops, totalFlop32 += at32.flops;
    const fuse::KernelConfig config = fuse::KernelConfig::fromAttr(superkernels[i].getConfigAttr());
    std::string name = kernels[i].name.substr(0, 48);
    if (compiled.empty())
      std::printf("%-48s %-40s %5s %6s %5s", name.c_str(), describe(config).c_str(), "-", "-", "-");
    else
      std::printf("%-48s %-40s %5d %6ld %5ld", name.c_str(), describe(config).c_str(), compiled[i].registers,
                  std::max(sharedBytes(compiled[i].log), long(kernels[i].launch.sharedBytes)),
                  long(compiled[i].spillBytes));
    std::printf(" %9.3f %9.1f %9.3f %9.1f\n", at1.flops / 1e9, at1.timeUs, at32.flops / 1e9, at32.timeUs);
  }
  std::printf("total: batch 1: %.2f GFLOP, %.3f ms (%.1f TFLOP/s); batch 32: %.2f GFLOP, %.3f ms (%.1f TFLOP/s)\n",
              totalFlop1 / 1e9, totalUs1 / 1e3, totalFlop1 / totalUs1 / 1e6, totalFlop32 / 1e9, totalUs32 / 1e3,
              totalFlop32 / totalUs32 / 1e6);
  return 0;
}
