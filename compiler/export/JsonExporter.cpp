//===- JsonExporter.cpp - fuse dialect to fusec-graph JSON ----------------===//
#include "compiler/export/JsonExporter.h"
#include "compiler/OnnxAttributes.h"
#include "compiler/ValueNames.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/Safetensors.h"

#include "ir/ConstantData.h"
#include "ir/FuseOps.h"

#include "runtime/support/FileIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using nlohmann::json;

namespace fusec {
namespace {

json shapeToJson(Type type) {
  json shape = json::array();
  for (int64_t dim : llvm::cast<RankedTensorType>(type).getShape()) {
    if (ShapedType::isDynamic(dim))
      shape.push_back("batch");
    else
      shape.push_back(dim);
  }
  return shape;
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
    inputs.push_back({{"name", names[arg]}, {"dtype", "f32"}, {"shape", shapeToJson(arg.getType())}});
  for (Operation &op : func.getBody().front()) {
    if (auto constant = llvm::dyn_cast<fuse::ConstantOp>(op)) {
      auto data = fuse::getConstantData(constant.getValue());
      if (!data)
        return constant.emitError() << "constant data is unavailable";
      auto shape = llvm::cast<RankedTensorType>(constant.getType()).getShape();
      constants.push_back({names[constant.getResult()], {shape.begin(), shape.end()}, std::move(*data)});
      continue;
    }
    if (llvm::isa<func::ReturnOp>(op)) {
      for (Value value : op.getOperands())
        outputs.push_back(names[value]);
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
