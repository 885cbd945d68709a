//===- Session.cpp - Run a plan: the runtime's public C++ API ---------------===//

#include "runtime/Session.h"

#include "runtime/Backend.h"
#include "runtime/BackendRegistry.h"
#include "runtime/BatchLimit.h"
#include "runtime/Error.h"

#include <algorithm>
#include <optional>

namespace fusec::runtime {

namespace {

std::string listNames(const std::vector<TensorDesc> &tensors) {
  std::string names;
  for (const TensorDesc &tensor : tensors)
    names += (names.empty() ? "'" : ", '") + tensor.name + "'";
  return names;
}

} // namespace

Session::Session(std::shared_ptr<const Plan> plan, BackendMaker makeBackend, size_t shapeCacheSize)
    : plan_(std::move(plan)), shapeCacheSize_(shapeCacheSize) {
  if (!plan_)
    throw Error("a session needs a plan");
  if (!makeBackend)
    throw Error("a session needs a backend");
  auto addVariant = [this](std::shared_ptr<const Plan> plan) {
    ShapeVariant variant;
    variant.ranged = !plan->ranges().empty();
    // A ranged plan never runs itself; its specializations have limits.
    if (!variant.ranged)
      variant.batchLimit = batchLimitOf(*plan, physicalMemoryBytes());
    variant.plan = std::move(plan);
    variants_.push_back(std::move(variant));
  };
  addVariant(plan_);
  for (const Plan &variant : plan_->shapeVariants())
    // Aliasing: each variant's pointer keeps the whole plan alive.
    addVariant(std::shared_ptr<const Plan>(plan_, &variant));
  if (variants_[0].ranged) {
    std::map<std::string, int64_t> opt;
    for (const DimensionRange &range : plan_->ranges())
      opt[range.name] = range.opt;
    selected_ = variantFor({0, opt});
  }
  variants_[selected_].backend = makeBackend(variants_[selected_].plan);
  if (!variants_[selected_].backend)
    throw Error("a session needs a backend");
  if (variants_.size() > 1 || variants_[0].ranged)
    makeBackend_ = std::move(makeBackend);
}

size_t Session::variantFor(const VariantChoice &choice) {
  if (!variants_[choice.variant].ranged)
    return choice.variant;
  std::map<std::string, int64_t> dims = variants_[choice.variant].plan->dims();
  dims.insert(choice.rangeSizes.begin(), choice.rangeSizes.end());
  for (size_t i = 0; i < variants_.size(); ++i)
    if (variants_[i].specialized && variants_[i].parent == choice.variant && variants_[i].plan->dims() == dims)
      return i;
  // Each specialization holds a copy of the manifest: keep the recently run
  // ones, a few more than the backends the cache keeps.
  const size_t keep = std::max<size_t>(4, 2 * shapeCacheSize_);
  while (true) {
    size_t count = 0, oldest = variants_.size();
    for (size_t i = 0; i < variants_.size(); ++i)
      if (variants_[i].specialized) {
        ++count;
        if (i != selected_ && (oldest == variants_.size() || variants_[i].lastRun < variants_[oldest].lastRun))
          oldest = i;
      }
    if (count < keep || oldest == variants_.size())
      break;
    variants_.erase(variants_.begin() + static_cast<std::ptrdiff_t>(oldest));
    if (oldest < selected_)
      --selected_;
  }
  ShapeVariant variant;
  variant.plan = std::make_shared<const Plan>(variants_[choice.variant].plan->specialize(choice.rangeSizes));
  variant.batchLimit = batchLimitOf(*variant.plan, physicalMemoryBytes());
  variant.specialized = true;
  variant.parent = choice.variant;
  variants_.push_back(std::move(variant));
  return variants_.size() - 1;
}

namespace {
/// Makes backends with `createBackend(device, ...)`; "auto" is resolved at
/// the first (to "cuda" or "cpu", the backends it chooses among), so that
/// every variant runs where the first does.
Session::BackendMaker backendsOn(std::string device, const DeviceOptions &options) {
  auto resolved = std::make_shared<std::string>(std::move(device));
  return [resolved, options](std::shared_ptr<const Plan> plan) {
    std::unique_ptr<Backend> backend = createBackend(*resolved, std::move(plan), options);
    if (*resolved == "auto")
      *resolved = backend->name();
    return backend;
  };
}
} // namespace

Session::Session(std::shared_ptr<const Plan> plan, Device device, const DeviceOptions &options)
    : Session(std::move(plan), backendsOn(deviceName(device), options), options.shapeCacheSize) {}

Session::Session(std::shared_ptr<const Plan> plan, const std::string &device, const DeviceOptions &options)
    : Session(std::move(plan), backendsOn(device, options), options.shapeCacheSize) {}

Session::Session(std::shared_ptr<const Plan> plan, std::unique_ptr<Backend> backend)
    : Session(std::move(plan), [&backend](const std::shared_ptr<const Plan> &) { return std::move(backend); }) {
  // The one backend was made for the plan itself.
  makeBackend_ = nullptr;
}

Session::~Session() = default;
Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;

std::string Session::device() const {
  for (const ShapeVariant &variant : variants_)
    if (variant.backend)
      return variant.backend->name();
  return "";
}

void Session::checkBatch(int64_t batch) const { checkBatchAgainst(plan(), variants_[selected_].batchLimit, batch); }

std::vector<std::map<std::string, int64_t>> Session::shapeVariants() const { return plan_->shapeVariantDims(); }

void Session::selectDims(const std::map<std::string, int64_t> &dims) {
  for (size_t i = 0; i < variants_.size(); ++i)
    if (!variants_[i].ranged && !variants_[i].specialized && variants_[i].plan->dims() == dims) {
      selected_ = i;
      return;
    }
  for (size_t i = 0; i < variants_.size(); ++i) {
    if (!variants_[i].ranged)
      continue;
    // The variant's fixed sizes, and one size for each of its ranges.
    const Plan &ranged = *variants_[i].plan;
    std::map<std::string, int64_t> rangeSizes = dims;
    bool fixedMatch = true;
    for (const auto &[name, size] : ranged.dims()) {
      auto it = rangeSizes.find(name);
      fixedMatch = fixedMatch && it != rangeSizes.end() && it->second == size;
      if (it != rangeSizes.end())
        rangeSizes.erase(it);
    }
    const bool namesMatch = rangeSizes.size() == ranged.ranges().size() &&
                            std::all_of(ranged.ranges().begin(), ranged.ranges().end(),
                                        [&](const DimensionRange &range) { return rangeSizes.count(range.name) == 1; });
    if (fixedMatch && namesMatch) {
      selected_ = variantFor({i, rangeSizes}); // throws for a size outside its range
      return;
    }
  }
  throw Error("the plan has no shape variant for " +
              (dims.empty() ? std::string("no named dimensions") : formatDims(dims)) + " (it was compiled for " +
              plan_->describeShapeVariants() + ")");
}

Backend &Session::selectedBackend() {
  ShapeVariant &selected = variants_[selected_];
  selected.lastRun = ++runs_;
  if (selected.backend)
    return *selected.backend;
  if (!makeBackend_)
    throw Error("this session runs the backend its caller made for the plan's first shape variant; the variant for " +
                formatDims(selected.plan->dims()) + " needs a session of its own");
  // Give up the least recently run variants' backends to stay within the
  // cache; the new one is made only after, so two never peak together.
  const size_t keep = std::max<size_t>(1, shapeCacheSize_);
  while (true) {
    size_t live = 0;
    ShapeVariant *oldest = nullptr;
    for (ShapeVariant &variant : variants_)
      if (variant.backend) {
        ++live;
        if (!oldest || variant.lastRun < oldest->lastRun)
          oldest = &variant;
      }
    if (live < keep || !oldest)
      break;
    oldest->backend.reset();
  }
  selected.backend = makeBackend_(selected.plan);
  if (!selected.backend)
    throw Error("no backend was made for the shape variant " + formatDims(selected.plan->dims()));
  return *selected.backend;
}

std::vector<KernelTuning> Session::tuning() const {
  const ShapeVariant &selected = variants_[selected_];
  return selected.backend ? selected.backend->tuning() : std::vector<KernelTuning>{};
}

int64_t Session::inferBatch(const std::map<std::string, Tensor> &inputs) const {
  // Every variant has its batch dimensions where the first has them.
  for (const TensorDesc &input : plan_->inputs()) {
    auto it = inputs.find(input.name);
    if (it == inputs.end() || it->second.shape().size() != input.shape.size())
      continue;
    auto batchDim = std::find(input.shape.begin(), input.shape.end(), plan::kBatchDim);
    if (batchDim != input.shape.end())
      return it->second.shape()[batchDim - input.shape.begin()];
  }
  return 1;
}

namespace {

/// The sizes of `ranged`'s ranges that make its inputs the given tensors'
/// shapes at `batch`, or nullopt if no sizes do (a size outside its range
/// included).
std::optional<std::map<std::string, int64_t>> rangeSizesTaking(const Plan &ranged, int64_t batch,
                                                               const std::map<std::string, Tensor> &inputs) {
  std::vector<std::optional<int64_t>> sizes(ranged.ranges().size());
  for (const TensorDesc &input : ranged.inputs()) {
    auto it = inputs.find(input.name);
    if (it == inputs.end())
      continue;
    const Shape &given = it->second.shape();
    if (given.size() != input.shape.size())
      return std::nullopt;
    for (size_t d = 0; d < given.size(); ++d) {
      const int64_t dim = input.shape[d];
      if (std::optional<size_t> range = plan::rangeIndexOf(dim)) {
        if (*range >= sizes.size() || (sizes[*range] && *sizes[*range] != given[d]))
          return std::nullopt;
        sizes[*range] = given[d];
      } else if (given[d] != (dim == plan::kBatchDim ? batch : dim)) {
        return std::nullopt;
      }
    }
  }
  std::map<std::string, int64_t> result;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const DimensionRange &range = ranged.ranges()[i];
    if (!sizes[i] || !range.contains(*sizes[i]))
      return std::nullopt;
    result[range.name] = *sizes[i];
  }
  return result;
}

/// What a variant takes, for messages: "[batch, 3]" or "[batch, seq (1:512)]".
std::string describeInput(const Plan &variant, const TensorDesc &input, int64_t batch) {
  if (variant.ranges().empty())
    return formatShape(resolveShape(input.shape, batch)) + " (" + formatDims(variant.dims()) + ")";
  std::string ranges;
  for (const DimensionRange &range : variant.ranges())
    ranges += (ranges.empty() ? "" : ", ") + range.name + " in " + std::to_string(range.min) + ":" +
              std::to_string(range.max);
  return formatShape(resolveShape(input.shape, batch), variant.ranges()) + " (" + ranges +
         (variant.dims().empty() ? std::string() : ", " + formatDims(variant.dims())) + ")";
}

} // namespace

