//===- fusec.cpp - The fusec command line ---------------------------------===//
//
// Argument parsing only; the work happens in compiler/Driver.
//
//===----------------------------------------------------------------------===//
#include "codegen/KernelCompiler.h"
#include "compiler/Driver.h"
#include "compiler/Plugins.h"
#include "compiler/Version.h"
#include "compiler/import/OnnxImporter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace {
cl::OptionCategory fusecCategory("fusec options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.json | model.onnx | model.mlir>"),
                               cl::cat(fusecCategory));
cl::opt<std::string>
    outputPath("o", cl::value_desc("path"),
               cl::desc("Output file, '-' for stdout (text outputs only), a directory for --emit=cuda. "
                        "Default: the input's name with .plan (or .json) in the current directory; "
                        "stdout for --emit=mlir and --emit=fused-mlir"),
               cl::cat(fusecCategory));
cl::opt<fusec::EmitKind>
    emit("emit", cl::desc("What to produce"), cl::init(fusec::EmitKind::Plan),
         cl::values(clEnumValN(fusec::EmitKind::Plan, "plan", "the executable model.plan (default)"),
                    clEnumValN(fusec::EmitKind::Mlir, "mlir", "the imported, verified fuse IR"),
                    clEnumValN(fusec::EmitKind::FusedMlir, "fused-mlir", "the IR after fusion"),
                    clEnumValN(fusec::EmitKind::Json, "json",
                               "the fusec-graph JSON format, weights in a .safetensors beside it"),
                    clEnumValN(fusec::EmitKind::Cuda, "cuda", "the generated CUDA C++ kernels: -o names a directory"),
                    clEnumValN(fusec::EmitKind::Dot, "dot",
                               "the fused graph as Graphviz DOT, kernels as labelled clusters")),
         cl::cat(fusecCategory));
cl::list<std::string> dimensionSizes("dim", cl::value_desc("name=size[,size...] or name=min:[opt:]max"),
                                     cl::desc("Read the named input dimension (an ONNX dim_param, a JSON shape string) "
                                              "as this size: several sizes compile a shape variant each, in one "
                                              "plan; a range min:max (or min:opt:max) compiles one variant that runs "
                                              "every size in it (--target=cpu); may repeat"),
                                     cl::cat(fusecCategory));
cl::opt<std::string> batchBuckets("batch-buckets", cl::init("1,2,4,8,16"), cl::value_desc("n,n,..."),
                                  cl::desc("Batch sizes the runtime prepares (one CUDA graph each)"),
                                  cl::cat(fusecCategory));
cl::opt<std::string> target("target", cl::init("sm_90"), cl::value_desc("sm_XX|cpu"),
                            cl::desc("GPU architecture the kernels are compiled for by NVRTC (CUBIN for it, PTX for "
                                     "others); 'cpu' writes a plan without kernel images"),
                            cl::cat(fusecCategory));
cl::opt<std::string> kernelCache("kernel-cache", cl::value_desc("dir"),
                                 cl::desc("Reuse compiled kernels from this directory (default: $FUSEC_CACHE_DIR, else "
                                          "$XDG_CACHE_HOME/fusec/kernels, else ~/.cache/fusec/kernels)"),
                                 cl::cat(fusecCategory));
cl::opt<bool> noKernelCache("no-kernel-cache", cl::desc("Compile every kernel afresh"), cl::cat(fusecCategory));
cl::opt<std::string> dumpDir("dump-dir", cl::value_desc("dir"),
                             cl::desc("Write the imported or fused MLIR and every kernel's .cu and .ptx here"),
                             cl::cat(fusecCategory));
cl::list<std::string> disableFusion("disable-fusion", cl::CommaSeparated, cl::value_desc("name,..."),
                                    cl::desc("Turn off fusion rules by name (see --list-fusion-rules)"),
                                    cl::cat(fusecCategory));
cl::opt<std::string> fusionStrategy("fusion-strategy", cl::init("greedy"), cl::value_desc("greedy|dp|none"),
                                    cl::desc("How the planner chooses fusions: greedy by estimated benefit, dynamic "
                                             "programming (optimal on chains), or none (every op its own kernel)"),
                                    cl::cat(fusecCategory));
cl::opt<std::string> deviceProfile("device-profile", cl::init("h200"), cl::value_desc("h200|h100|a100|FILE.json"),
                                   cl::desc("GPU the cost model prices kernels for: a built-in profile or a JSON file"),
                                   cl::cat(fusecCategory));
cl::opt<std::string> costModel("cost-model", cl::init("roofline"), cl::value_desc("name"),
                               cl::desc("Cost model used by the planner"), cl::cat(fusecCategory));
