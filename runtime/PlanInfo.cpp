//===- PlanInfo.cpp - Describe a plan for people and scripts ----------------===//

#include "runtime/PlanInfo.h"

#include "runtime/Error.h"

#include <optional>
#include <sstream>

namespace fusec::runtime {

using nlohmann::json;

namespace {

json describeTensors(const std::vector<TensorDesc> &tensors) {
  json list = json::array();
  for (const TensorDesc &tensor : tensors)
    list.push_back({{"name", tensor.name}, {"dtype", elementTypeName(tensor.dtype)}, {"shape", tensor.shape}});
  return list;
}

void printTensors(std::ostream &out, const char *title, const json &tensors,
                  const std::vector<DimensionRange> &ranges) {
  out << title << ":\n";
  for (const json &tensor : tensors)
    out << "  " << tensor["name"].get<std::string>() << "  " << tensor["dtype"].get<std::string>() << " "
        << formatShape(tensor["shape"].get<Shape>(), ranges) << "\n";
}

std::vector<DimensionRange> rangesOf(const json &description) {
  std::vector<DimensionRange> ranges;
  if (description.contains("ranges"))
    for (const json &range : description["ranges"])
      ranges.push_back({range["name"].get<std::string>(), range["min"].get<int64_t>(), range["opt"].get<int64_t>(),
                        range["max"].get<int64_t>()});
  return ranges;
}

} // namespace

std::string planPrecision(const Plan &plan) {
  bool f16 = false, bf16 = false, tf32 = false;
  for (const KernelDesc &kernel : plan.kernels()) {
    for (ElementType type : kernel.valueTypes) {
      f16 = f16 || type == ElementType::F16;
      bf16 = bf16 || type == ElementType::BF16;
    }
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant)
      tf32 = tf32 || kernel.configOf(variant).find("precision = \"tf32\"") != std::string::npos;
  }
  if (f16 || bf16)
    return f16 && bf16 ? "fp16+bf16" : f16 ? "fp16" : "bf16";
  return tf32 ? "tf32" : "fp32";
}

json describePlan(const Plan &root, int64_t batch, const std::map<std::string, int64_t> &dims) {
  const Plan *found = dims.empty() ? &root : root.findShapeVariant(dims);
  std::optional<Plan> specialized;
  if (!found && !dims.empty() && !root.ranges().empty()) {
    // A plan with ranges, described at the sizes `dims` gives them.
    specialized = root.specializeAt(dims);
    found = &*specialized;
  }
  if (!found)
    throw Error(root.sourceName() + ": no shape variant for " + formatDims(dims) + " (the plan holds " +
                root.describeShapeVariants() + ")");
  const Plan &plan = *found;
  const PlanManifest &manifest = plan.manifest();
  json kernels = json::array();
  // Conv/GEMM kernels with a library variant, and those without (and why).
  size_t withLibrary = 0;
  json withoutLibrary = json::array();
  for (const KernelDesc &kernel : manifest.kernels) {
    json ops = json::array();
    for (const OpDesc &op : kernel.ops)
      ops.push_back(op.op);
    json entry = {{"name", kernel.name}, {"kind", kernel.kind}, {"ops", ops}};
    if (!kernel.config.empty())
      entry["config"] = kernel.config;
    // Kernels whose code differs only in sizes they take as arguments run
    // one compiled function: its name, and the kernel's own sizes.
    if (!kernel.images.empty() && kernel.images.front().entry != kernel.name)
      entry["runs"] = kernel.images.front().entry;
    if (kernel.launch && !kernel.launch->arguments.empty())
      entry["arguments"] = kernel.launch->arguments;
    if (kernel.variantCount() > 1) {
      json variants = json::array();
      for (size_t variant = 1; variant < kernel.variantCount(); ++variant)
        variants.push_back(kernel.configOf(variant));
      entry["variants"] = std::move(variants);
    }
    if (kernel.hasLibraryVariant()) {
      ++withLibrary;
      for (size_t variant = 1; variant < kernel.variantCount(); ++variant)
        if (const LibraryCall *call = kernel.libraryOf(variant))
          entry["library"] = call->library;
    }
    if (!kernel.noLibraryVariant.empty()) {
      entry["no_library_variant"] = kernel.noLibraryVariant;
      withoutLibrary.push_back({{"kernel", kernel.name}, {"reason", kernel.noLibraryVariant}});
    }
    if (kernel.defaultVariant != 0)
      entry["default_variant"] = kernel.configOf(kernel.defaultVariant);
    kernels.push_back(std::move(entry));
  }
  json description = {
      {"plan", plan.sourceName()},
      {"format_version", manifest.formatVersion},
      {"compiler_version", manifest.compilerVersion},
      {"target", manifest.target},
      {"source_hash", manifest.sourceHash},
      {"precision", planPrecision(plan)},
      {"batch", batch},
      {"batch_buckets", manifest.batchBuckets},
      {"inputs", describeTensors(manifest.inputs)},
      {"outputs", describeTensors(manifest.outputs)},
      {"kernels", {{"count", kernels.size()}, {"list", kernels}}},
      {"library_variants", {{"kernels", withLibrary}, {"without", withoutLibrary}}},
      {"arena_bytes", manifest.arena.size.at(batch)},
      {"arena_lower_bound_bytes", manifest.arena.lowerBound.at(batch)},
      {"weight_bytes", plan.sectionBytes(plan::kWeightsSection).size},
  };
  if (!root.dims().empty()) {
    description["dims"] = manifest.dims;
    description["shape_variants"] = root.shapeVariantDims();
  }
  if (!manifest.ranges.empty()) {
    // The arena is laid out for every range's maximum, and a run at any size
    // of the ranges uses that layout.
    json ranges = json::array();
    for (const DimensionRange &range : manifest.ranges)
      ranges.push_back({{"name", range.name}, {"min", range.min}, {"opt", range.opt}, {"max", range.max}});
    description["ranges"] = std::move(ranges);
  }
  return description;
}

