//===- FusionBench.cpp - How fast fusion is, and what it saves ------------===//
//
// Prints (1) the time of import, fusion pipeline and plan writing for
// synthetic graphs of 1k, 10k and 100k nodes (elementwise chains and
// ResNet-like blocks) with the growth per 10x; (2) kernel counts and modeled
// HBM bytes, fused vs unfused, for every shared model and ResNet-50; (3) the
// fusion quality of PyTorch's exports (test/data/pytorch), ResNet-50 and the
// models given with --model=NAME=PATH: kernels against each architecture's
// ideal, copy kernels, concats in place, modeled bytes, NCHW and NHWC.
// Figures, not pass/fail:
// `build/bin/fusec-bench-fusion [--max-nodes=N] [--model=NAME=PATH ...] [MODELS_DIR]`.
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
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <unistd.h>
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

using ModelImport = std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &)>;

/// The fusion report of the model `import` builds, fused with `options`
/// (none when it does not import or fuse).
std::optional<nlohmann::json> fusionReportOf(const ModelImport &import, const FusionOptions &options) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());
  auto module = import(*context);
  mlir::PassManager pm(context.get());
  buildFusionPipeline(pm, options);
  if (!module || mlir::failed(pm.run(*module)))
    return std::nullopt;
  return buildFusionReport(*module);
}

/// Kernels and modeled HBM bytes of `graph` fused with `options`.
std::pair<int64_t, double> kernelsAndBytes(const ModelImport &import, const FusionOptions &options) {
  std::optional<nlohmann::json> report = fusionReportOf(import, options);
  if (!report)
    return {0, 0};
  const nlohmann::json &totals = (*report)["totals"];
  return {totals["kernels"]["fused"].get<int64_t>(), totals["bytes"]["fused"].get<double>()};
}