cl::opt<int64_t> costBatch("cost-batch", cl::init(1), cl::value_desc("n"),
                           cl::desc("Batch size at which the cost model prices tensors"), cl::cat(fusecCategory));
cl::opt<int64_t> kernelVariants("kernel-variants", cl::init(1), cl::value_desc("n"),
                                cl::desc("Configs each tensor-core conv/GEMM kernel is compiled with, the chosen one "
                                         "included, for `fuserun --tune` to time (each costs about as much NVRTC "
                                         "time as the kernel); 1: the chosen one only"),
                                cl::cat(fusecCategory));
cl::opt<std::string> tactics("tactics", cl::init("generated,library"),
                             cl::value_desc("generated,library|generated|library"),
                             cl::desc("Forms of conv/GEMM kernels the plan carries: a vendor-library (cuBLASLt) "
                                      "variant beside each generated kernel a library can compute, the cost model "
                                      "choosing the default (generated,library); generated kernels only; or the "
                                      "library variant as default wherever there is one (library)"),
                             cl::cat(fusecCategory));
cl::opt<std::string> layout("layout", cl::init("auto"), cl::value_desc("auto|nchw|nhwc"),
                            cl::desc("Image layout between convolutions and pools: auto (the default: an image "
                                     "network is fused both ways and the layout the cost model prices faster kept, "
                                     "NCHW on a tie), nchw (as the model gives it) or nhwc (channels-last: "
                                     "implicit-GEMM convs copy 16-byte vectors of channels; the model's inputs and "
                                     "outputs keep their layout)"),
                            cl::cat(fusecCategory));
cl::opt<std::string> precision("precision", cl::init("fp32"), cl::value_desc("fp32|tf32|fp16|bf16"),
                               cl::desc("Conv/GEMM arithmetic: fp32 (tensor cores with the 3xTF32 split: fp32 "
                                        "accuracy), tf32 (one TF32 product: 3x the tensor-core rate, ~1e-3 error), "
                                        "or fp16/bf16 (automatic mixed precision, docs/precision.md: half-precision "
                                        "tensors and weights, f32 accumulation and normalisations)"),
                               cl::cat(fusecCategory));
cl::opt<std::string> ioPrecision("io-precision", cl::init("fp32"), cl::value_desc("fp32|fp16|bf16"),
                                 cl::desc("Element type of the model's float inputs and outputs: fp32 (the default, "
                                          "whatever --precision is) or the --precision half type"),
                                 cl::cat(fusecCategory));
cl::opt<std::string>
    fusionReport("fusion-report", cl::value_desc("FILE.json"),
                 cl::desc("Write every fused group and every rejected candidate, with the numbers that decided"),
                 cl::cat(fusecCategory));
cl::list<std::string> plugins("plugin", cl::value_desc("lib.so"),
                              cl::desc("Load a fusion plugin (patterns, cost models, strategies); may repeat"),
                              cl::cat(fusecCategory));
cl::opt<bool> quiet("quiet", cl::desc("Print no progress on stderr"), cl::cat(fusecCategory));
cl::opt<bool> listFusionRules("list-fusion-rules", cl::desc("Print the fusion rule names and exit"),
                              cl::cat(fusecCategory));
cl::opt<bool> listOnnxOps("list-onnx-ops", cl::desc("Print the ONNX op types fusec reads and exit"),
                          cl::cat(fusecCategory));
cl::opt<bool> verbose("v", cl::desc("Print a fusion summary and what was written"), cl::cat(fusecCategory));

