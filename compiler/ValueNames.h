//===- ValueNames.h - Stable names for the values of a model ---*- C++ -*-===//
//
// Plans and exported JSON name every tensor. Graph inputs and outputs keep
// their names (the `fuse.name` attributes); other values are named after the
// node that produced them (its NameLoc), made unique deterministically.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_VALUENAMES_H
#define FUSEC_COMPILER_VALUENAMES_H

#include "ir/NodeNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace fusec {

/// A readable name for an op: its node names joined by '+', or its op name.
std::string opDisplayName(mlir::Operation *op);

class ValueNames {
public:
  explicit ValueNames(mlir::func::FuncOp func);
  const std::string &operator[](mlir::Value value) const;

private:
  std::string unique(std::string name);
  llvm::DenseMap<mlir::Value, std::string> names;
  llvm::StringMap<unsigned> used;
};

} // namespace fusec

#endif // FUSEC_COMPILER_VALUENAMES_H
