//===- FuserunRun.cpp - What fuserun does with its parsed options ---------===//

#include "tools/fuserun/FuserunRun.h"

#include "runtime/BackendRegistry.h"
#include "runtime/BatchLimit.h"
#include "runtime/Error.h"
#include "runtime/Npy.h"
#include "runtime/PlanInfo.h"
#include "runtime/Session.h"
#include "runtime/Timing.h"
#include "tools/fuserun/OutputCheck.h"
#include "tools/fuserun/RandomInputs.h"
#include "tools/fuserun/ServeBench.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace fusec::fuserun {

using namespace runtime;

namespace {

void printOutputSummary(std::ostream &out, const std::string &name, const Tensor &tensor) {
  out << "output '" << name << "' ";
  if (tensor.elementType() != ElementType::F32)
    out << elementTypeName(tensor.elementType()) << " ";
  out << formatShape(tensor.shape());
  if (tensor.numElements() > 0) {
    const std::vector<double> values = tensor.toDoubles();
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    double sum = 0.0;
    for (double value : values)
      sum += value;
    out << ": min " << *low << ", max " << *high << ", mean " << sum / tensor.numElements();
  }
  out << "\n";
}

void writeOutputs(std::ostream &out, const std::string &directory, const std::map<std::string, Tensor> &outputs) {
  std::filesystem::create_directories(directory);
  for (const auto &[name, tensor] : outputs) {
    std::string fileName = name;
    std::replace(fileName.begin(), fileName.end(), '/', '_');
    const std::string path = (std::filesystem::path(directory) / (fileName + ".npy")).string();
    writeNpy(path, tensor);
    out << "wrote " << path << "\n";
  }
}

void printTiming(std::ostream &out, const char *label, const TimingSummary &timing, const std::string &suffix = "") {
  out << label << "median " << timing.medianMs << " ms, min " << timing.minMs << " ms, max " << timing.maxMs << " ms"
      << suffix << "\n";
}

/// Times the unchecked entry point, so that only execution is measured.
void reportTiming(std::ostream &out, const FuserunOptions &options, Session &session, int64_t batch,
                  const std::map<std::string, Tensor> &inputs, std::map<std::string, Tensor> &outputs) {
  std::vector<const void *> inputData;
  for (const TensorDesc &input : session.inputs())
    inputData.push_back(inputs.at(input.name).rawData());
  std::vector<void *> outputData;
  for (const TensorDesc &output : session.outputs())
    outputData.push_back(outputs.at(output.name).rawData());
  TimingOptions timingOptions;
  timingOptions.warmup = options.warmup;
  timingOptions.iterations = options.iterations;
  timingOptions.deviceSteps = options.timeKernels;
  const RunTimings timings = session.time(batch, inputData, outputData, timingOptions);

  out << "timing: " << timings.run.iterations << " runs at batch " << batch << " on " << session.device();
  if (!timings.mode.empty())
    out << " (" << timings.mode << ")";
  printTiming(out, ": ", timings.run);
  if (timings.execute)
    printTiming(out, "timing execute: ", *timings.execute);
  if (timings.deviceSteps)
    printTiming(out, "timing kernels: ", *timings.deviceSteps,
                " (sum of " + std::to_string(timings.deviceStepCount) + " kernels, each timed on its own" +
                    (timings.deviceStepsHeld ? "" : ", the stream not held: launch latency may be included") + ")");
}

/// Runs the CPU backend on the same inputs; false if an output differs
/// beyond tolerance.
bool checkAgainstCpu(std::ostream &out, const FuserunOptions &options, std::shared_ptr<const Plan> plan, int64_t batch,
                     const std::map<std::string, Tensor> &inputs, const std::map<std::string, Tensor> &outputs) {
  Session reference(std::move(plan), Device::Cpu);
  const std::map<std::string, Tensor> expected = reference.run(batch, inputs);
  bool ok = true;
  for (const TensorDesc &output : reference.outputs()) {
    const OutputComparison comparison =
        compareOutputs(outputs.at(output.name), expected.at(output.name), options.rtol, options.atol);
    out << "check '" << output.name << "' against the CPU backend: " << formatComparison(comparison) << "\n";
    ok = ok && comparison.mismatches == 0;
  }
  return ok;
}

/// What --tune chose: per kernel, the variant that runs and every
/// variant's time (or that the tuning cache had the choice).
void reportTuning(std::ostream &out, std::ostream &err, const Session &session) {
  const std::vector<KernelTuning> tuning = session.tuning();
  if (tuning.empty()) {
    err << "fuserun: --tune: nothing to tune (" << session.device()
        << (session.device() == "cpu" ? " runs the plan's ops, not its kernels"
                                      : ": no kernel of the plan has compiled variants (fusec --kernel-variants)")
        << ")\n";
    return;
  }
  out << "tuning (" << tuning.size() << " kernels with variants):\n";
  for (const KernelTuning &kernel : tuning) {
    out << "  " << kernel.kernel << " at batch " << kernel.batch << ": variant " << kernel.chosen << " of "
        << kernel.configs.size();
    if (kernel.fromCache) {
      out << " (from the tuning cache)";
    } else {
      out << ", ms per launch:";
      for (size_t i = 0; i < kernel.milliseconds.size(); ++i) {
        out << (i == kernel.chosen ? " [" : " ");
        // A variant outside the tactics, or whose library is missing, is not timed.
        if (std::isfinite(kernel.milliseconds[i]))
          out << kernel.milliseconds[i];
        else
          out << "-";
        out << (i == kernel.chosen ? "]" : "");
      }
    }
    out << "\n    " << kernel.configs[kernel.chosen] << "\n";
  }
}

} // namespace

