//===- main.cpp - fuserun: run a compiled model.plan ------------------------===//
//
// Reads inputs from .npy files (or generates them), runs the plan through a
// runtime Session, and writes or summarizes the outputs. See --help.
//
//===----------------------------------------------------------------------===//

#include "runtime/Npy.h"
#include "runtime/PlanInfo.h"
#include "runtime/RandomInputs.h"
#include "runtime/Session.h"
#include "runtime/Timing.h"
#include "tools/fuserun/FuserunOptions.h"
#include "tools/fuserun/OutputCheck.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

using namespace fusec;
using namespace fusec::runtime;

namespace {

void printOutputSummary(const std::string &name, const Tensor &tensor) {
  std::cout << "output '" << name << "' " << formatShape(tensor.shape());
  if (tensor.numElements() > 0) {
    const auto [low, high] = std::minmax_element(tensor.values().begin(), tensor.values().end());
    double sum = 0.0;
    for (float value : tensor.values())
      sum += value;
    std::cout << ": min " << *low << ", max " << *high << ", mean " << sum / tensor.numElements();
  }
  std::cout << "\n";
}

void writeOutputs(const std::string &directory, const std::map<std::string, Tensor> &outputs) {
  std::filesystem::create_directories(directory);
  for (const auto &[name, tensor] : outputs) {
    std::string fileName = name;
    std::replace(fileName.begin(), fileName.end(), '/', '_');
    const std::string path = (std::filesystem::path(directory) / (fileName + ".npy")).string();
    writeNpy(path, tensor);
    std::cout << "wrote " << path << "\n";
  }
}

void printTiming(const char *label, const TimingSummary &timing, const std::string &suffix = "") {
  std::cout << label << "median " << timing.medianMs << " ms, min " << timing.minMs << " ms, max " << timing.maxMs
            << " ms" << suffix << "\n";
}

/// Times the unchecked entry point, so that only execution is measured.
void reportTiming(const fuserun::FuserunOptions &options, Session &session, int64_t batch,
                  const std::map<std::string, Tensor> &inputs, std::map<std::string, Tensor> &outputs) {
  std::vector<const float *> inputData;
  for (const TensorDesc &input : session.inputs())
    inputData.push_back(inputs.at(input.name).data());
  std::vector<float *> outputData;
  for (const TensorDesc &output : session.outputs())
    outputData.push_back(outputs.at(output.name).data());
  TimingOptions timingOptions;
  timingOptions.warmup = options.warmup;
  timingOptions.iterations = options.iterations;
  timingOptions.deviceSteps = options.timeKernels;
  const RunTimings timings = session.time(batch, inputData, outputData, timingOptions);

  std::cout << "timing: " << timings.run.iterations << " runs at batch " << batch << " on "
            << deviceName(session.device());
  if (!timings.mode.empty())
    std::cout << " (" << timings.mode << ")";
  printTiming(": ", timings.run);
  if (timings.execute)
    printTiming("timing execute: ", *timings.execute);
  if (timings.deviceSteps)
    printTiming("timing kernels: ", *timings.deviceSteps,
                " (sum of " + std::to_string(timings.deviceStepCount) + " kernels, each timed on its own)");
}

/// Runs the CPU backend on the same inputs; false if an output differs
/// beyond tolerance.
bool checkAgainstCpu(const fuserun::FuserunOptions &options, std::shared_ptr<const Plan> plan, int64_t batch,
                     const std::map<std::string, Tensor> &inputs, const std::map<std::string, Tensor> &outputs) {
  Session reference(std::move(plan), Device::Cpu);
  const std::map<std::string, Tensor> expected = reference.run(batch, inputs);
  bool ok = true;
  for (const TensorDesc &output : reference.outputs()) {
    const fuserun::OutputComparison comparison =
        fuserun::compareOutputs(outputs.at(output.name), expected.at(output.name), options.rtol, options.atol);
    std::cout << "check '" << output.name << "' against the CPU backend: " << fuserun::formatComparison(comparison)
              << "\n";
    ok = ok && comparison.mismatches == 0;
  }
  return ok;
}

int run(const fuserun::FuserunOptions &options) {
  auto plan = std::make_shared<const Plan>(Plan::load(options.planPath));
  if (options.info != fuserun::InfoFormat::None) {
    if (options.batch)
      checkBatchAgainst(*plan, batchLimitOf(*plan, physicalMemoryBytes()), *options.batch);
    nlohmann::json description = describePlan(*plan, options.batch.value_or(1));
    if (options.info == fuserun::InfoFormat::Json)
      std::cout << description.dump(2) << "\n";
    else
      std::cout << formatPlanSummary(description);
    return 0;
  }

  Session session(plan, options.device, options.deviceOptions);
  std::map<std::string, Tensor> inputs;
  for (const auto &[name, path] : options.inputFiles)
    inputs.emplace(name, readNpy(path));
  const int64_t batch = options.batch.value_or(session.inferBatch(inputs));
  // Before random inputs of that batch are allocated.
  session.checkBatch(batch);
  if (options.randomSeed)
    for (auto &[name, tensor] : makeRandomInputs(*plan, batch, *options.randomSeed))
      inputs.emplace(name, std::move(tensor));

  std::map<std::string, Tensor> outputs = session.run(batch, inputs);
  const bool checked = !options.check || checkAgainstCpu(options, plan, batch, inputs, outputs);
  if (options.reportTiming)
    reportTiming(options, session, batch, inputs, outputs);

  if (options.outputDir)
    writeOutputs(*options.outputDir, outputs);
  else
    for (const auto &[name, tensor] : outputs)
      printOutputSummary(name, tensor);
  if (!checked) {
    std::cerr << "fuserun: error: outputs differ from the CPU backend beyond "
                 "rtol "
              << options.rtol << ", atol " << options.atol << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  fuserun::FuserunOptions options;
  try {
    options = fuserun::parseFuserunOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const fuserun::UsageError &error) {
    std::cerr << "fuserun: error: " << error.what() << "\n(run 'fuserun --help' for usage)\n";
    return 2;
  }
  if (options.help) {
    std::cout << fuserun::fuserunUsage();
    return 0;
  }
  try {
    return run(options);
  } catch (const std::exception &error) {
    std::cerr << "fuserun: error: " << error.what() << "\n";
    return 1;
  }
}