Session::VariantChoice Session::variantTaking(int64_t batch, const std::map<std::string, Tensor> &inputs) const {
  // The variants compiled as the plan says: not the specializations made
  // from its ranges, which are chosen through their ranged variant.
  std::vector<size_t> listed;
  for (size_t v = 0; v < variants_.size(); ++v)
    if (!variants_[v].specialized)
      listed.push_back(v);
  if (listed.size() == 1 && !variants_[0].ranged)
    return {0, {}};
  for (size_t v : listed) {
    if (!variants_[v].ranged)
      continue;
    if (std::optional<std::map<std::string, int64_t>> sizes = rangeSizesTaking(*variants_[v].plan, batch, inputs))
      return {v, *sizes};
  }
  // fits[v]: every given input has variant v's shape at `batch`.
  std::vector<bool> fits(variants_.size(), true);
  for (size_t i = 0; i < plan().inputs().size(); ++i) {
    auto it = inputs.find(plan().inputs()[i].name);
    if (it == inputs.end())
      continue; // run() says it is missing
    bool fitsAny = false;
    std::string expected;
    for (size_t v : listed) {
      const TensorDesc &input = variants_[v].plan->inputs()[i];
      // A ranged variant that took the inputs returned above.
      const bool fitsThis = !variants_[v].ranged && resolveShape(input.shape, batch) == it->second.shape();
      fitsAny |= fitsThis;
      fits[v] = fits[v] && fitsThis;
      expected += std::string(expected.empty() ? "" : ", ") + describeInput(*variants_[v].plan, input, batch);
    }
    if (!fitsAny)
      throw Error("input '" + it->first + "' has shape " + formatShape(it->second.shape()) + ", but the plan" +
                  (listed.size() > 1 ? "'s shape variants take " : " takes ") + expected + " at batch " +
                  std::to_string(batch));
  }
  for (size_t v : listed)
    if (fits[v])
      return {v, {}};
  std::string which;
  for (const auto &[name, tensor] : inputs)
    which += (which.empty() ? "'" : ", '") + name + "' " + formatShape(tensor.shape());
  throw Error("the inputs' shapes (" + which + ") are each some shape variant's, but no one variant takes them all");
}

