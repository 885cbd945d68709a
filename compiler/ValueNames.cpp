//===- ValueNames.cpp - Stable names for the values of a model ------------===//
#include "compiler/ValueNames.h"
#include "compiler/import/GraphBuilder.h"

#include "ir/FuseOps.h"

using namespace mlir;

namespace fusec {

std::string opDisplayName(Operation *op) {
  auto names = fuse::nodeNamesOf(op->getLoc());
  if (names.empty())
    return op->getName().stripDialect().str();
  std::string joined;
  for (const std::string &name : names)
    joined += (joined.empty() ? "" : "+") + name;
  return joined;
}

ValueNames::ValueNames(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), import::kTensorNameAttr);
    names[arg] = unique(name ? name.str() : "input" + std::to_string(arg.getArgNumber()));
  }
  auto returnOp = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(index, import::kTensorNameAttr);
    if (!names.count(value))
      names[value] = unique(name ? name.str() : "output" + std::to_string(index));
  }
  func.walk([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      if (names.count(result))
        continue;
      std::string base = opDisplayName(op);
      if (op->getNumResults() > 1)
        base += ":" + std::to_string(result.getResultNumber());
      names[result] = unique(base);
    }
  });
}

const std::string &ValueNames::operator[](Value value) const {
  auto it = names.find(value);
  assert(it != names.end() && "value of another function");
  return it->second;
}

std::string ValueNames::unique(std::string name) {
  unsigned &count = used[name];
  if (count++ == 0)
    return name;
  std::string candidate;
  do
    candidate = name + "_" + std::to_string(count++);
  while (used.count(candidate));
  used[candidate] = 1;
  return candidate;
}

} // namespace fusec