void printModelRow(const std::string &name, const ModelImport &import) {
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

/// The kernels each architecture needs, as derived in docs/fusion.md
/// ("Fusion quality"): one kernel per GEMM or convolution with everything
/// element-wise around it in its prologue or epilogue, one per attention,
/// per pooling and per normalisation that no GEMM can absorb yet, and no
/// kernel that only moves data.
const std::map<std::string, int64_t> kIdealKernels = {
    // stem conv, max pool, 2 + 3 convs per block (a strided block's 1x1
    // shortcut), global pool, the classifier (its flatten a view).
    {"tiny_resnet", 9},
    // stem conv, max pool, 2 convs per dense layer (5), a transition's conv
    // and average pool, the final BatchNorm-ReLU-mean, the classifier.
    {"densenet_tiny", 16},
    // LayerNorm, QKV GEMM, attention, projection + residual, LayerNorm,
    // FC + GELU, projection + residual.
    {"gpt_block", 7},
    // Two layers of the same seven kernels (post-norm: the LayerNorms after
    // the residual adds).
    {"encoder_pre", 14},
    {"encoder_post", 14},
    // The same layers from the TorchScript exporter (opset 14 spells the
    // LayerNorms out: fuse-form-layer-norm).
    {"encoder_pre_ts17", 14},
    {"encoder_post_ts14", 14},
    // Two post-norm decoder layers of 12: self-attention (QKV GEMM,
    // attention, projection + residual, LayerNorm), cross-attention (Q GEMM,
    // KV GEMM on the memory, attention, projection + residual, LayerNorm),
    // FC + ReLU, FC + residual, LayerNorm.
    {"decoder", 24},
    // QKV GEMM, attention (the padding mask read through views), projection.
    {"mha_padding_mask", 3},
    // The embedding lookup, the padding mask's -inf fill, two post-norm
    // layers of 7, the classifier reading the first token's row in place.
    {"bert_classifier", 17},
    // The patch conv storing its tokens after the class token, two pre-norm
    // layers of 7, the final LayerNorm, the classifier reading the class
    // token's row in place.
    {"vit_tiny", 17},
    // 53 convs (the residual adds in their epilogues), max pool, global
    // pool, the classifier.
    {"resnet50", 56},
    // Stem conv, max pool, 58 dense layers of 2 convs, 3 transitions of a
    // conv and a pool, BatchNorm-ReLU-mean, the classifier.
    {"densenet121", 126},
    // ConvNeXt-T: 18 blocks of depthwise conv + LayerNorm, GEMM + GELU,
    // GEMM + layer scale + residual; stem and 3 downsamplings of a LayerNorm
    // and a conv (one kernel each), pool + LayerNorm and the classifier.
    {"convnext_t", 60},
    // The same architecture with blocks of 2 and 1 and one downsampling.
    {"convnext_tiny", 13},
    // MobileNetV3-Small: the stem conv; 11 inverted residuals of an expand
    // conv (not in the first), the depthwise conv, for 9 of them a
    // squeeze-excitation (pool, FC + ReLU, FC + hard sigmoid; its scale in
    // the project conv's prologue) and the project conv (+ residual); the
    // last conv, the pool, two Linears.
    {"mobilenet_v3_small", 64},
    // EfficientNet-B0: the stem conv, 16 MBConv blocks (the first without
    // an expand conv) each with a squeeze-excitation as above, the head
    // conv, the pool and the classifier.
    {"efficientnet_b0", 99},
    // The U-Net of export-pytorch-models.py: 11 convs, 2 transposed convs
    // (one kernel each), 2 max pools; the skips' concats in place.
    {"unet", 15},
};

struct Quality {
  int64_t kernels = 0, copies = 0, inPlace = 0;
  double bytes = 0;
  /// Why copy kernels stay (the report's reason, without the consumer's
  /// name): how many, and their modeled bytes.
  std::map<std::string, std::pair<int64_t, double>> copyReasons;
};

/// The fused plan of `import` with `options`: kernels, those that only move
/// data (data-movement kernels), concats stored in place, modeled bytes.
Quality qualityOf(const ModelImport &import, const FusionOptions &options) {
  Quality quality;
  std::optional<nlohmann::json> report = fusionReportOf(import, options);
  if (!report)
    return quality;
  quality.kernels = (*report)["totals"]["kernels"]["fused"].get<int64_t>();
  quality.bytes = (*report)["totals"]["bytes"]["fused"].get<double>();
  for (const nlohmann::json &kernel : (*report)["kernels"]) {
    if (kernel.value("in_place", false))
      ++quality.inPlace;
    else if (kernel["kind"] == "data_movement")
      ++quality.copies;
    if (kernel.contains("copy")) {
      static const std::regex consumer("its consumer \\S+ \\(");
      auto &[count, bytes] =
          quality
              .copyReasons[std::regex_replace(kernel["copy"]["reason"].get<std::string>(), consumer, "its consumer (")];
      ++count;
      bytes += kernel["copy"]["bytes"].get<double>();
    }
  }
  return quality;
}

/// Per model and image layout: kernels against the architecture's ideal,
/// kernels that only copy, concats in place, and modeled bytes against the
/// plan with every op its own kernel.
void benchFusionQuality(const std::vector<std::pair<std::string, std::string>> &models) {
  std::printf("\nfusion quality (greedy, H200 profile, cost batch 1; copies = kernels that only move data)\n");
  std::printf("%-18s %6s %8s %6s %7s %9s %9s %14s %14s %8s\n", "model", "layout", "kernels", "ideal", "copies",
              "in-place", "unfused", "bytes fused", "bytes unfused", "ratio");
  std::vector<std::string> copies;
  for (const auto &[name, path] : models) {
    auto import = [&](mlir::MLIRContext &context) {
      if (name == "resnet50")
        return import::buildModule(bench::makeResNet50(), context);
      return importModel(path, context);
    };
    FusionOptions unfusedOptions;
    unfusedOptions.strategy = "none";
    unfusedOptions.disabled = fusionRuleNames();
    const Quality unfused = qualityOf(import, unfusedOptions);
    for (const char *layout : {"nchw", "nhwc"}) {
      FusionOptions options;
      options.layout = layout;
      const Quality fused = qualityOf(import, options);
      auto ideal = kIdealKernels.find(name);
      std::printf("%-18s %6s %8lld %6s %7lld %9lld %9lld %14.0f %14.0f %7.1f%%\n", name.c_str(), layout,
                  static_cast<long long>(fused.kernels),
                  ideal == kIdealKernels.end() ? "-" : std::to_string(ideal->second).c_str(),
                  static_cast<long long>(fused.copies), static_cast<long long>(fused.inPlace),
                  static_cast<long long>(unfused.kernels), fused.bytes, unfused.bytes,
                  unfused.bytes > 0 ? 100.0 * fused.bytes / unfused.bytes : 0.0);
      for (const auto &[reason, figures] : fused.copyReasons) {
        char line[128];
        std::snprintf(line, sizeof(line), "%s %s: %lld (%.0f B): ", name.c_str(), layout,
                      static_cast<long long>(figures.first), figures.second);
        copies.push_back(line + reason);
      }
    }
  }
  // Every copy kernel left says why (the fusion report's `copy`).
  std::printf("\ncopy kernels left, how many, their modeled bytes and why they stay (the fusion report's reasons)\n");
  for (const std::string &line : copies)
    std::printf("  %s\n", line.c_str());
}

/// The model folders (each with a model.onnx) under `dir`, sorted.
std::vector<std::pair<std::string, std::string>> modelsUnder(const std::string &dir) {
  std::vector<std::pair<std::string, std::string>> models;
  if (DIR *handle = opendir(dir.c_str())) {
    while (dirent *entry = readdir(handle))
      if (entry->d_name[0] != '.' && access((dir + "/" + entry->d_name + "/model.onnx").c_str(), R_OK) == 0)
        models.emplace_back(entry->d_name, dir + "/" + entry->d_name + "/model.onnx");
    closedir(handle);
  }
  std::sort(models.begin(), models.end());
  return models;
}

} // namespace

int main(int argc, char **argv) {
  // Figures appear as they are measured, also when piped.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::string modelsDir = FUSEC_MODELS_DIR;
  // The fusion-quality table: PyTorch's exports of the test data, ResNet-50,
  // and models given as --model=NAME=PATH (scripts/export-pytorch-models.py
  // --bench-out writes DenseNet-121, ConvNeXt-T, MobileNetV3-Small,
  // EfficientNet-B0 and a U-Net).
  std::vector<std::pair<std::string, std::string>> qualityModels = modelsUnder(FUSEC_PYTORCH_MODELS_DIR);
  qualityModels.emplace_back("resnet50", "");
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--max-nodes=", 0) == 0) {
      maxNodes = std::stoll(arg.substr(12));
    } else if (arg.rfind("--model=", 0) == 0 && arg.find('=', 8) != std::string::npos) {
      const size_t equals = arg.find('=', 8);
      qualityModels.emplace_back(arg.substr(8, equals - 8), arg.substr(equals + 1));
    } else {
      modelsDir = arg;
    }
  }
  std::printf("fusec fusion benchmark (goals: growth <= 11x per 10x nodes, 100k nodes <= 5 s;\n"
              "ResNet-50 fused bytes <= 40%% of unfused)\n");
  benchScaling("elementwise chains", bench::makeElementwiseChain);
  benchScaling("ResNet-like blocks", bench::makeResidualBlocks);
  benchModels(modelsDir);
  benchFusionQuality(qualityModels);
  return 0;
}
