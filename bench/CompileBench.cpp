//===- CompileBench.cpp - How long ResNet-50 takes to compile -------------===//
//
// Prints the time to compile ResNet-50 (generated, written once as a
// fusec-graph JSON model with safetensors weights) into a plan file for
// sm_90, each run in a fresh process as `fusec` runs: cold (empty kernel
// cache) and warm (every kernel cached), with the share spent in NVRTC.
// Goals: cold <= 5 s, warm <= 1 s on 2 cores.
// Usage: build/bin/fusec-bench-compile [--target=sm_90] [--kernel-variants=N]
//        [--runs=N] [--keep=DIR]
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
#include <fstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace fusec;

namespace {

/// The `fusec` executable built beside this benchmark.
std::string fusecBeside(const char *argv0) {
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string path = length > 0 ? std::string(self, length) : std::string(argv0);
  return path.substr(0, path.rfind('/') + 1) + "fusec";
}

/// Runs `fusec` on `model` as a user would -- a fresh process that imports,
/// fuses, compiles (or takes kernels from `cacheDir`) and writes the plan file
/// -- and returns its wall time. Prints its NVRTC summary line.
double compileSeconds(const std::string &fusec, const std::string &model, const std::string &target,
                      const std::string &cacheDir, int64_t kernelVariants) {
  std::string log = cacheDir + ".log";
  std::string plan = model.substr(0, model.rfind('.')) + ".plan";
  std::vector<std::string> args = {fusec,
                                   model,
                                   "-o",
                                   plan,
                                   "--target=" + target,
                                   "--kernel-cache=" + cacheDir,
                                   "--kernel-variants=" + std::to_string(kernelVariants),
                                   "-v"};
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    std::exit(1);
  }
  if (child == 0) {
    // The fusion summary and the NVRTC line go to the log.
    if (!std::freopen(log.c_str(), "w", stderr))
      _exit(127);
    execv(fusec.c_str(), argv.data());
    std::perror(fusec.c_str());
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find("kernels for") != std::string::npos || line.find("error") != std::string::npos)
      std::printf("%s\n", line.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s failed (see %s)\n", fusec.c_str(), log.c_str());
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
  // --runs=N: N cold + warm pairs (the kernel cache emptied before each).
  int runs = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--target=", 0) == 0)
      target = arg.substr(9);
    else if (arg.rfind("--kernel-variants=", 0) == 0)
      kernelVariants = std::max<int64_t>(1, std::atoll(arg.c_str() + 18));
    else if (arg.rfind("--runs=", 0) == 0)
      runs = std::max(1, std::atoi(arg.c_str() + 7));
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
  std::string fusec = fusecBeside(argv[0]);
  for (int run = 0; run < runs; ++run) {
    if (std::system(("rm -rf '" + cache + "'").c_str()) != 0)
      return 1;
    double cold = compileSeconds(fusec, model, target, cache, kernelVariants);
    double warm = compileSeconds(fusec, model, target, cache, kernelVariants);
    std::printf("cold (empty kernel cache): %.2f s   (goal <= 5 s)\n", cold);
    std::printf("warm (cached kernels):     %.2f s   (goal <= 1 s)\n", warm);
  }
  if (keep.empty())
    std::system(("rm -rf '" + dir + "'").c_str());
  return 0;
}