std::string defaultOutput(fusec::EmitKind kind) {
  llvm::SmallString<128> name(llvm::sys::path::filename(inputPath.getValue()));
  switch (kind) {
  case fusec::EmitKind::Plan:
    llvm::sys::path::replace_extension(name, "plan");
    break;
  case fusec::EmitKind::Json:
    llvm::sys::path::replace_extension(name, "json");
    break;
  case fusec::EmitKind::Dot:
    llvm::sys::path::replace_extension(name, "dot");
    break;
  default:
    return "-";
  }
  return name.str().str();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(fusecCategory);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << FUSEC_VERSION_STRING << "\n"
       << "reads ONNX (ai.onnx opsets " << fusec::import::kMinOnnxOpset << " to " << fusec::import::kMaxOnnxOpset
       << ") and fusec's JSON graphs\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "fusec: compile a model into a fused model.plan\n");

  fusec::DriverOptions options;
  options.inputPath = inputPath;
  options.emit = emit;
  options.outputPath = outputPath.empty() ? defaultOutput(emit) : outputPath.getValue();
  options.verbose = verbose;
  options.fusionReportPath = fusionReport;
  options.dumpDir = dumpDir;
  // Long compiles show where they are, when someone is watching.
  options.progress = !quiet && llvm::errs().is_displayed();
  options.kernelCacheDir = noKernelCache         ? std::string()
                           : kernelCache.empty() ? fusec::codegen::defaultKernelCacheDir()
                                                 : kernelCache.getValue();
  options.fusion.strategy = fusionStrategy;
  options.fusion.deviceProfile = deviceProfile;
  options.fusion.costModel = costModel;
  options.fusion.costBatch = costBatch;
  options.fusion.kernelVariants = kernelVariants;
  options.fusion.tactics = tactics;
  options.fusion.layout = layout;
  options.fusion.precision = precision;
  options.fusion.ioPrecision = ioPrecision == "fp32" ? "" : ioPrecision.getValue();
  options.plan.target = target;
  options.plan.batchBuckets.clear();
  for (llvm::StringRef item : llvm::split(batchBuckets.getValue(), ',')) {
    int64_t bucket = 0;
    if (item.trim().getAsInteger(10, bucket) || bucket < 1) {
      llvm::errs() << "fusec: error: --batch-buckets needs positive integers, got '" << item << "'\n";
      return 2;
    }
    options.plan.batchBuckets.push_back(bucket);
  }
  for (llvm::StringRef item : dimensionSizes) {
    auto [name, sizesText] = item.split('=');
    llvm::SmallVector<llvm::StringRef> sizeTexts;
    sizesText.split(sizeTexts, ',');
    std::vector<fusec::import::DimensionSize> sizes;
    for (llvm::StringRef sizeText : sizeTexts) {
      // SIZE, or a range MIN:MAX or MIN:OPT:MAX (OPT defaults to MAX).
      llvm::SmallVector<llvm::StringRef> bounds;
      sizeText.split(bounds, ':');
      llvm::SmallVector<int64_t> values;
      for (llvm::StringRef bound : bounds) {
        int64_t value = 0;
        if (bound.trim().getAsInteger(10, value))
          break;
        values.push_back(value);
      }
      if (name.trim().empty() || values.size() != bounds.size() || values.size() > 3) {
        llvm::errs() << "fusec: error: --dim needs NAME=SIZE, NAME=SIZE,SIZE,... or a range NAME=MIN:MAX or "
                        "NAME=MIN:OPT:MAX, got '"
                     << item << "'\n";
        return 2;
      }
      if (values.size() == 1)
        sizes.push_back(values[0]);
      else
        sizes.push_back(fusec::import::DimensionSize::range(values[0], values.size() == 3 ? values[1] : values.back(),
                                                            values.back()));
    }
    if (!options.dimensionSizes.emplace(name.trim().str(), sizes).second) {
      llvm::errs() << "fusec: error: --dim gives '" << name.trim() << "' twice\n";
      return 2;
    }
  }
  if (std::string invalid = fusec::checkDriverOptions(options); !invalid.empty()) {
    llvm::errs() << "fusec: error: --" << invalid << "\n";
    return 2;
  }
  llvm::sort(options.plan.batchBuckets);
  options.plan.batchBuckets.erase(std::unique(options.plan.batchBuckets.begin(), options.plan.batchBuckets.end()),
                                  options.plan.batchBuckets.end());
  for (const std::string &plugin : plugins) {
    std::string error;
    if (!fusec::loadFusionPlugin(plugin, error)) {
      llvm::errs() << "fusec: error: " << error << "\n";
      return 1;
    }
  }
  auto known = fusec::fusionRuleNames();
  if (listOnnxOps) {
    for (const std::string &name : fusec::import::readableOnnxOps())
      llvm::outs() << name << "\n";
    return 0;
  }
  if (listFusionRules) {
    for (const std::string &name : known)
      llvm::outs() << name << "\n";
    return 0;
  }
  if (inputPath.empty()) {
    llvm::errs() << "fusec: error: no input model (see --help)\n";
    return 2;
  }
  for (const std::string &name : disableFusion) {
    if (!llvm::is_contained(known, name)) {
      llvm::errs() << "fusec: error: unknown fusion rule '" << name << "' (see --list-fusion-rules)\n";
      return 2;
    }
    options.fusion.disabled.push_back(name);
  }
  if (options.emit == fusec::EmitKind::Json && options.outputPath == "-") {
    llvm::errs() << "fusec: error: --emit=json writes two files; give -o model.json\n";
    return 2;
  }
  if (options.emit == fusec::EmitKind::Plan && options.outputPath == "-") {
    llvm::errs() << "fusec: error: a plan is binary; give -o model.plan\n";
    return 2;
  }
  if (options.emit == fusec::EmitKind::Cuda && (outputPath.empty() || outputPath == "-")) {
    llvm::errs() << "fusec: error: --emit=cuda writes a directory; give -o DIR\n";
    return 2;
  }
  return fusec::runDriver(options);
}
