//===- JsonExporter.cpp - fuse dialect to fusec-graph JSON ----------------===//
#include "compiler/export/JsonExporter.h"
#include "compiler/OnnxAttributes.h"
#include "compiler/ValueNames.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/Safetensors.h"

#include "ir/ConstantData.h"
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include "support/FileIO.h"
#include "support/HalfFloat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cstring>

using namespace mlir;
using nlohmann::json;

namespace fusec {
namespace {

json shapeToJson(Type type) {
  json shape = json::array();
  // The batch and each range's dimension by name ("batch", "seq").
  for (int64_t dim : fuse::symbolicShape(type)) {
    if (fuse::isSymbolic(dim))
      shape.push_back(fuse::symbolName(dim));
    else
      shape.push_back(dim);
  }
  return shape;
}

/// The plan dtype name of `value`'s element type (the dialect admits no
/// other types).
StringRef dtypeOf(Value value) { return *fuse::elementTypeName(fuse::elementTypeOf(value)); }

/// A constant as the safetensors writer takes it: floats widened exactly
/// from f16/bf16, integers as int64.
FailureOr<import::GraphConstant> exportConstant(fuse::ConstantOp constant, const std::string &name) {
  std::vector<uint8_t> storage;
  auto bytes = fuse::constantBytes(constant.getValue(), storage);
  if (!bytes)
    return constant.emitError() << "constant data is unavailable";
  auto type = llvm::cast<RankedTensorType>(constant.getType());
  import::GraphConstant result;
  result.name = name;
  result.shape.assign(type.getShape().begin(), type.getShape().end());
  result.dtype = *runtime::parseElementType(dtypeOf(constant.getResult()).str());
  const size_t count = static_cast<size_t>(type.getNumElements());
  const uint8_t *data = bytes->data();
  auto read = [&](auto sample, size_t i) {
    decltype(sample) value;
    std::memcpy(&value, data + i * sizeof value, sizeof value);
    return value;
  };
  for (size_t i = 0; i < count; ++i) {
    switch (result.dtype) {
    case import::DType::F32:
      result.data.push_back(read(float(), i));
      break;
    case import::DType::F16:
      result.data.push_back(halfBitsToFloat(read(uint16_t(), i)));
      break;
    case import::DType::BF16:
      result.data.push_back(bfloat16BitsToFloat(read(uint16_t(), i)));
      break;
    case import::DType::I64:
      result.ints.push_back(read(int64_t(), i));
      break;
    case import::DType::I32:
      result.ints.push_back(read(int32_t(), i));
      break;
    case import::DType::I1:
      result.ints.push_back(data[i] != 0);
      break;
    case import::DType::I8:
      result.ints.push_back(read(int8_t(), i));
      break;
    case import::DType::U8:
      result.ints.push_back(read(uint8_t(), i));
      break;
    }
  }
  return result;
}

} // namespace

LogicalResult exportJsonModel(ModuleOp module, const std::string &jsonPath) {
  auto func = module.lookupSymbol<func::FuncOp>(import::kEntryFunction);
  if (!func)
    return emitError(module.getLoc()) << "the module has no @" << import::kEntryFunction;
  ValueNames names(func);
  llvm::SmallString<256> weightsPath(jsonPath);
  llvm::sys::path::replace_extension(weightsPath, "safetensors");

  json inputs = json::array(), outputs = json::array(), nodes = json::array();
  std::vector<import::GraphConstant> constants;
  for (BlockArgument arg : func.getArguments())
    inputs.push_back({{"name", names[arg]}, {"dtype", dtypeOf(arg).str()}, {"shape", shapeToJson(arg.getType())}});
  for (Operation &op : func.getBody().front()) {
    if (auto constant = llvm::dyn_cast<fuse::ConstantOp>(op)) {
      auto exported = exportConstant(constant, names[constant.getResult()]);
      if (failed(exported))
        return failure();
      constants.push_back(std::move(*exported));
      continue;
    }
    if (llvm::isa<func::ReturnOp>(op)) {
      // An f32 output is its name; others say their dtype.
      for (Value value : op.getOperands())
        outputs.push_back(fuse::elementTypeOf(value).isF32()
                              ? json(names[value])
                              : json{{"name", names[value]}, {"dtype", dtypeOf(value).str()}});
      continue;
    }
    auto onnx = llvm::dyn_cast<fuse::OnnxOpInterface>(op);
    if (!onnx)
      return op.emitError() << "cannot be exported to the JSON format (fused IR?)";
    json opInputs = json::array(), opOutputs = json::array();
    for (Value operand : op.getOperands())
      opInputs.push_back(names[operand]);
    for (Value result : op.getResults())
      opOutputs.push_back(names[result]);
    // Result names are unique; the first one names the node.
    nodes.push_back({{"name", names[op.getResult(0)]},
                     {"op", onnx.getOnnxName().str()},
                     {"inputs", opInputs},
                     {"outputs", opOutputs},
                     {"attrs", onnxAttributesToJson(&op)}});
  }
  json root = {{"format", "fusec-graph"}, {"version", 1}, {"inputs", inputs}, {"outputs", outputs}, {"nodes", nodes}};
  if (!constants.empty()) {
    root["weights"] = llvm::sys::path::filename(weightsPath).str();
    if (failed(import::writeSafetensors(weightsPath, module.getLoc(), constants)))
      return failure();
  }
  // One line per input, node and constant: easy to read, diff and edit.
  std::string text = "{\n";
  bool firstField = true;
  for (auto &[key, value] : root.items()) {
    text += firstField ? "  " : ",\n  ";
    firstField = false;
    text += json(key).dump() + ": ";
    if (value.is_array() && !value.empty() && value.front().is_object()) {
      text += "[\n";
      for (size_t i = 0; i < value.size(); ++i)
        text += "    " + value[i].dump() + (i + 1 < value.size() ? ",\n" : "\n");
      text += "  ]";
    } else {
      text += value.dump();
    }
  }
  text += "\n}\n";
  try {
    runtime::writeFileAtomically(jsonPath, std::vector<uint8_t>(text.begin(), text.end()));
  } catch (const std::exception &error) {
    return emitError(module.getLoc()) << error.what();
  }
  return success();
}

} // namespace fusec
