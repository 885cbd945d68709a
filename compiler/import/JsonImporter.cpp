//===- JsonImporter.cpp - fusec-graph JSON to the fuse dialect -----------===//
#include "compiler/import/JsonImporter.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/Safetensors.h"
#include "runtime/support/CheckedMath.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

using namespace mlir;
using nlohmann::json;

namespace fusec::import {
namespace {

inline constexpr const char *kFormatName = "fusec-graph";
inline constexpr int64_t kFormatVersion = 1;

/// Reads one JSON document into a Graph, reporting the first problem.
class JsonGraphReader {
public:
  JsonGraphReader(StringRef path, MLIRContext &context)
      : path(path.str()), context(context), fileLoc(FileLineColLoc::get(&context, path, 0, 0)) {}

  /// Reads the file at `path`.
  FailureOr<Graph> read();
  /// Reads `text` as the contents of `path`.
  FailureOr<Graph> read(StringRef text);

private:
  LogicalResult fail(const Twine &where, const Twine &message) {
    return emitError(fileLoc) << where << ": " << message;
  }
  LogicalResult readShape(const json &value, const Twine &where, std::vector<int64_t> &shape, bool allowBatch);
  LogicalResult readInputs(const json &root, Graph &graph);
  LogicalResult readConstants(const json &root, Graph &graph);
  LogicalResult readNodes(const json &root, Graph &graph);
  LogicalResult readAttribute(const json &value, const std::string &where, AttrValue &attr);
  LogicalResult readNames(const json &value, const Twine &where, std::vector<std::string> &names, bool allowEmpty);

