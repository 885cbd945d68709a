//===- FusionRegistry.h - Plug-in strategies, cost models, patterns -*- C++ -*-===//
//
// Users extend fusion without editing fusec: a plugin (a shared library
// loaded with `fusec --plugin=lib.so`, or code linked into an embedding
// compiler) registers named strategies, cost models and rewrite patterns here.
// Built-in ones are registered the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PASSES_FUSIONREGISTRY_H
#define FUSEC_PASSES_FUSIONREGISTRY_H

#include "passes/cost/CostModel.h"
#include "passes/strategies/Strategy.h"

#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusec {

class FusionRegistry {
public:
  using StrategyFactory = std::function<std::unique_ptr<FusionStrategy>()>;
  /// Makes a cost model for a target: a device, the batch tensors are
  /// priced at, and the compile's product precision and kernel target.
  using CostModelFactory = std::function<std::unique_ptr<CostModel>(const CostTarget &)>;
  /// Adds rewrite patterns that run before fusion groups are formed (pass
  /// `fuse-apply-plugin-patterns`), e.g. to rewrite a custom activation.
  using PatternPopulator = std::function<void(mlir::RewritePatternSet &)>;

  /// The process-wide registry, with the built-ins already registered.
  static FusionRegistry &instance();

  void registerStrategy(const std::string &name, StrategyFactory factory);
  void registerCostModel(const std::string &name, CostModelFactory factory);
  void registerPattern(const std::string &name, PatternPopulator populate);

  /// Null when no strategy or cost model has that name.
  std::unique_ptr<FusionStrategy> createStrategy(const std::string &name) const;
  std::unique_ptr<CostModel> createCostModel(const std::string &name, const CostTarget &target) const;
  void populatePatterns(mlir::RewritePatternSet &patterns, const std::vector<std::string> &disabled) const;

  std::vector<std::string> strategyNames() const;
  std::vector<std::string> costModelNames() const;
  std::vector<std::string> patternNames() const;

private:
  FusionRegistry();
  std::map<std::string, StrategyFactory> strategies;
  std::map<std::string, CostModelFactory> costModels;
  std::map<std::string, PatternPopulator> patterns;
};

} // namespace fusec

/// The entry point a fusec plugin library exports (with C linkage).
extern "C" typedef void (*FusecPluginRegisterFn)(fusec::FusionRegistry &);
#define FUSEC_PLUGIN_ENTRY_POINT "fusecRegisterPlugin"

#endif // FUSEC_PASSES_FUSIONREGISTRY_H
