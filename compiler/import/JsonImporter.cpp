//===- JsonImporter.cpp - fusec-graph JSON to the fuse dialect -----------===//
#include "compiler/import/JsonImporter.h"
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/Safetensors.h"
#include "support/CheckedMath.h"
#include "support/HalfFloat.h"

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
  JsonGraphReader(StringRef path, MLIRContext &context, const DimensionSizes &sizes)
      : path(path.str()), context(context), fileLoc(FileLineColLoc::get(&context, path, 0, 0)), dimensions(sizes) {}

  /// Reads the file at `path`.
  FailureOr<Graph> read();
  /// Reads `text` as the contents of `path`.
  FailureOr<Graph> read(StringRef text);

private:
  LogicalResult fail(const Twine &where, const Twine &message) {
    return emitError(fileLoc) << where << ": " << message;
  }
  LogicalResult readShape(const json &value, const Twine &where, std::vector<int64_t> &shape, bool allowBatch);
  LogicalResult readDType(const json &object, const std::string &where, DType &dtype);
  LogicalResult readConstantData(const json &data, const std::string &where, GraphConstant &constant);
  LogicalResult readInputs(const json &root, Graph &graph);
  LogicalResult readOutputs(const json &root, Graph &graph);
  LogicalResult readConstants(const json &root, Graph &graph);
  LogicalResult readNodes(const json &root, Graph &graph);
  LogicalResult readAttribute(const json &value, const std::string &where, AttrValue &attr);
  LogicalResult readNames(const json &value, const Twine &where, std::vector<std::string> &names, bool allowEmpty);

  std::string path;
  MLIRContext &context;
  Location fileLoc;
  /// The inputs' named dimensions: sizes given for some (fusec --dim), the
  /// batch symbol.
  SymbolicDimensions dimensions;
};

