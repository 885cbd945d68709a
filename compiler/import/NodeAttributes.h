//===- NodeAttributes.h - Importer-neutral node attributes -----*- C++ -*-===//
//
// Both importers (JSON, ONNX) translate their attributes to this small
// variant so one table (OnnxOpBuilders) maps ONNX nodes to fuse ops.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_IMPORT_NODEATTRIBUTES_H
#define FUSEC_COMPILER_IMPORT_NODEATTRIBUTES_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fusec::import {

struct AttrValue {
  enum class Kind { Int, Float, String, Ints, Floats };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  static AttrValue ofInt(int64_t v) {
    AttrValue a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static AttrValue ofFloat(double v) {
    AttrValue a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
  static AttrValue ofString(std::string v) {
    AttrValue a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
  static AttrValue ofInts(std::vector<int64_t> v) {
    AttrValue a;
    a.kind = Kind::Ints;
    a.ints = std::move(v);
    return a;
  }
  static AttrValue ofFloats(std::vector<double> v) {
    AttrValue a;
    a.kind = Kind::Floats;
    a.floats = std::move(v);
    return a;
  }
};

/// Sorted by name so iteration (and therefore output) is deterministic.
using NodeAttributes = std::map<std::string, AttrValue>;

} // namespace fusec::import

#endif // FUSEC_COMPILER_IMPORT_NODEATTRIBUTES_H