std::string formatPlanSummary(const json &description) {
  std::ostringstream out;
  out << "plan " << description["plan"].get<std::string>() << ": format "
      << description["format_version"].get<std::string>() << ", compiled by "
      << description["compiler_version"].get<std::string>() << " for target "
      << description["target"].get<std::string>() << "\n";
  out << "source hash: " << description["source_hash"].get<std::string>() << "\n";
  out << "precision: " << description["precision"].get<std::string>() << "\n";
  if (description.contains("shape_variants")) {
    auto sizes = [](const json &dims) { return formatDims(dims.get<std::map<std::string, int64_t>>()); };
    out << "shape variants (the one described in brackets):";
    for (const json &variant : description["shape_variants"])
      out << (variant == description["dims"] ? " [" : " ") << sizes(variant)
          << (variant == description["dims"] ? "]" : "");
    out << "\n";
  }
  const std::vector<DimensionRange> ranges = rangesOf(description);
  if (!ranges.empty())
    out << "ranges (min:opt:max; one plan runs every size): " << formatRanges(ranges) << "\n";
  printTensors(out, "inputs", description["inputs"], ranges);
  printTensors(out, "outputs", description["outputs"], ranges);
  const json &kernels = description["kernels"];
  out << "kernels: " << kernels["count"].get<size_t>() << "\n";
  for (const json &kernel : kernels["list"]) {
    out << "  " << kernel["name"].get<std::string>() << " (" << kernel["kind"].get<std::string>() << "):";
    for (const json &op : kernel["ops"])
      out << " " << op.get<std::string>();
    const size_t compiled =
        (kernel.contains("variants") ? kernel["variants"].size() + 1 : 1) - (kernel.contains("library") ? 1 : 0);
    if (compiled > 1)
      out << " (" << compiled << " compiled variants)";
    if (kernel.contains("library"))
      out << " (library variant: " << kernel["library"].get<std::string>()
          << (kernel.contains("default_variant") ? ", the default" : "") << ")";
    if (kernel.contains("runs"))
      out << " [runs " << kernel["runs"].get<std::string>() << "]";
    out << "\n";
  }
  const json &library = description["library_variants"];
  const size_t without = library["without"].size();
  if (library["kernels"].get<size_t>() + without > 0) {
    out << "library variants: " << library["kernels"].get<size_t>() << " of "
        << library["kernels"].get<size_t>() + without << " conv/GEMM kernels\n";
    for (const json &kernel : library["without"])
      out << "  none for " << kernel["kernel"].get<std::string>() << ": " << kernel["reason"].get<std::string>()
          << "\n";
  }
  out << "arena at batch " << description["batch"].get<int64_t>() << ": " << description["arena_bytes"].get<int64_t>()
      << " bytes (lower bound " << description["arena_lower_bound_bytes"].get<int64_t>() << ")";
  if (!ranges.empty())
    out << ", laid out for " << formatDims(rangeMaximums(ranges)) << " and used at every size of the ranges";
  out << "\n";
  out << "weights: " << description["weight_bytes"].get<size_t>() << " bytes\n";
  out << "batch buckets:";
  for (const json &bucket : description["batch_buckets"])
    out << " " << bucket.get<int64_t>();
  out << "\n";
  return out.str();
}

} // namespace fusec::runtime
