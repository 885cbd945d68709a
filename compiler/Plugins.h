//===- Plugins.h - Load fusion plugins --------------------------*- C++ -*-===//
#ifndef FUSEC_COMPILER_PLUGINS_H
#define FUSEC_COMPILER_PLUGINS_H

#include <string>

namespace fusec {

/// Loads a shared library and calls its `fusecRegisterPlugin` entry point
/// (see passes/FusionRegistry.h), which registers fusion patterns, cost
/// models or strategies. The library stays loaded. Returns false with a
/// message naming the file on failure.
bool loadFusionPlugin(const std::string &path, std::string &error);

} // namespace fusec

#endif // FUSEC_COMPILER_PLUGINS_H
