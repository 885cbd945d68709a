//===- NodeNames.cpp - Model node names carried by locations --------------===//
#include "ir/NodeNames.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cctype>

using namespace mlir;

namespace fusec::fuse {

llvm::SmallVector<std::string> nodeNamesOf(Location loc) {
  llvm::SmallVector<std::string> names;
  loc->walk([&](Location inner) {
    if (auto named = llvm::dyn_cast<NameLoc>(inner))
      names.push_back(named.getName().str());
    return WalkResult::advance();
  });
  return names;
}

std::string firstNodeName(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = llvm::dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

std::string identifierFrom(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

} // namespace fusec::fuse