namespace {
/// The plan `dims` names, as a plan of its own that keeps `plan` alive: a
/// shape variant, or a plan with ranges specialized at the sizes `dims`
/// gives its ranges (each range's opt where it gives none). Throws Error
/// where there is none.
std::shared_ptr<const Plan> planAt(const std::shared_ptr<const Plan> &plan,
                                   const std::map<std::string, int64_t> &dims) {
  if (plan->ranges().empty()) {
    const Plan *variant = plan->findShapeVariant(dims.empty() ? plan->dims() : dims);
    if (!variant)
      throw Error(plan->sourceName() + ": no shape variant for " + formatDims(dims) + " (the plan holds " +
                  plan->describeShapeVariants() + ")");
    return std::shared_ptr<const Plan>(plan, variant);
  }
  return std::make_shared<const Plan>(plan->specializeAt(dims));
}
} // namespace

int runFuserun(const FuserunOptions &options, std::ostream &out, std::ostream &err, const BackendFactory &factory) {
  BackendFactory makeBackend = factory;
  if (!makeBackend)
    makeBackend = [](const std::string &device, std::shared_ptr<const Plan> plan, const DeviceOptions &deviceOptions) {
      return createBackend(device, std::move(plan), deviceOptions);
    };
  auto plan = std::make_shared<const Plan>(Plan::load(options.planPath));
  if (options.info != InfoFormat::None) {
    nlohmann::json description = describePlan(*plan, options.batch.value_or(1), options.dims);
    if (options.batch) {
      std::shared_ptr<const Plan> described = planAt(plan, options.dims);
      checkBatchAgainst(*described, batchLimitOf(*described, physicalMemoryBytes()), *options.batch);
    }
    if (options.info == InfoFormat::Json)
      out << description.dump(2) << "\n";
    else
      out << formatPlanSummary(description);
    return 0;
  }

  if (options.serveBench) {
    // The variant --dim names, as a plan of its own (aliasing: it keeps the
    // whole plan alive); describePlan has said why if there is none.
    std::shared_ptr<const Plan> served = plan;
    if (!options.dims.empty() || !plan->ranges().empty()) {
      describePlan(*plan, 1, options.dims);
      served = planAt(plan, options.dims);
    }
    ServeBenchOptions bench;
    bench.clients = options.clients;
    bench.requestsPerClient = options.requestsPerClient;
    bench.batchDistribution = parseBatchDistribution(options.batchDistribution);
    bench.seed = options.randomSeed.value_or(1);
    out << formatServeBench(
        runServeBench(served, [&] { return makeBackend(options.device, served, options.deviceOptions); }, bench));
    return 0;
  }

  // Every shape variant runs where the first does ("auto" chooses once).
  std::string device = options.device;
  Session session(
      plan,
      [&](std::shared_ptr<const Plan> variant) {
        std::unique_ptr<Backend> backend = makeBackend(device, std::move(variant), options.deviceOptions);
        if (device == "auto")
          device = backend->name();
        return backend;
      },
      options.deviceOptions.shapeCacheSize);
  if (!options.dims.empty())
    session.selectDims(options.dims);
  std::map<std::string, Tensor> inputs;
  for (const auto &[name, path] : options.inputFiles) {
    Tensor tensor = readNpy(path);
    for (const TensorDesc &input : plan->inputs())
      if (input.name == name && input.dtype != tensor.elementType())
        throw Error(path + ": input '" + name + "' is " + elementTypeName(tensor.elementType()) + ", the plan takes " +
                    elementTypeName(input.dtype));
    inputs.emplace(name, std::move(tensor));
  }
  const int64_t batch = options.batch.value_or(session.inferBatch(inputs));
  // Before random inputs of that batch are allocated.
  session.checkBatch(batch);
  // --dim chose the variant: files of another's shapes are an error, not a
  // silent switch to that variant.
  if (!options.dims.empty())
    for (const TensorDesc &input : session.inputs()) {
      auto given = inputs.find(input.name);
      if (given != inputs.end() && given->second.shape() != resolveShape(input.shape, batch))
        throw Error("input '" + input.name + "' has shape " + formatShape(given->second.shape()) + ", but the " +
                    (plan->ranges().empty() ? "shape variant" : "plan") + " for " + formatDims(options.dims) +
                    " takes " + formatShape(resolveShape(input.shape, batch)) + " at batch " + std::to_string(batch));
    }
  if (options.randomSeed)
    for (auto &[name, tensor] : makeRandomInputs(session.plan(), batch, *options.randomSeed))
      inputs.emplace(name, std::move(tensor));

  std::map<std::string, Tensor> outputs = session.run(batch, inputs);
  if (options.deviceOptions.tune)
    reportTuning(out, err, session);
  const bool checked = !options.check || checkAgainstCpu(out, options, plan, batch, inputs, outputs);
  if (options.reportTiming)
    reportTiming(out, options, session, batch, inputs, outputs);

  if (options.outputDir)
    writeOutputs(out, *options.outputDir, outputs);
  else
    for (const auto &[name, tensor] : outputs)
      printOutputSummary(out, name, tensor);
  if (!checked) {
    err << "fuserun: error: outputs differ from the CPU backend beyond rtol " << options.rtol << ", atol "
        << options.atol << "\n";
    return 1;
  }
  return 0;
}

} // namespace fusec::fuserun
