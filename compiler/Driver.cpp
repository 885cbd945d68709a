//===- Driver.cpp - import -> passes -> plan ------------------------------===//
#include "compiler/Driver.h"
#include "codegen/KernelCompiler.h"
#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/FusionReport.h"
#include "compiler/export/DotExporter.h"
#include "compiler/export/JsonExporter.h"
#include "compiler/import/JsonImporter.h"
#include "compiler/import/OnnxImporter.h"

#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"
#include "ir/OpClassification.h"
#include "ir/ShapeUtils.h"
#include "ir/SliceViews.h"

#include "passes/FusionAttributes.h"
#include "runtime/plan/Plan.h"
#include "runtime/plan/PlanFormat.h"
#include "support/FileIO.h"
#include "support/IndexedBatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fusec {
namespace {

/// Writes text to stdout ("-") or atomically to a file.
LogicalResult writeText(MLIRContext &context, const std::string &path, const std::string &text) {
  if (path == "-") {
    llvm::outs() << text;
    llvm::outs().flush();
    return success();
  }
  try {
    runtime::writeFileAtomically(path, std::vector<uint8_t>(text.begin(), text.end()));
  } catch (const std::exception &error) {
    return emitError(UnknownLoc::get(&context)) << error.what();
  }
  return success();
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  os << "\n";
  return os.str();
}

/// FNV-1a 64 of the model file, recorded in the plan.
uint64_t hashFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return 0;
  StringRef bytes = (*buffer)->getBuffer();
  return fnv1a64(bytes.data(), bytes.size());
}

} // namespace

namespace {
/// `module` (imported with `sizes`) recording the ranges among them, which
/// config selection and the cost model size a range's dimension by.
OwningOpRef<ModuleOp> withRanges(OwningOpRef<ModuleOp> module, const import::DimensionSizes &sizes) {
  std::vector<std::pair<std::string, fuse::SymbolRange>> ranges;
  for (const auto &[name, size] : sizes)
    if (size.isRange())
      ranges.push_back({name, {size.min, size.opt, size.max}});
  if (module && !ranges.empty())
    fuse::setSymbolRanges(*module, ranges);
  return module;
}
} // namespace

OwningOpRef<ModuleOp> importModel(StringRef path, MLIRContext &context, const import::DimensionSizes &sizes) {
  StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".json")
    return withRanges(import::importJsonModel(path, context, sizes), sizes);
  if (extension == ".onnx")
    return withRanges(import::importOnnxModel(path, context, sizes), sizes);
  if (extension == ".mlir") {
    if (!sizes.empty()) {
      emitError(FileLineColLoc::get(&context, path, 0, 0))
          << "dimension sizes apply to .json and .onnx models; a .mlir module's types are already resolved";
      return nullptr;
    }
    return parseSourceFile<ModuleOp>(path, &context);
  }
  emitError(FileLineColLoc::get(&context, path, 0, 0))
      << "unknown model format '" << extension << "' (expected .json, .onnx or .mlir)";
  return nullptr;
}

std::unique_ptr<MLIRContext> createContext() {
  DialectRegistry registry;
  registerDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // Diagnostics name the file and node; dumping the (half-built) op adds noise.
  context->printOpOnDiagnostic(false);
  return context;
}

namespace {
const char *emitKindName(EmitKind kind) {
  switch (kind) {
  case EmitKind::Mlir:
    return "mlir";
  case EmitKind::FusedMlir:
    return "fused-mlir";
  case EmitKind::Json:
    return "json";
  case EmitKind::Plan:
    return "plan";
  case EmitKind::Cuda:
    return "cuda";
  case EmitKind::Dot:
    return "dot";
  }
  return "?";
}

/// The one size `options` gives each named dimension, or an error naming
/// what asks for one.
FailureOr<import::DimensionSizes> singleSizes(MLIRContext &context, const DriverOptions &options, StringRef what) {
  std::vector<import::DimensionSizes> combinations = dimensionCombinations(options.dimensionSizes);
  if (combinations.size() == 1)
    return combinations.front();
  return emitError(FileLineColLoc::get(&context, options.inputPath, 0, 0))
         << what << " takes one size per named dimension; several (--dim NAME=A,B) make a plan of shape variants";
}
} // namespace