LogicalResult JsonGraphReader::readShape(const json &value, const Twine &where, std::vector<int64_t> &shape,
                                         bool allowBatch) {
  if (!value.is_array())
    return fail(where, "'shape' must be an array");
  for (const json &dim : value) {
    if (dim.is_number_integer() && dim.get<int64_t>() >= 0) {
      shape.push_back(dim.get<int64_t>());
    } else if (dim.is_string() && allowBatch) {
      std::string error;
      std::optional<int64_t> size = dimensions.resolve(dim.get<std::string>(), error);
      if (!size)
        return fail(where, "has " + error);
      shape.push_back(*size);
    } else {
      return fail(where, "shape entries must be non-negative integers" +
                             Twine(allowBatch ? " or the batch symbol" : "") + ", got " + dim.dump());
    }
  }
  if (!isPlausibleShape(dimensions.atRangeMaximum(shape), allowBatch))
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

LogicalResult JsonGraphReader::readDType(const json &object, const std::string &where, DType &dtype) {
  dtype = DType::F32;
  if (!object.contains("dtype"))
    return success();
  const json &value = object["dtype"];
  std::optional<DType> parsed = value.is_string() ? runtime::parseElementType(value.get<std::string>()) : std::nullopt;
  if (!parsed)
    return fail(where, "dtype " + value.dump() + " is not supported (f32, f16, bf16, i64, i32, i1, i8 and u8 are)");
  dtype = *parsed;
  return success();
}

LogicalResult JsonGraphReader::readConstantData(const json &data, const std::string &where, GraphConstant &constant) {
  if (!data.is_array())
    return fail(where, "'data' must be an array of numbers");
  for (const json &value : data) {
    if (!value.is_number())
      return fail(where, "'data' must hold numbers, got " + value.dump());
    switch (constant.dtype) {
    case DType::F32:
    case DType::F16:
    case DType::BF16: {
      // Half-precision data is rounded to its type here, so the constant
      // holds exactly what the plan will.
      float narrowed = narrowToFloat(value.get<double>());
      constant.data.push_back(constant.dtype == DType::F16    ? roundToHalf(narrowed)
                              : constant.dtype == DType::BF16 ? roundToBfloat16(narrowed)
                                                              : narrowed);
      break;
    }
    case DType::I64:
    case DType::I32:
    case DType::I1:
    case DType::I8:
    case DType::U8: {
      bool inRange = value.is_number_integer();
      int64_t integer = inRange ? value.get<int64_t>() : 0;
      if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        inRange = false;
      if (constant.dtype == DType::I32)
        inRange &= integer >= INT32_MIN && integer <= INT32_MAX;
      if (constant.dtype == DType::I1)
        inRange &= integer == 0 || integer == 1;
      if (constant.dtype == DType::I8)
        inRange &= integer >= -128 && integer <= 127;
      if (constant.dtype == DType::U8)
        inRange &= integer >= 0 && integer <= 255;
      if (!inRange)
        return fail(where, "'data' holds " + value.dump() + ", which dtype " +
                               runtime::elementTypeName(constant.dtype) + " cannot hold");
      constant.ints.push_back(integer);
      break;
    }
    }
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
    if (failed(readDType(input, where, graphInput.dtype)))
      return failure();
    if (!input.contains("shape"))
      return fail(where, "needs a 'shape'");
    if (failed(readShape(input["shape"], where, graphInput.shape, /*allowBatch=*/true)))
      return failure();
    graph.inputs.push_back(std::move(graphInput));
  }
  if (std::string unused = dimensions.unusedSizes(); !unused.empty())
    return emitError(fileLoc) << unused;
  graph.rangeNames = dimensions.rangeNames();
  return success();
}

LogicalResult JsonGraphReader::readOutputs(const json &root, Graph &graph) {
  if (!root.contains("outputs") || !root["outputs"].is_array())
    return fail("'outputs'", "is required and must be an array");
  // An output is its name, or an object with its name and declared dtype.
  for (const json &output : root["outputs"]) {
    if (output.is_string() && !output.get<std::string>().empty()) {
      graph.outputs.push_back(output.get<std::string>());
      continue;
    }
    if (!output.is_object() || !output.contains("name") || !output["name"].is_string() ||
        output["name"].get<std::string>().empty())
      return fail("'outputs'", "must hold tensor names or objects with a 'name' and a 'dtype', got " + output.dump());
    std::string name = output["name"];
    std::string where = "output '" + name + "'";
    for (auto &[key, value] : output.items())
      if (key != "name" && key != "dtype")
        return fail(where, "unknown field '" + key + "'");
    DType dtype;
    if (failed(readDType(output, where, dtype)))
      return failure();
    graph.outputs.push_back(name);
    graph.declaredOutputTypes[name] = dtype;
  }
  return success();
}

LogicalResult JsonGraphReader::readConstants(const json &root, Graph &graph) {
  if (root.contains("weights")) {
    if (!root["weights"].is_string())
      return fail("'weights'", "must be the path of a .safetensors file");
    // Relative to the JSON file; an absolute path as it is.
    const std::string weights = root["weights"].get<std::string>();
    llvm::SmallString<256> weightsPath;
    if (!llvm::sys::path::is_absolute(weights))
      weightsPath = llvm::sys::path::parent_path(path);
    llvm::sys::path::append(weightsPath, weights);
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
    GraphConstant constant;
    constant.name = name;
    if (failed(readDType(tensor, where, constant.dtype)) ||
        failed(readShape(tensor["shape"], where, constant.shape, /*allowBatch=*/false)) ||
        failed(readConstantData(tensor["data"], where, constant)))
      return failure();
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
  if (failed(readInputs(root, graph)) || failed(readOutputs(root, graph)) || failed(readConstants(root, graph)) ||
      failed(readNodes(root, graph)))
    return failure();
  return graph;
}

/// Runs `read` on a reader of `path`; a field of an unexpected JSON type
/// that the reader accessed directly becomes a diagnostic.
template <typename Read>
FailureOr<Graph> readReportingTypeErrors(StringRef path, MLIRContext &context, const DimensionSizes &sizes, Read read) {
  try {
    JsonGraphReader reader(path, context, sizes);
    return read(reader);
  } catch (const json::exception &error) {
    return emitError(FileLineColLoc::get(&context, path, 0, 0)) << "invalid model: " << error.what();
  }
}

} // namespace

FailureOr<Graph> readJsonGraph(StringRef path, MLIRContext &context, const DimensionSizes &sizes) {
  return readReportingTypeErrors(path, context, sizes, [&](JsonGraphReader &reader) { return reader.read(); });
}

FailureOr<Graph> readJsonGraphFromBuffer(StringRef text, StringRef path, MLIRContext &context,
                                         const DimensionSizes &sizes) {
  return readReportingTypeErrors(path, context, sizes, [&](JsonGraphReader &reader) { return reader.read(text); });
}

OwningOpRef<ModuleOp> importJsonModel(StringRef path, MLIRContext &context, const DimensionSizes &sizes) {
  auto graph = readJsonGraph(path, context, sizes);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

OwningOpRef<ModuleOp> importJsonModelFromBuffer(StringRef text, StringRef path, MLIRContext &context,
                                                const DimensionSizes &sizes) {
  auto graph = readJsonGraphFromBuffer(text, path, context, sizes);
  if (failed(graph))
    return nullptr;
  return buildModule(*graph, context);
}

} // namespace fusec::import
