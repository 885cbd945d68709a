//===- CompileBench.cpp - How long ResNet-50 takes to compile -------------===//
//
// Prints the time to compile ResNet-50 (generated, written once as a
// fusec-graph JSON model with safetensors weights) into a plan for sm_90:
// cold (empty kernel cache) and warm (every kernel cached), with the share
// spent in NVRTC. Goals: cold <= 5 s, warm <= 1 s on 2 cores.
// Usage: build/bin/fusec-bench-compile [--target=sm_90]
//
//===----------------------------------------------------------------------===//
#include "bench/ModelGenerators.h"

#include "codegen/KernelCompiler.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/export/JsonExporter.h"
#include "compiler/import/GraphBuilder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fusec;

namespace {

double compileSeconds(const std::string &model, const std::string &target, const std::string &cacheDir,
                      int64_t kernelVariants) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  DriverOptions options;
  options.inputPath = model;
  options.plan.target = target;
  options.kernelCacheDir = cacheDir;
  options.fusion.kernelVariants = kernelVariants;
  options.verbose = true; // prints the NVRTC share
  auto start = std::chrono::steady_clock::now();
  auto plan = compileToPlan(*context, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (mlir::failed(plan)) {
    std::fprintf(stderr, "compilation failed\n");
    std::exit(1);
  }
  return seconds;
}

} // namespace

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::string target = "sm_90";
  int64_t kernelVariants = FusionOptions().kernelVariants;
  // --keep=DIR: write the model (and the kernel cache) into DIR and keep
  // them, e.g. to profile `fusec DIR/resnet50.json` warm.
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--target=", 0) == 0)
      target = arg.substr(9);
    else if (arg.rfind("--kernel-variants=", 0) == 0)
      kernelVariants = std::max<int64_t>(1, std::atoll(arg.c_str() + 18));
    else if (arg.rfind("--keep=", 0) == 0)
      keep = arg.substr(7);
  }
  if (!codegen::haveNvrtc()) {
    std::printf("SKIPPED: built without NVRTC\n");
    return 0;
  }
  char scratch[] = "/tmp/fusec-bench-compile-XXXXXX";
  if (keep.empty() && !mkdtemp(scratch))
    return 1;
  if (!keep.empty() && std::system(("mkdir -p '" + keep + "'").c_str()) != 0)
    return 1;
  std::string dir = keep.empty() ? std::string(scratch) : keep, model = dir + "/resnet50.json", cache = dir + "/cache";
  {
    auto context = createContext();
    FusecDiagnosticHandler diagnostics(context.get());
    auto module = import::buildModule(bench::makeResNet50(), *context);
    if (!module || mlir::failed(exportJsonModel(*module, model)))
      return 1;
  }
  std::printf("ResNet-50 (fusec-graph JSON + safetensors) -> plan for %s, NVRTC %s, %lld configs per conv/GEMM "
              "kernel (--kernel-variants)\n",
              target.c_str(), codegen::nvrtcVersion().c_str(), static_cast<long long>(kernelVariants));
  double cold = compileSeconds(model, target, cache, kernelVariants);
  double warm = compileSeconds(model, target, cache, kernelVariants);
  std::printf("cold (empty kernel cache): %.2f s   (goal <= 5 s)\n", cold);
  std::printf("warm (cached kernels):     %.2f s   (goal <= 1 s)\n", warm);
  if (keep.empty())
    std::system(("rm -rf '" + dir + "'").c_str());
  return 0;
}
