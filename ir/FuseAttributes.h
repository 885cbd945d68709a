//===- FuseAttributes.h - fuse dialect attributes -------------*- C++ -*-===//
#ifndef FUSEC_IR_FUSEATTRIBUTES_H
#define FUSEC_IR_FUSEATTRIBUTES_H

#include "ir/FuseDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "ir/FuseAttributes.h.inc"

#endif // FUSEC_IR_FUSEATTRIBUTES_H
