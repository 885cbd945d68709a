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

Session::Session(std::shared_ptr<const Plan> plan, Device device, const DeviceOptions &options)
    : plan_(std::move(plan)), batchLimit_(batchLimitOf(*plan_, physicalMemoryBytes())),
      backend_(createBackend(device, plan_, options)) {}

Session::Session(std::shared_ptr<const Plan> plan, const std::string &device, const DeviceOptions &options)
    : plan_(std::move(plan)), batchLimit_(batchLimitOf(*plan_, physicalMemoryBytes())),
      backend_(createBackend(device, plan_, options)) {}

void Session::checkBatch(int64_t batch) const { checkBatchAgainst(*plan_, batchLimit_, batch); }

Session::Session(std::shared_ptr<const Plan> plan, std::unique_ptr<Backend> backend)
    : plan_(std::move(plan)), batchLimit_(batchLimitOf(*plan_, physicalMemoryBytes())), backend_(std::move(backend)) {
  if (!backend_)
    throw Error("a session needs a backend");
}

Session::~Session() = default;
Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;

std::string Session::device() const { return backend_->name(); }

int64_t Session::inferBatch(const std::map<std::string, Tensor> &inputs) const {
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

std::map<std::string, Tensor> Session::run(int64_t batch, const std::map<std::string, Tensor> &inputs) {
  checkBatch(batch);
  for (const auto &entry : inputs) {
    const auto &declared = plan_->inputs();
    if (std::none_of(declared.begin(), declared.end(), [&](const TensorDesc &d) { return d.name == entry.first; }))
      throw Error("unknown input '" + entry.first + "' (the plan's inputs: " + listNames(declared) + ")");
  }

  std::vector<const void *> inputData;
  for (const TensorDesc &input : plan_->inputs()) {
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
  for (const TensorDesc &output : plan_->outputs()) {
    Tensor &tensor = results[output.name] = Tensor(resolveShape(output.shape, batch), output.dtype);
    outputData.push_back(tensor.rawData());
  }
  backend_->execute(batch, inputData, outputData);
  return results;
}

void Session::checkPointers(int64_t batch, const std::vector<const void *> &inputs,
                            const std::vector<void *> &outputs) const {
  checkBatch(batch);
  if (inputs.size() != plan_->inputs().size() || outputs.size() != plan_->outputs().size())
    throw Error("the plan has " + std::to_string(plan_->inputs().size()) + " inputs and " +
                std::to_string(plan_->outputs().size()) + " outputs; got " + std::to_string(inputs.size()) + " and " +
                std::to_string(outputs.size()) + " pointers");
}

void Session::run(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) {
  checkPointers(batch, inputs, outputs);
  backend_->execute(batch, inputs, outputs);
}

void Session::runOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                          void *stream) {
  checkPointers(batch, inputs, outputs);
  backend_->executeOnDevice(batch, inputs, outputs, stream);
}

RunTimings Session::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                         const TimingOptions &options) {
  checkPointers(batch, inputs, outputs);
  return backend_->time(batch, inputs, outputs, options);
}

} // namespace fusec::runtime
