//===- ModelCompiler.cpp - Compile a model file without touching MLIR -----===//
#include "compiler/ModelCompiler.h"

#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/Version.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace fusec {

CompiledModel compileModelFile(const std::string &path, const ModelCompileOptions &options) {
  DriverOptions driver;
  driver.inputPath = path;
  driver.dimensionSizes = options.dimensionSizes;
  driver.fusion.strategy = options.fusionStrategy;
  driver.fusion.deviceProfile = options.deviceProfile;
  driver.fusion.costBatch = options.costBatch;
  driver.fusion.kernelVariants = options.kernelVariants;
  driver.fusion.layout = options.layout;
  driver.fusion.precision = options.precision;
  driver.fusion.ioPrecision = options.ioPrecision == "fp32" ? "" : options.ioPrecision;
  driver.fusion.disabled = options.disabledRules;
  driver.plan.target = options.target;
  driver.plan.batchBuckets = options.batchBuckets;
  driver.kernelCacheDir = options.kernelCacheDir;
  if (std::string invalid = checkDriverOptions(driver); !invalid.empty())
    throw CompileError(invalid);
  // The fusec tool checks these after loading its plugins, whose rules count.
  const std::vector<std::string> rules = fusionRuleNames();
  for (const std::string &rule : options.disabledRules)
    if (std::find(rules.begin(), rules.end(), rule) == rules.end())
      throw CompileError("unknown fusion rule '" + rule + "' (fusec --list-fusion-rules lists them)");
  std::sort(driver.plan.batchBuckets.begin(), driver.plan.batchBuckets.end());
  driver.plan.batchBuckets.erase(std::unique(driver.plan.batchBuckets.begin(), driver.plan.batchBuckets.end()),
                                 driver.plan.batchBuckets.end());

  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  nlohmann::json report;
  auto bytes = compileToPlan(*context, driver, &report);
  if (mlir::failed(bytes)) {
    std::string message = diagnostics.text();
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    throw CompileError(message.empty() ? path + ": error: the model did not compile" : message);
  }
  return {std::move(*bytes), report.dump(2)};
}

const char *compilerVersion() { return FUSEC_VERSION_STRING; }

} // namespace fusec