OwningOpRef<ModuleOp> importAndFuse(MLIRContext &context, const DriverOptions &options) {
  FailureOr<import::DimensionSizes> sizes = singleSizes(context, options, "importing a model for the fusion pipeline");
  if (failed(sizes))
    return nullptr;
  return importAndFuse(context, options, *sizes);
}

namespace {
/// Runs the fusion pipeline of `fusion` on `module`.
LogicalResult runFusionPipeline(MLIRContext &context, ModuleOp module, const FusionOptions &fusion) {
  PassManager pm(&context);
  buildFusionPipeline(pm, fusion);
  return pm.run(module);
}

/// Whether `module` has a convolution or a pooling op: an image network,
/// for which the layout between them is a choice.
bool hasImageOps(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        const fuse::OpClass opClass = fuse::classifyOp(op);
        return opClass == fuse::OpClass::Conv || opClass == fuse::OpClass::Pool ? WalkResult::interrupt()
                                                                                : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The cost model's time of `module`'s fused kernels, in microseconds.
double modeledMicroseconds(ModuleOp module) {
  return buildFusionReport(module)["totals"]["time_us"]["fused"].get<double>();
}

/// Records the layout chosen for `module` and why in its fusion config
/// (the fusion report's `layout` and `layout_choice`).
void recordLayout(ModuleOp module, StringRef layout, const std::string &why) {
  module.walk([&](func::FuncOp func) {
    NamedAttrList config;
    if (auto existing = func->getAttrOfType<DictionaryAttr>(kFusionConfigAttr))
      config.append(existing.getValue());
    Builder builder(module.getContext());
    config.set("layout", builder.getStringAttr(layout));
    config.set("layout_choice", builder.getStringAttr(why));
    func->setAttr(kFusionConfigAttr, config.getDictionary(module.getContext()));
  });
}
} // namespace

OwningOpRef<ModuleOp> importAndFuse(MLIRContext &context, const DriverOptions &options,
                                    const import::DimensionSizes &sizes, std::string *chosenLayout) {
  if (options.progress)
    llvm::errs() << "fusec: importing " << options.inputPath << "\n";
  OwningOpRef<ModuleOp> module = importModel(options.inputPath, context, sizes);
  if (!module)
    return nullptr;
  if (options.progress)
    llvm::errs() << "fusec: fusing (" << options.fusion.strategy << ")\n";
  // The kernels' templates follow the architecture they are compiled for.
  FusionOptions fusion = options.fusion;
  fusion.target = options.plan.target;
  if (fusion.layout == "auto") {
    // An image network is fused both ways, and the cost model's faster one
    // kept (ties stay NCHW, the layout the model gives); anything else has
    // no layout to choose.
    fusion.layout = "nchw";
    if (hasImageOps(*module)) {
      OwningOpRef<ModuleOp> channelsLast = module->clone();
      FusionOptions nhwc = fusion;
      nhwc.layout = "nhwc";
      if (failed(runFusionPipeline(context, *module, fusion)) ||
          failed(runFusionPipeline(context, *channelsLast, nhwc)))
        return nullptr;
      const double nchwUs = modeledMicroseconds(*module), nhwcUs = modeledMicroseconds(*channelsLast);
      char why[128];
      std::snprintf(why, sizeof(why), "modeled %.2f us in nchw, %.2f us in nhwc", nchwUs, nhwcUs);
      if (nhwcUs < nchwUs) {
        module = std::move(channelsLast);
        fusion.layout = "nhwc";
      }
      recordLayout(*module, fusion.layout, why);
      if (chosenLayout)
        *chosenLayout = fusion.layout;
      return module;
    }
  }
  if (chosenLayout)
    *chosenLayout = fusion.layout;
  if (failed(runFusionPipeline(context, *module, fusion)))
    return nullptr;
  return module;
}

namespace {
/// Emits CUDA C++ for every superkernel of `module`: per superkernel, its
/// kernel and then its variants' kernels.
FailureOr<std::vector<std::vector<codegen::GeneratedKernel>>> generateKernels(ModuleOp module) {
  std::vector<std::vector<codegen::GeneratedKernel>> kernels;
  WalkResult walk = module.walk([&](fuse::SuperkernelOp superkernel) {
    // Its operands' kernels store the concatenation, or its result is its
    // operand's bytes: nothing to run.
    if (fuse::isInPlace(superkernel) || fuse::isAlias(superkernel))
      return WalkResult::advance();
    auto emitted = codegen::emitKernelVariants(superkernel);
    if (failed(emitted))
      return WalkResult::interrupt();
    kernels.push_back(std::move(*emitted));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return kernels;
}

/// Writes `text` to `dir/name`, creating `dir`.
LogicalResult writeInto(MLIRContext &context, const std::string &dir, const std::string &name,
                        const std::string &text) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return emitError(FileLineColLoc::get(&context, dir, 0, 0)) << "cannot create directory: " << error.message();
  return writeText(context, dir + "/" + name, text);
}

/// The plan for a fused `module`; its weights stay in `module`.
FailureOr<PlanContents> lowerToContents(MLIRContext &context, ModuleOp module, const DriverOptions &options,
                                        const import::DimensionSizes &sizes = {},
                                        std::map<uint64_t, codegen::CompiledKernel> *memo = nullptr) {
  PlanOptions planOptions = options.plan;
  planOptions.sourceHash = hashFile(options.inputPath);
  planOptions.dims = import::fixedSizes(sizes);
  for (const auto &[name, size] : sizes)
    if (size.isRange())
      planOptions.ranges.push_back({name, size.min, size.opt, size.max});
  if (planOptions.target != "cpu") {
    auto kernels = generateKernels(module);
    if (failed(kernels))
      return failure();
    // A kernel and its variants are one NVRTC program.
    std::vector<codegen::GeneratedKernel> programs;
    for (const std::vector<codegen::GeneratedKernel> &variants : *kernels)
      programs.push_back(codegen::joinVariants(variants));
    codegen::CompileOptions compileOptions;
    compileOptions.arch = planOptions.target;
    if (options.progress)
      compileOptions.progress = [](size_t done, size_t total) {
        llvm::errs() << "\rfusec: compiling kernels " << done << "/" << total << (done == total ? "\n" : "");
        llvm::errs().flush();
      };
    compileOptions.cacheDir = options.kernelCacheDir;
    compileOptions.dumpDir = options.dumpDir;
    compileOptions.memo = memo;
    std::string error;
    codegen::CompileStats stats;
    auto compiled = codegen::compileKernels(programs, compileOptions, error, &stats);
    if (!error.empty())
      return emitError(FileLineColLoc::get(&context, options.inputPath, 0, 0)) << error;
    size_t functions = 0;
    for (size_t i = 0; i < programs.size(); ++i) {
      const std::vector<codegen::GeneratedKernel> &variants = (*kernels)[i];
      if (!options.dumpDir.empty())
        for (const codegen::GeneratedKernel &kernel : variants)
          if (failed(writeInto(context, options.dumpDir, kernel.name + ".cu", kernel.source)))
            return failure();
      if (!options.dumpDir.empty() &&
          failed(writeInto(context, options.dumpDir, programs[i].name + ".ptx", compiled[i].ptx)))
        return failure();
      KernelArtifact &artifact = planOptions.kernels[programs[i].name];
      artifact = {variants.front(), compiled[i], {}};
      for (size_t variant = 1; variant < variants.size(); ++variant) {
        // The program's images, entered at the variant's function (named
        // after the program's first, which a duplicate program shares).
        codegen::CompiledKernel entered = compiled[i];
        entered.entry = codegen::variantFunctionName(compiled[i].entry, variant);
        artifact.variants.push_back({variants[variant], std::move(entered), {}});
      }
      functions += variants.size();
    }
    if (options.verbose)
      llvm::errs() << "fusec: " << programs.size() << " kernels for " << planOptions.target << " (and "
                   << functions - programs.size()
                   << " variants, each compiled in its kernel's program): " << stats.compiled << " compiled by NVRTC "
                   << codegen::nvrtcVersion() << ", " << stats.cached << " from the cache, " << stats.deduplicated
                   << " duplicates (" << llvm::format("%.2f", stats.nvrtcSeconds) << " s)\n";
  }
  return planContentsOf(module, planOptions);
}

/// lowerToContents' plan, encoded and verified.
FailureOr<plan::EncodedPlan> lowerToPlan(MLIRContext &context, ModuleOp module, const DriverOptions &options,
                                         const import::DimensionSizes &sizes = {}) {
  FailureOr<PlanContents> contents = lowerToContents(context, module, options, sizes);
  if (failed(contents))
    return failure();
  return encodeVerifiedPlan(module.getLoc(), std::move(*contents));
}

FailureOr<std::vector<uint8_t>> bytesOf(FailureOr<plan::EncodedPlan> plan) {
  if (failed(plan))
    return failure();
  return plan->bytes();
}

LogicalResult writeCuda(MLIRContext &context, ModuleOp module, const DriverOptions &options) {
  auto kernels = generateKernels(module);
  if (failed(kernels))
    return failure();
  for (const codegen::DeviceHeader &header : codegen::deviceHeaders())
    if (failed(writeInto(context, options.outputPath, header.name, header.text)))
      return failure();
  for (const std::vector<codegen::GeneratedKernel> &variants : *kernels)
    for (const codegen::GeneratedKernel &kernel : variants)
      if (failed(writeInto(context, options.outputPath, kernel.name + ".cu", kernel.source)))
        return failure();
  return success();
}

/// Writes the fusion report and prints the summary, as the options ask.
LogicalResult reportFusion(MLIRContext &context, ModuleOp module, const DriverOptions &options) {
  if (options.fusionReportPath.empty() && !options.verbose)
    return success();
  nlohmann::json report = buildFusionReport(module);
  if (options.verbose)
    llvm::errs() << summarizeFusionReport(report);
  if (options.fusionReportPath.empty())
    return success();
  return writeText(context, options.fusionReportPath, report.dump(2) + "\n");
}
} // namespace

std::string checkDriverOptions(const DriverOptions &options) {
  const std::string &precision = options.fusion.precision;
  if (precision != "fp32" && precision != "tf32" && precision != "fp16" && precision != "bf16")
    return "precision must be fp32, tf32, fp16 or bf16, got '" + precision + "'";
  const std::string &io = options.fusion.ioPrecision;
  if (!io.empty() && io != precision)
    return "io-precision must be fp32 or the precision's half type ('" +
           (precision == "fp16" || precision == "bf16" ? precision : std::string("fp16 or bf16")) +
           "' with precision " + precision + "), got '" + io + "'";
  if (options.fusion.layout != "auto" && options.fusion.layout != "nchw" && options.fusion.layout != "nhwc")
    return "layout must be auto, nchw or nhwc, got '" + options.fusion.layout + "'";
  const std::string &tactics = options.fusion.tactics;
  if (tactics != "generated,library" && tactics != "library,generated" && tactics != "generated" &&
      tactics != "library")
    return "tactics must be generated,library, generated or library, got '" + tactics + "'";
  if (options.fusion.kernelVariants < 1)
    return "kernel-variants must be >= 1, got " + std::to_string(options.fusion.kernelVariants);
  if (options.fusion.costBatch < 1)
    return "cost-batch must be >= 1, got " + std::to_string(options.fusion.costBatch);
  if (options.plan.batchBuckets.empty())
    return "batch-buckets needs at least one bucket";
  for (int64_t bucket : options.plan.batchBuckets) {
    if (bucket < 1)
      return "batch-buckets needs positive integers, got '" + std::to_string(bucket) + "'";
    if (bucket > kLargestIndexedBatch)
      return "batch-buckets are at most " + std::to_string(kLargestIndexedBatch) +
             " (the batch generated kernels index), got '" + std::to_string(bucket) + "'";
  }
  for (const auto &[name, sizes] : options.dimensionSizes) {
    if (name.empty() || sizes.empty())
      return "dim needs NAME=SIZE or NAME=SIZE,SIZE,... with a name and sizes, got '" + name + "='";
    for (size_t i = 0; i < sizes.size(); ++i) {
      const import::DimensionSize &size = sizes[i];
      if (size.min < 1 || size.max > (int64_t(1) << 31))
        return "dim needs NAME=SIZE with a name and a size from 1 to 2^31, got '" + name + "=" + size.str() + "'";
      if (size.min > size.opt || size.opt > size.max)
        return "dim needs a range MIN:MAX or MIN:OPT:MAX with MIN <= OPT <= MAX, got '" + name + "=" + size.str() + "'";
      if (size.isRange() && sizes.size() > 1)
        return "dim gives '" + name +
               "' a range and other sizes: a range is one plan for all of its sizes, "
               "listed with no others";
      if (size.isRange() && name == fuse::kBatchSymbolName)
        return "dim cannot give 'batch' a range: the batch is the plan's dynamic dimension already";
      if (std::find(sizes.begin(), sizes.begin() + i, size) != sizes.begin() + i)
        return "dim gives " + name + "=" + size.str() + " twice";
    }
  }
  if (countDimensionCombinations(options.dimensionSizes) > kMaxShapeVariants)
    return "dim sizes make more than " + std::to_string(kMaxShapeVariants) +
           " combinations, each a whole compile; a plan holds at most that many shape variants";
  return "";
}

namespace {
/// The plan of every combination of named dimension sizes: one plan, or
/// one holding each as a shape variant. The first variant's fused module
/// is reported as `reportFusion` asks.
FailureOr<std::vector<uint8_t>>
compileShapeVariants(MLIRContext &context, const DriverOptions &options,
                     llvm::function_ref<LogicalResult(ModuleOp)> reportFusion = nullptr) {
  const std::vector<import::DimensionSizes> combinations = dimensionCombinations(options.dimensionSizes);
  const Location location = FileLineColLoc::get(&context, options.inputPath, 0, 0);
  ShapeVariantMerger merger;
  // Every variant takes the layout the first one chose (--layout=auto):
  // the variants share their weights, which the layout arranges.
  DriverOptions variantOptions = options;
  // Kernels whose sizes are arguments compile once for every variant.
  std::map<uint64_t, codegen::CompiledKernel> memo;
  for (size_t i = 0; i < combinations.size(); ++i) {
    if (options.progress && combinations.size() > 1)
      llvm::errs() << "fusec: shape variant " << i + 1 << "/" << combinations.size() << " ("
                   << import::formatSizes(combinations[i]) << ")\n";
    // One module at a time: each is dropped once its plan is encoded.
    OwningOpRef<ModuleOp> module =
        importAndFuse(context, variantOptions, combinations[i], i == 0 ? &variantOptions.fusion.layout : nullptr);
    if (!module)
      return failure();
    if (i == 0 && reportFusion && failed(reportFusion(*module)))
      return failure();
    FailureOr<PlanContents> contents = lowerToContents(context, *module, options, combinations[i], &memo);
    if (failed(contents))
      return failure();
    if (combinations.size() == 1)
      return bytesOf(encodeVerifiedPlan(location, std::move(*contents)));
    // The variant's weights and images are copied into the merged sections
    // here, before its module (which its weight pieces view) is dropped.
    try {
      merger.add(*contents);
    } catch (const std::exception &error) {
      return emitError(location) << "cannot join the shape variants into one plan: " << error.what();
    }
  }
  PlanContents merged;
  try {
    merged = merger.finish();
  } catch (const std::exception &error) {
    return emitError(location) << "cannot join the shape variants into one plan: " << error.what();
  }
  return bytesOf(encodeVerifiedPlan(location, std::move(merged)));
}
} // namespace

FailureOr<std::vector<uint8_t>> compileToPlan(MLIRContext &context, const DriverOptions &options,
                                              nlohmann::json *fusionReport) {
  return compileShapeVariants(context, options, [&](ModuleOp module) {
    if (fusionReport)
      *fusionReport = buildFusionReport(module);
    return success();
  });
}

FailureOr<std::vector<uint8_t>> compileModuleToPlan(MLIRContext &context, ModuleOp module,
                                                    const DriverOptions &options) {
  PassManager pm(&context);
  buildFusionPipeline(pm, options.fusion);
  if (failed(pm.run(module)))
    return failure();
  return bytesOf(lowerToPlan(context, module, options));
}

int runDriver(const DriverOptions &options) {
  auto context = createContext();
  FusecDiagnosticHandler diagnostics(context.get());

  if (options.emit != EmitKind::Plan &&
      failed(singleSizes(*context, options, std::string("--emit=") + emitKindName(options.emit))))
    return 1;
  if (options.emit == EmitKind::Plan && dimensionCombinations(options.dimensionSizes).size() > 1) {
    FailureOr<std::vector<uint8_t>> plan = compileShapeVariants(
        *context, options, [&](ModuleOp module) { return reportFusion(*context, module, options); });
    if (failed(plan))
      return 1;
    try {
      runtime::writeFileAtomically(options.outputPath, *plan);
    } catch (const std::exception &error) {
      emitError(UnknownLoc::get(context.get())) << error.what();
      return 1;
    }
    if (options.verbose)
      llvm::errs() << "fusec: wrote " << options.outputPath << " (" << plan->size() << " bytes, "
                   << dimensionCombinations(options.dimensionSizes).size() << " shape variants)\n";
    return 0;
  }

  if (options.emit == EmitKind::Mlir || options.emit == EmitKind::Json) {
    OwningOpRef<ModuleOp> module =
        importModel(options.inputPath, *context, dimensionCombinations(options.dimensionSizes).front());
    if (!module)
      return 1;
    if (!options.dumpDir.empty() && failed(writeInto(*context, options.dumpDir, "imported.mlir", printModule(*module))))
      return 1;
    if (options.emit == EmitKind::Json)
      return failed(exportJsonModel(*module, options.outputPath));
    return failed(writeText(*context, options.outputPath, printModule(*module)));
  }

  OwningOpRef<ModuleOp> module = importAndFuse(*context, options);
  if (!module || failed(reportFusion(*context, *module, options)))
    return 1;
  if (!options.dumpDir.empty() && failed(writeInto(*context, options.dumpDir, "fused.mlir", printModule(*module))))
    return 1;
  if (options.emit == EmitKind::FusedMlir)
    return failed(writeText(*context, options.outputPath, printModule(*module)));
  if (options.emit == EmitKind::Cuda)
    return failed(writeCuda(*context, *module, options));
  if (options.emit == EmitKind::Dot)
    return failed(writeText(*context, options.outputPath, exportDot(*module)));

  auto plan = lowerToPlan(*context, *module, options, dimensionCombinations(options.dimensionSizes).front());
  if (failed(plan))
    return 1;
  try {
    runtime::writeRangesAtomically(options.outputPath, plan->ranges());
  } catch (const std::exception &error) {
    emitError(UnknownLoc::get(context.get())) << error.what();
    return 1;
  }
  if (options.verbose)
    llvm::errs() << "fusec: wrote " << options.outputPath << " (" << plan->fileSize() << " bytes)\n";
  return 0;
}

} // namespace fusec