std::map<std::string, Tensor> Session::run(int64_t batch, const std::map<std::string, Tensor> &inputs) {
  for (const auto &entry : inputs) {
    const auto &declared = plan().inputs();
    if (std::none_of(declared.begin(), declared.end(), [&](const TensorDesc &d) { return d.name == entry.first; }))
      throw Error("unknown input '" + entry.first + "' (the plan's inputs: " + listNames(declared) + ")");
  }
  if (batch < 1)
    checkBatch(batch); // its message, before any about shapes at that batch
  // Selected only once every check passed: a failed run changes nothing but
  // the cache of specializations (a new size of a range is made here).
  const size_t variant = variantFor(variantTaking(batch, inputs));
  const Plan &chosen = *variants_[variant].plan;
  checkBatchAgainst(chosen, variants_[variant].batchLimit, batch);

  std::vector<const void *> inputData;
  for (const TensorDesc &input : chosen.inputs()) {
    auto it = inputs.find(input.name);
    if (it == inputs.end())
      throw Error("missing input '" + input.name + "' of shape " + formatShape(input.shape));
    const Shape expected = resolveShape(input.shape, batch);
    if (it->second.shape() != expected)
      throw Error("input '" + input.name + "' has shape " + formatShape(it->second.shape()) +
                  ", but the plan expects " + formatShape(expected) + " (" + formatShape(input.shape) + " at batch " +
                  std::to_string(batch) + ")");
    // No silent conversion: a caller who means to convert says so.
    if (it->second.elementType() != input.dtype)
      throw Error("input '" + input.name + "' is " + elementTypeName(it->second.elementType()) + ", the plan takes " +
                  elementTypeName(input.dtype));
    inputData.push_back(it->second.rawData());
  }

  std::map<std::string, Tensor> results;
  std::vector<void *> outputData;
  for (const TensorDesc &output : chosen.outputs()) {
    Tensor &tensor = results[output.name] = Tensor(resolveShape(output.shape, batch), output.dtype);
    outputData.push_back(tensor.rawData());
  }
  selected_ = variant;
  selectedBackend().execute(batch, inputData, outputData);
  return results;
}

void Session::checkPointers(int64_t batch, const std::vector<const void *> &inputs,
                            const std::vector<void *> &outputs) const {
  checkBatch(batch);
  if (inputs.size() != plan().inputs().size() || outputs.size() != plan().outputs().size())
    throw Error("the plan has " + std::to_string(plan().inputs().size()) + " inputs and " +
                std::to_string(plan().outputs().size()) + " outputs; got " + std::to_string(inputs.size()) + " and " +
                std::to_string(outputs.size()) + " pointers");
}

void Session::run(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) {
  checkPointers(batch, inputs, outputs);
  selectedBackend().execute(batch, inputs, outputs);
}

void Session::runOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                          void *stream) {
  checkPointers(batch, inputs, outputs);
  selectedBackend().executeOnDevice(batch, inputs, outputs, stream);
}

RunTimings Session::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                         const TimingOptions &options) {
  checkPointers(batch, inputs, outputs);
  return selectedBackend().time(batch, inputs, outputs, options);
}

} // namespace fusec::runtime
