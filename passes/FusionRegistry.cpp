//===- FusionRegistry.cpp - Plug-in strategies, cost models, patterns -----===//
#include "passes/FusionRegistry.h"

#include <mutex>

namespace fusec {

namespace {
std::mutex &registryMutex() {
  static std::mutex mutex;
  return mutex;
}
template <typename Map> std::vector<std::string> keysOf(const Map &map) {
  std::vector<std::string> keys;
  keys.reserve(map.size());
  for (const auto &entry : map)
    keys.push_back(entry.first);
  return keys;
}
} // namespace

FusionRegistry::FusionRegistry() {
  strategies["greedy"] = createGreedyStrategy;
  strategies["dp"] = createDynamicProgrammingStrategy;
  strategies["none"] = createNoFusionStrategy;
  costModels["roofline"] = [](const CostTarget &target) { return std::make_unique<RooflineCostModel>(target); };
}

FusionRegistry &FusionRegistry::instance() {
  static FusionRegistry registry;
  return registry;
}

void FusionRegistry::registerStrategy(const std::string &name, StrategyFactory factory) {
  std::lock_guard<std::mutex> lock(registryMutex());
  strategies[name] = std::move(factory);
}

void FusionRegistry::registerCostModel(const std::string &name, CostModelFactory factory) {
  std::lock_guard<std::mutex> lock(registryMutex());
  costModels[name] = std::move(factory);
}

void FusionRegistry::registerPattern(const std::string &name, PatternPopulator populate) {
  std::lock_guard<std::mutex> lock(registryMutex());
  patterns[name] = std::move(populate);
}

std::unique_ptr<FusionStrategy> FusionRegistry::createStrategy(const std::string &name) const {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = strategies.find(name);
  return it == strategies.end() ? nullptr : it->second();
}

std::unique_ptr<CostModel> FusionRegistry::createCostModel(const std::string &name, const CostTarget &target) const {
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = costModels.find(name);
  return it == costModels.end() ? nullptr : it->second(target);
}

void FusionRegistry::populatePatterns(mlir::RewritePatternSet &set, const std::vector<std::string> &disabled) const {
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const auto &[name, populate] : patterns)
    if (std::find(disabled.begin(), disabled.end(), name) == disabled.end())
      populate(set);
}

std::vector<std::string> FusionRegistry::strategyNames() const {
  std::lock_guard<std::mutex> lock(registryMutex());
  return keysOf(strategies);
}
std::vector<std::string> FusionRegistry::costModelNames() const {
  std::lock_guard<std::mutex> lock(registryMutex());
  return keysOf(costModels);
}
std::vector<std::string> FusionRegistry::patternNames() const {
  std::lock_guard<std::mutex> lock(registryMutex());
  return keysOf(patterns);
}

} // namespace fusec
