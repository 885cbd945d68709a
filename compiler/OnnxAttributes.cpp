//===- OnnxAttributes.cpp - fuse op attributes as ONNX JSON ---------------===//
#include "compiler/OnnxAttributes.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace fusec {

nlohmann::json onnxAttributesToJson(Operation *op) {
  nlohmann::json attrs = nlohmann::json::object();
  for (NamedAttribute attr : op->getAttrDictionary()) {
    std::string name = attr.getName().str();
    // Dialect-prefixed attributes (fuse.group, ...) are compiler annotations.
    if (name.find('.') != std::string::npos)
      continue;
    Attribute value = attr.getValue();
    // Not an ONNX attribute: written only where it changes the op (the
    // channels-last forms of fuse-convert-to-channels-last), so exported
    // graphs stay ONNX's.
    if (name == "channels_last" && llvm::isa<BoolAttr>(value) && !llvm::cast<BoolAttr>(value).getValue())
      continue;
    if (auto ints = llvm::dyn_cast<DenseI64ArrayAttr>(value))
      attrs[name] = std::vector<int64_t>(ints.asArrayRef());
    else if (auto floats = llvm::dyn_cast<DenseF32ArrayAttr>(value))
      attrs[name] = std::vector<float>(floats.asArrayRef());
    else if (auto flag = llvm::dyn_cast<BoolAttr>(value))
      attrs[name] = flag.getValue() ? 1 : 0;
    else if (auto integer = llvm::dyn_cast<IntegerAttr>(value))
      attrs[name] = integer.getInt();
    else if (auto number = llvm::dyn_cast<FloatAttr>(value))
      attrs[name] = number.getValueAsDouble();
    else if (auto text = llvm::dyn_cast<StringAttr>(value))
      attrs[name] = text.str();
  }
  return attrs;
}

} // namespace fusec
