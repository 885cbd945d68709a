//===- OnnxBuildContext.h - What a per-op ONNX builder works with --*- C++ -*-===//
//
// Internal to the ONNX/JSON node builders (OnnxOpBuilders.cpp and the
// composite lowerings of OnnxCompositeOps.cpp): reading a node's
// attributes with defaults, and creating fuse ops whose result types are
// inferred.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_ONNXBUILDCONTEXT_H
#define FUSEC_COMPILER_IMPORT_ONNXBUILDCONTEXT_H

#include "compiler/import/NodeAttributes.h"
#include "compiler/import/OnnxOpBuilders.h"

#include "ir/FuseOps.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <set>
#include <string>
#include <vector>

namespace fusec::import {

using mlir::ArrayRef;
using mlir::BoolAttr;
using mlir::DenseI64ArrayAttr;
using mlir::emitError;
using mlir::failed;
using mlir::failure;
using mlir::FailureOr;
using mlir::FloatAttr;
using mlir::IntegerAttr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::StringRef;
using mlir::Twine;
using mlir::Type;
using mlir::UnrankedTensorType;
using mlir::Value;

/// Reads a node's attributes with defaults; remembers which names were read
/// so unknown attributes can be reported.
class AttrReader {
public:
  explicit AttrReader(const ImportedNode &node) : node(node) {}

  bool has(StringRef name) const { return node.attrs.count(name.str()) != 0; }
  /// Counts every attribute as read: a composite passes them all on to the
  /// node it builds (QLinearConv's to its Conv), whose reader checks them.
  void passOnAll() {
    for (const auto &entry : node.attrs)
      used.insert(entry.first);
  }

  int64_t getInt(StringRef name, int64_t defaultValue) {
    const AttrValue *value = lookup(name);
    if (!value)
      return defaultValue;
    if (value->kind != AttrValue::Kind::Int)
      return typeError(name, "an integer"), defaultValue;
    return value->i;
  }

  /// An integer attribute that means a boolean: 0 or 1 (rules::checkFlag).
  bool getFlag(StringRef name, bool defaultValue) {
    const int64_t value = getInt(name, defaultValue ? 1 : 0);
    const std::string error = rules::checkFlag(name.str().c_str(), value);
    if (!error.empty())
      invalid(node.opType + " attribute " + error);
    return value != 0;
  }

  float getFloat(StringRef name, float defaultValue) {
    const AttrValue *value = lookup(name);
    if (!value)
      return defaultValue;
    if (value->kind == AttrValue::Kind::Float)
      return narrowToFloat(value->f);
    if (value->kind == AttrValue::Kind::Int)
      return static_cast<float>(value->i);
    return typeError(name, "a number"), defaultValue;
  }

  std::string getString(StringRef name, StringRef defaultValue) {
    const AttrValue *value = lookup(name);
    if (!value)
      return defaultValue.str();
    if (value->kind != AttrValue::Kind::String)
      return typeError(name, "a string"), defaultValue.str();
    return value->s;
  }

  std::vector<int64_t> getInts(StringRef name, std::vector<int64_t> defaultValue) {
    const AttrValue *value = lookup(name);
    if (!value)
      return defaultValue;
    if (value->kind != AttrValue::Kind::Ints)
      return typeError(name, "a list of integers"), defaultValue;
    return value->ints;
  }

  /// A list of numbers; integers and a single number are accepted too (JSON
  /// writes [1, 1, 2, 2], ONNX a one-element tensor as a number).
  std::vector<double> getFloats(StringRef name, std::vector<double> defaultValue) {
    const AttrValue *value = lookup(name);
    if (!value)
      return defaultValue;
    switch (value->kind) {
    case AttrValue::Kind::Floats:
      return value->floats;
    case AttrValue::Kind::Ints:
      return std::vector<double>(value->ints.begin(), value->ints.end());
    case AttrValue::Kind::Float:
      return {value->f};
    case AttrValue::Kind::Int:
      return {static_cast<double>(value->i)};
    default:
      return typeError(name, "a list of numbers"), defaultValue;
    }
  }