  std::string path;
  MLIRContext &context;
  Location fileLoc;
  /// The symbol naming the batch dimension; every symbolic dimension must use it.
  std::string batchSymbol;
};

LogicalResult JsonGraphReader::readShape(const json &value, const Twine &where, std::vector<int64_t> &shape,
                                         bool allowBatch) {
  if (!value.is_array())
    return fail(where, "'shape' must be an array");
  for (const json &dim : value) {
    if (dim.is_number_integer() && dim.get<int64_t>() >= 0) {
      shape.push_back(dim.get<int64_t>());
    } else if (dim.is_string() && allowBatch) {
      std::string symbol = dim.get<std::string>();
      if (batchSymbol.empty())
        batchSymbol = symbol;
      else if (symbol != batchSymbol)
        return fail(where, "symbolic dimension '" + symbol + "' differs from the batch symbol '" + batchSymbol +
                               "' (only the batch dimension may be symbolic)");
      shape.push_back(kBatchDim);
    } else {
      return fail(where, "shape entries must be non-negative integers" +
                             Twine(allowBatch ? " or the batch symbol" : "") + ", got " + dim.dump());
    }
  }
  if (!isPlausibleShape(shape, allowBatch))
    return fail(where, "shape " + value.dump() + " is implausibly large (more than " + Twine(kMaxTensorBytes) +
                           " bytes per sample)");
  return success();
}

LogicalResult JsonGraphReader::readNames(const json &value, const Twine &where, std::vector<std::string> &names,
                                         bool allowEmpty) {
  if (!value.is_array())
    return fail(where, "must be an array of tensor names");
  for (const json &name : value) {
    if (!name.is_string() || (!allowEmpty && name.get<std::string>().empty()))
      return fail(where, "must hold tensor names (non-empty strings), got " + name.dump());
    names.push_back(name.get<std::string>());
  }
  return success();
}

LogicalResult JsonGraphReader::readInputs(const json &root, Graph &graph) {
  if (!root.contains("inputs") || !root["inputs"].is_array())
    return fail("'inputs'", "is required and must be an array");
  for (const json &input : root["inputs"]) {
    if (!input.is_object() || !input.contains("name") || !input["name"].is_string())
      return fail("'inputs'", "each input must be an object with a string 'name'");
    GraphInput graphInput;
    graphInput.name = input["name"];
    std::string where = "input '" + graphInput.name + "'";
    if (input.contains("dtype") && input["dtype"] != "f32")
      return fail(where, "dtype " + input["dtype"].dump() + " is not supported (only f32)");
    if (!input.contains("shape"))
      return fail(where, "needs a 'shape'");
    if (failed(readShape(input["shape"], where, graphInput.shape, /*allowBatch=*/true)))
      return failure();
    graph.inputs.push_back(std::move(graphInput));
  }
  if (!root.contains("outputs"))
    return fail("'outputs'", "is required");
  return readNames(root["outputs"], "'outputs'", graph.outputs, /*allowEmpty=*/false);
}

LogicalResult JsonGraphReader::readConstants(const json &root, Graph &graph) {
  if (root.contains("weights")) {
    if (!root["weights"].is_string())
      return fail("'weights'", "must be the path of a .safetensors file");
    llvm::SmallString<256> weightsPath(llvm::sys::path::parent_path(path));
    llvm::sys::path::append(weightsPath, root["weights"].get<std::string>());
    if (failed(readSafetensors(weightsPath, fileLoc, graph.constants)))
      return failure();
  }
  if (!root.contains("constants"))
    return success();
  if (!root["constants"].is_object())
    return fail("'constants'", "must be an object mapping names to tensors");
  for (auto &[name, tensor] : root["constants"].items()) {
    std::string where = "constant '" + name + "'";
    if (!tensor.is_object() || !tensor.contains("shape") || !tensor.contains("data"))
      return fail(where, "needs 'shape' and 'data'");
    if (tensor.contains("dtype") && tensor["dtype"] != "f32")
      return fail(where, "dtype " + tensor["dtype"].dump() + " is not supported (only f32)");
    GraphConstant constant;
    constant.name = name;
    if (failed(readShape(tensor["shape"], where, constant.shape, /*allowBatch=*/false)))
      return failure();
    if (!tensor["data"].is_array())
      return fail(where, "'data' must be an array of numbers");
    for (const json &value : tensor["data"]) {
      if (!value.is_number())
        return fail(where, "'data' must hold numbers, got " + value.dump());
      constant.data.push_back(narrowToFloat(value.get<double>()));
    }
    graph.constants.push_back(std::move(constant));
  }
  return success();
}

LogicalResult JsonGraphReader::readAttribute(const json &value, const std::string &where, AttrValue &attr) {
  if (value.is_boolean()) {
    attr = AttrValue::ofInt(value.get<bool>() ? 1 : 0);
  } else if (value.is_number_integer()) {
    attr = AttrValue::ofInt(value.get<int64_t>());
  } else if (value.is_number()) {
    attr = AttrValue::ofFloat(value.get<double>());
  } else if (value.is_string()) {
    attr = AttrValue::ofString(value.get<std::string>());
  } else if (value.is_array()) {
    bool allIntegers = true;
    for (const json &element : value) {
      if (!element.is_number())
        return fail(where, "list attributes must hold numbers, got " + element.dump());
      allIntegers &= element.is_number_integer();
    }
    if (allIntegers)
      attr = AttrValue::ofInts(value.get<std::vector<int64_t>>());
    else
      attr = AttrValue::ofFloats(value.get<std::vector<double>>());
  } else {
    return fail(where, "attribute values must be numbers, strings or lists of numbers, got " + value.dump());
  }
  return success();
}

LogicalResult JsonGraphReader::readNodes(const json &root, Graph &graph) {
  if (!root.contains("nodes") || !root["nodes"].is_array())
    return fail("'nodes'", "is required and must be an array");
  size_t index = 0;
  for (const json &node : root["nodes"]) {
    std::string where = "node " + std::to_string(index++);
    if (!node.is_object())
      return fail(where, "must be an object");
    GraphNode graphNode;
    if (!node.contains("name") || !node["name"].is_string() || node["name"].get<std::string>().empty())
      return fail(where, "needs a non-empty string 'name'");
    graphNode.name = node["name"];
    where = "node '" + graphNode.name + "'";
    if (!node.contains("op") || !node["op"].is_string())
      return fail(where, "needs a string 'op'");
    graphNode.opType = node["op"];
    if (!node.contains("inputs") || !node.contains("outputs"))
      return fail(where, "needs 'inputs' and 'outputs'");
    if (failed(readNames(node["inputs"], where + " 'inputs'", graphNode.inputs, true)) ||
        failed(readNames(node["outputs"], where + " 'outputs'", graphNode.outputs, false)))
      return failure();
    if (node.contains("attrs")) {
      if (!node["attrs"].is_object())
        return fail(where, "'attrs' must be an object");
      for (auto &[name, value] : node["attrs"].items()) {
        AttrValue attr;
        if (failed(readAttribute(value, where + " attribute '" + name + "'", attr)))
          return failure();
        graphNode.attrs[name] = std::move(attr);
      }
    }
    for (auto &[key, value] : node.items())
      if (key != "name" && key != "op" && key != "inputs" && key != "outputs" && key != "attrs")
        return fail(where, "unknown field '" + key + "'");
    graph.nodes.push_back(std::move(graphNode));
  }
  return success();
}

FailureOr<Graph> JsonGraphReader::read() {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return emitError(fileLoc) << "cannot read: " << buffer.getError().message();
  return read((*buffer)->getBuffer());
}

FailureOr<Graph> JsonGraphReader::read(StringRef text) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error &error) {
    // Point at the line and column of the byte the parser stopped at.
    size_t offset = std::min<size_t>(error.byte ? error.byte - 1 : 0, text.size());
    StringRef before = text.take_front(offset);
    unsigned line = before.count('\n') + 1;
    unsigned column = offset - (before.rfind('\n') == StringRef::npos ? 0 : before.rfind('\n') + 1) + 1;
    std::string message = error.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line..:" prefix.
    size_t colon = message.find(": ", message.find("parse error"));
    if (colon != std::string::npos)
      message = message.substr(colon + 2);
    return emitError(FileLineColLoc::get(&context, path, line, column)) << "malformed JSON: " << message;
  }
  if (!root.is_object())
    return emitError(fileLoc) << "the top level must be a JSON object";
  if (!root.contains("format") || root["format"] != kFormatName)
    return emitError(fileLoc) << "'format' must be \"" << kFormatName << "\"";
  if (!root.contains("version") || !root["version"].is_number_integer() ||
      root["version"].get<int64_t>() != kFormatVersion)
    return emitError(fileLoc) << "'version' must be " << kFormatVersion;
  Graph graph;
  graph.sourcePath = path;
  if (failed(readInputs(root, graph)) || failed(readConstants(root, graph)) || failed(readNodes(root, graph)))
    return failure();
  return graph;
}

