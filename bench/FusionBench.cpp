//===- FusionBench.cpp - How fast fusion is, and what it saves ------------===//
//
// Prints (1) the time of import, fusion pipeline and plan writing for
// synthetic graphs of 1k, 10k and 100k nodes (elementwise chains and
// ResNet-like blocks) with the growth per 10x; (2) kernel counts and modeled
// HBM bytes, fused vs unfused, for every shared model and ResNet-50.
// Figures, not pass/fail: `build/bin/fusec-bench-fusion [--max-nodes=N] [MODELS_DIR]`.
//
//===----------------------------------------------------------------------===//
#include "bench/ModelGenerators.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/FusionReport.h"
#include "compiler/PlanWriter.h"
#include "compiler/import/GraphBuilder.h"

#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <functional>
#include <string>
#include <vector>

using namespace fusec;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct PipelineTimes {
  double importS = 0, fuseS = 0, planS = 0;
  int64_t kernels = 0;
};

PipelineTimes timePipeline(const import::Graph &graph) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  PipelineTimes times;
  auto start = std::chrono::steady_clock::now();
  auto module = import::buildModule(graph, *context);
  times.importS = secondsSince(start);
  if (!module)
    return times;
  start = std::chrono::steady_clock::now();
  mlir::PassManager pm(context.get());
  buildFusionPipeline(pm, FusionOptions());
  if (mlir::failed(pm.run(*module)))
    return times;
  times.fuseS = secondsSince(start);
  times.kernels = buildFusionReport(*module)["totals"]["kernels"]["fused"];
  start = std::chrono::steady_clock::now();
  (void)buildPlan(*module, PlanOptions());
  times.planS = secondsSince(start);
  return times;
}

int64_t maxNodes = 100000;

void benchScaling(const char *label, const std::function<import::Graph(int64_t)> &make) {
  std::printf("\n%s\n%10s %10s %10s %10s %10s %12s %9s\n", label, "nodes", "import s", "fuse s", "plan s", "total s",
              "growth/10x", "kernels");
  double previous = 0;
  for (int64_t nodes = 1000; nodes <= maxNodes; nodes *= 10) {
    import::Graph graph = make(nodes);
    PipelineTimes t = timePipeline(graph);
    double total = t.importS + t.fuseS + t.planS;
    char growth[32] = "-";
    if (previous > 0)
      std::snprintf(growth, sizeof(growth), "%.1fx", total / previous);
    std::printf("%10zu %10.3f %10.3f %10.3f %10.3f %12s %9lld\n", graph.nodes.size(), t.importS, t.fuseS, t.planS,
                total, growth, static_cast<long long>(t.kernels));
    previous = total;
  }
}

/// Kernels and modeled HBM bytes of `graph` fused with `options`.
std::pair<int64_t, double>
kernelsAndBytes(const std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &)> &import,
                const FusionOptions &options) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  auto module = import(*context);
  mlir::PassManager pm(context.get());
  buildFusionPipeline(pm, options);
  if (!module || mlir::failed(pm.run(*module)))
    return {0, 0};
  nlohmann::json totals = buildFusionReport(*module)["totals"];
  return {totals["kernels"]["fused"].get<int64_t>(), totals["bytes"]["fused"].get<double>()};
}

void printModelRow(const std::string &name,
                   const std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &)> &import) {
  // The baseline runs every original op (BatchNormalization and Pad included)
  // as its own kernel.
  for (int64_t batch : {1, 16}) {
    FusionOptions fusedOptions, unfusedOptions;
    fusedOptions.costBatch = unfusedOptions.costBatch = batch;
    unfusedOptions.strategy = "none";
    unfusedOptions.disabled = fusionRuleNames();
    auto [kernels, fused] = kernelsAndBytes(import, fusedOptions);
    auto [unfusedKernels, unfused] = kernelsAndBytes(import, unfusedOptions);
    std::printf("%-16s %6lld %8lld %9lld %14.0f %14.0f %8.1f%%\n", name.c_str(), static_cast<long long>(batch),
                static_cast<long long>(kernels), static_cast<long long>(unfusedKernels), fused, unfused,
                unfused > 0 ? 100.0 * fused / unfused : 0.0);
  }
}

void benchModels(const std::string &modelsDir) {
  std::printf("\nkernels and modeled HBM bytes (greedy, H200 profile; unfused = every original "
              "op its own kernel)\n");
  std::printf("%-16s %6s %8s %9s %14s %14s %9s\n", "model", "batch", "kernels", "unfused", "bytes fused",
              "bytes unfused", "ratio");
  std::vector<std::string> names;
  if (DIR *dir = opendir(modelsDir.c_str())) {
    while (dirent *entry = readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  for (const std::string &name : names)
    printModelRow(
        name, [&](mlir::MLIRContext &context) { return importModel(modelsDir + "/" + name + "/model.onnx", context); });
  import::Graph resnet = bench::makeResNet50();
  printModelRow("resnet50", [&](mlir::MLIRContext &context) { return import::buildModule(resnet, context); });
}

} // namespace

int main(int argc, char **argv) {
  // Figures appear as they are measured, also when piped.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::string modelsDir = FUSEC_MODELS_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--max-nodes=", 0) == 0)
      maxNodes = std::stoll(arg.substr(12));
    else
      modelsDir = arg;
  }
  std::printf("fusec fusion benchmark (goals: growth <= 11x per 10x nodes, 100k nodes <= 5 s;\n"
              "ResNet-50 fused bytes <= 40%% of unfused)\n");
  benchScaling("elementwise chains", bench::makeElementwiseChain);
  benchScaling("ResNet-like blocks", bench::makeResidualBlocks);
  benchModels(modelsDir);
  return 0;
}