  /// Marks an attribute as understood without reading it, after checking
  /// that it holds `expected` when it is present.
  void acceptOnly(StringRef name, const AttrValue &expected) {
    const AttrValue *value = lookup(name);
    if (!value)
      return;
    bool same = value->kind == expected.kind && value->i == expected.i && value->s == expected.s;
    if (!same)
      unsupported(name, "only its default value is supported");
  }
  void ignore(StringRef name) { lookup(name); }

  void unsupported(StringRef name, StringRef why) {
    failed = true;
    emitError(node.loc) << "attribute '" << name << "' of " << node.opType << " is not supported: " << why;
  }
  void invalid(const Twine &message) {
    failed = true;
    emitError(node.loc) << message;
  }

  /// Fails on any attribute nobody read and on earlier errors.
  LogicalResult finish() {
    for (const auto &entry : node.attrs) {
      if (used.count(entry.first))
        continue;
      emitError(node.loc) << "unknown attribute '" << entry.first << "' for " << node.opType;
      failed = true;
    }
    return failure(failed);
  }

private:
  const AttrValue *lookup(StringRef name) {
    used.insert(name.str());
    auto it = node.attrs.find(name.str());
    return it == node.attrs.end() ? nullptr : &it->second;
  }
  void typeError(StringRef name, StringRef expected) {
    failed = true;
    emitError(node.loc) << "attribute '" << name << "' of " << node.opType << " must be " << expected;
  }

  const ImportedNode &node;
  std::set<std::string> used;
  bool failed = false;
};

using Results = SmallVector<Value>;

/// Everything a per-op builder needs.
struct BuildContext {
  OpBuilder &builder;
  const ImportedNode &node;
  AttrReader &attrs;

  Location loc() const { return node.loc; }
  Value operand(size_t i) const { return i < node.operands.size() ? node.operands[i] : Value(); }
  int64_t rank(size_t i) const { return llvm::cast<RankedTensorType>(operand(i).getType()).getRank(); }
  ArrayRef<int64_t> shape(size_t i) const { return llvm::cast<RankedTensorType>(operand(i).getType()).getShape(); }
  DenseI64ArrayAttr ints(ArrayRef<int64_t> v) { return builder.getDenseI64ArrayAttr(v); }
  IntegerAttr i64(int64_t v) { return builder.getI64IntegerAttr(v); }
  FloatAttr f32(float v) { return builder.getF32FloatAttr(v); }
  BoolAttr boolean(int64_t v) { return builder.getBoolAttr(v != 0); }

  /// Maps a possibly negative axis into [0, rank) (or [0, rank] when
  /// `inclusiveEnd`), diagnosing values outside [-rank, rank).
  FailureOr<int64_t> normalizeAxis(StringRef name, int64_t axis, int64_t rank, bool inclusiveEnd = false) {
    int64_t limit = inclusiveEnd ? rank + 1 : rank;
    int64_t normalized = axis < 0 ? axis + rank : axis;
    if (normalized < 0 || normalized >= limit) {
      attrs.invalid("attribute '" + name + "' " + Twine(axis) + " is out of range for rank " + Twine(rank));
      return failure();
    }
    return normalized;
  }

  /// Creates an op with a placeholder result type, then infers the real one.
  template <typename OpTy, typename... Args> FailureOr<Value> create(Args &&...args) {
    Type placeholder = UnrankedTensorType::get(builder.getF32Type());
    auto op = builder.create<OpTy>(loc(), placeholder, std::forward<Args>(args)...);
    if (failed(fuse::inferAndSetResultTypes(op))) {
      op->erase();
      return failure();
    }
    return op->getResult(0);
  }
};

inline mlir::FailureOr<Results> single(mlir::FailureOr<mlir::Value> value) {
  if (failed(value))
    return failure();
  return Results{*value};
}

/// A one-element f32 constant.
inline Value scalarConstant(BuildContext &ctx, float value) {
  auto type = RankedTensorType::get({}, ctx.builder.getF32Type());
  return ctx.builder.create<fuse::ConstantOp>(ctx.loc(),
                                              mlir::DenseElementsAttr::get(type, ctx.builder.getF32FloatAttr(value)));
}

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_ONNXBUILDCONTEXT_H