/// Runs `read` on a reader of `path`; a field of an unexpected JSON type
/// that the reader accessed directly becomes a diagnostic.
template <typename Read> FailureOr<Graph> readReportingTypeErrors(StringRef path, MLIRContext &context, Read read) {
  try {
    JsonGraphReader reader(path, context);
    return read(reader);
  } catch (const json::exception &error) {
    return emitError(FileLineColLoc::get(&context, path, 0, 0)) << "invalid model: " << error.what();
  }
}

} // namespace

FailureOr<Graph> readJsonGraph(StringRef path, MLIRContext &context) {
  return readReportingTypeErrors(path, context, [&](JsonGraphReader &reader) { return reader.read(); });
}

FailureOr<Graph> readJsonGraphFromBuffer(StringRef text, StringRef path, MLIRContext &context) {
  return readReportingTypeErrors(path, context, [&](JsonGraphReader &reader) { return reader.read(text); });
}

OwningOpRef<ModuleOp> importJsonModel(StringRef path, MLIRContext &context) {
  auto graph = readJsonGraph(path, context);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

OwningOpRef<ModuleOp> importJsonModelFromBuffer(StringRef text, StringRef path, MLIRContext &context) {
  auto graph = readJsonGraphFromBuffer(text, path, context);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

} // namespace fusec::import
