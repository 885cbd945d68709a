//===- Plugins.cpp - Load fusion plugins ----------------------------------===//
#include "compiler/Plugins.h"

#include "passes/FusionRegistry.h"

#include "llvm/Support/DynamicLibrary.h"

namespace fusec {

bool loadFusionPlugin(const std::string &path, std::string &error) {
  std::string message;
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &message);
  if (!library.isValid()) {
    error = "cannot load plugin '" + path + "': " + message;
    return false;
  }
  void *entry = library.getAddressOfSymbol(FUSEC_PLUGIN_ENTRY_POINT);
  if (!entry) {
    error = "plugin '" + path + "' has no '" FUSEC_PLUGIN_ENTRY_POINT "' entry point";
    return false;
  }
  reinterpret_cast<FusecPluginRegisterFn>(entry)(FusionRegistry::instance());
  return true;
}

} // namespace fusec
