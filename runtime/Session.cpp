//===- Session.cpp - Run a plan: the runtime's public C++ API ---------------===//

#include "runtime/Session.h"

#include "runtime/Backend.h"
#include "runtime/BackendRegistry.h"
#include "runtime/BatchLimit.h"
#include "runtime/Error.h"

#include <algorithm>

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
  variants_.push_back({plan_, batchLimitOf(*plan_, physicalMemoryBytes()), nullptr, 0});
  for (const Plan &variant : plan_->shapeVariants()) {
    // Aliasing: each variant's pointer keeps the whole plan alive.
    std::shared_ptr<const Plan> shared(plan_, &variant);
    variants_.push_back({shared, batchLimitOf(variant, physicalMemoryBytes()), nullptr, 0});
  }
  variants_[0].backend = makeBackend(plan_);
  if (!variants_[0].backend)
    throw Error("a session needs a backend");
  if (variants_.size() > 1)
    makeBackend_ = std::move(makeBackend);
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
    if (variants_[i].plan->dims() == dims) {
      selected_ = i;
      return;
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

size_t Session::variantTaking(int64_t batch, const std::map<std::string, Tensor> &inputs) const {
  if (variants_.size() == 1)
    return 0;
  // fits[v]: every given input has variant v's shape at `batch`.
  std::vector<bool> fits(variants_.size(), true);
  for (size_t i = 0; i < plan().inputs().size(); ++i) {
    auto it = inputs.find(plan().inputs()[i].name);
    if (it == inputs.end())
      continue; // run() says it is missing
    bool fitsAny = false;
    std::string expected;
    for (size_t v = 0; v < variants_.size(); ++v) {
      const TensorDesc &input = variants_[v].plan->inputs()[i];
      const Shape shape = resolveShape(input.shape, batch);
      fitsAny |= shape == it->second.shape();
      fits[v] = fits[v] && shape == it->second.shape();
      expected += std::string(v ? ", " : "") + formatShape(shape) + " (" + formatDims(variants_[v].plan->dims()) + ")";
    }
    if (!fitsAny)
      throw Error("input '" + it->first + "' has shape " + formatShape(it->second.shape()) +
                  ", but the plan's shape variants take " + expected + " at batch " + std::to_string(batch));
  }
  for (size_t v = 0; v < variants_.size(); ++v)
    if (fits[v])
      return v;
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
  // Selected only once every check passed: a failed run changes nothing.
  const size_t variant = variantTaking(batch, inputs);
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
