//===- GraphBuilder.cpp - Graph to fuse dialect ---------------------------===//
#include "compiler/import/GraphBuilder.h"
#include "compiler/import/OnnxOpBuilders.h"
#include "compiler/import/TypedConstants.h"
#include "ir/ElementTypes.h"

#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <queue>

using namespace mlir;

namespace fusec::import {

Location nodeLocation(MLIRContext &context, StringRef file, StringRef node) {
  return NameLoc::get(StringAttr::get(&context, node), FileLineColLoc::get(&context, file, 0, 0));
}

namespace {

class ModuleBuilder {
public:
  ModuleBuilder(const Graph &graph, MLIRContext &context)
      : graph(graph), context(context), fileLoc(FileLineColLoc::get(&context, graph.sourcePath, 0, 0)) {}

  OwningOpRef<ModuleOp> build();

private:
  LogicalResult checkNames();
  FailureOr<std::vector<size_t>> topologicalOrder();
  LogicalResult emitNodes(OpBuilder &builder, ArrayRef<size_t> order);
  LogicalResult checkOutputTypes(ArrayRef<Value> results);
  Location locOf(const GraphNode &node) { return nodeLocation(context, graph.sourcePath, node.name); }

  const Graph &graph;
  MLIRContext &context;
  Location fileLoc;
  /// Which node (index) produces each tensor; graph inputs and constants map
  /// to kNoProducer.
  llvm::StringMap<size_t> producer;
  llvm::StringMap<const GraphConstant *> constants;
  llvm::StringMap<Value> values;
  static constexpr size_t kNoProducer = ~size_t(0);
};

LogicalResult ModuleBuilder::checkNames() {
  auto define = [&](StringRef tensor, size_t node, Location loc) -> LogicalResult {
    if (tensor.empty())
      return emitError(loc) << "tensor names must not be empty";
    if (!producer.insert({tensor, node}).second)
      return emitError(loc) << "tensor '" << tensor << "' is defined more than once";
    return success();
  };
  for (const GraphInput &input : graph.inputs) {
    if (failed(define(input.name, kNoProducer, fileLoc)))
      return failure();
    for (int64_t dim : input.shape) {
      std::optional<size_t> range = rangeIndexOf(dim);
      if (range ? *range >= graph.rangeNames.size() : dim < kBatchDim)
        return emitError(fileLoc) << "graph input '" << input.name << "' has an invalid dimension " << dim;
    }
  }
  for (const GraphConstant &constant : graph.constants) {
    if (failed(define(constant.name, kNoProducer, fileLoc)))
      return failure();
    int64_t elements = 1;
    for (int64_t dim : constant.shape) {
      if (dim < 0)
        return emitError(fileLoc) << "constant '" << constant.name << "' has an invalid dimension " << dim;
      elements *= dim;
    }
    if (elements != static_cast<int64_t>(constant.size()))
      return emitError(fileLoc) << "constant '" << constant.name << "' has " << constant.size()
                                << " values but its shape " << fuse::shapeToString(constant.shape) << " needs "
                                << elements;
    constants[constant.name] = &constant;
  }
  llvm::StringMap<bool> nodeNames;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode &node = graph.nodes[i];
    if (node.name.empty())
      return emitError(fileLoc) << "node " << i << " (" << node.opType << ") has no name";
    if (!nodeNames.insert({node.name, true}).second)
      return emitError(locOf(node)) << "node name '" << node.name << "' is used more than once";
    if (node.outputs.empty())
      return emitError(locOf(node)) << "node has no outputs";
    for (const std::string &output : node.outputs)
      if (!output.empty() && failed(define(output, i, locOf(node))))
        return failure();
  }
  for (const GraphNode &node : graph.nodes)
    for (const std::string &input : node.inputs)
      if (!input.empty() && !producer.count(input))
        return emitError(locOf(node)) << "input '" << input << "' is not a graph input, a constant or a node output";
  llvm::StringMap<bool> outputs;
  if (graph.outputs.empty())
    return emitError(fileLoc) << "the graph has no outputs";
  for (const std::string &output : graph.outputs) {
    auto it = producer.find(output);
    if (it == producer.end())
      return emitError(fileLoc) << "graph output '" << output << "' is not produced by any node";
    if (it->second == kNoProducer)
      return emitError(fileLoc) << "graph output '" << output
                                << "' must be computed by a node, not be a graph input or constant";
    if (!outputs.insert({output, true}).second)
      return emitError(fileLoc) << "graph output '" << output << "' is listed more than once";
  }
  return success();
}

FailureOr<std::vector<size_t>> ModuleBuilder::topologicalOrder() {
  size_t count = graph.nodes.size();
  std::vector<size_t> pending(count, 0);
  std::vector<std::vector<size_t>> consumers(count);
  for (size_t i = 0; i < count; ++i)
    for (const std::string &input : graph.nodes[i].inputs) {
      if (input.empty())
        continue;
      size_t from = producer.lookup(input);
      if (from == kNoProducer)
        continue;
      ++pending[i];
      consumers[from].push_back(i);
    }
  // Ready nodes leave in file order, so the emitted order is deterministic and
  // equals the file order when the file is already sorted.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < count; ++i)
    if (pending[i] == 0)
      ready.push(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t node = ready.top();
    ready.pop();
    order.push_back(node);
    for (size_t consumer : consumers[node])
      if (--pending[consumer] == 0)
        ready.push(consumer);
  }
  if (order.size() == count)
    return order;
  auto diag = emitError(fileLoc) << "the graph has a cycle through nodes ";
  bool first = true;
  for (size_t i = 0; i < count; ++i) {
    if (pending[i] == 0)
      continue;
    diag << (first ? "'" : ", '") << graph.nodes[i].name << "'";
    first = false;
  }
  return failure();
}

LogicalResult ModuleBuilder::emitNodes(OpBuilder &builder, ArrayRef<size_t> order) {
  for (size_t index : order) {
    const GraphNode &node = graph.nodes[index];
    Location loc = locOf(node);
    SmallVector<Value> operands;
    for (const std::string &input : node.inputs) {
      if (input.empty()) {
        operands.push_back(Value());
        continue;
      }
      Value &value = values[input];
      if (!value) {
        const GraphConstant *constant = constants.lookup(input);
        assert(constant && "checkNames guarantees every input is defined");
        value = createGraphConstant(builder, nodeLocation(context, graph.sourcePath, input), *constant);
      }
      operands.push_back(value);
    }
    size_t numResults = node.outputs.size();
    while (numResults > 0 && node.outputs[numResults - 1].empty())
      --numResults;
    ImportedNode imported{node.name,  node.opType,         operands,  node.attrs, loc,
                          numResults, node.outputs.size(), node.opset};
    auto results = buildOnnxNode(builder, imported);
    if (failed(results))
      return failure();
    for (size_t i = 0; i < numResults; ++i)
      if (!node.outputs[i].empty())
        values[node.outputs[i]] = (*results)[i];
  }
  return success();
}

LogicalResult ModuleBuilder::checkOutputTypes(ArrayRef<Value> results) {
  for (auto [output, value] : llvm::zip(graph.outputs, results)) {
    auto declared = graph.declaredOutputTypes.find(output);
    if (declared == graph.declaredOutputTypes.end())
      continue;
    std::optional<StringRef> computed = fuse::elementTypeName(fuse::elementTypeOf(value));
    if (computed && *computed == runtime::elementTypeName(declared->second))
      continue;
    return emitError(fileLoc) << "graph output '" << output << "' is declared "
                              << runtime::elementTypeName(declared->second) << " but the graph computes "
                              << (computed ? *computed : StringRef("another type"));
  }
  return success();
}

OwningOpRef<ModuleOp> ModuleBuilder::build() {
  if (failed(checkNames()))
    return nullptr;
  auto order = topologicalOrder();
  if (failed(order))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> inputTypes;
  for (const GraphInput &input : graph.inputs) {
    SmallVector<int64_t> shape;
    for (int64_t dim : input.shape) {
      if (std::optional<size_t> range = rangeIndexOf(dim)) {
        std::optional<int64_t> symbol = fuse::symbolDim(graph.rangeNames[*range]);
        if (!symbol)
          return (emitError(fileLoc) << "graph input '" << input.name << "': too many named run-time dimensions",
                  nullptr);
        shape.push_back(*symbol);
      } else {
        shape.push_back(dim == kBatchDim ? fuse::kDynamic : dim);
      }
    }
    inputTypes.push_back(fuse::symbolicTensorType(shape, elementTypeFor(&context, input.dtype)));
  }
  auto func = builder.create<func::FuncOp>(fileLoc, kEntryFunction, builder.getFunctionType(inputTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, input] : llvm::enumerate(graph.inputs)) {
    func.setArgAttr(i, kTensorNameAttr, builder.getStringAttr(input.name));
    values[input.name] = entry->getArgument(i);
  }
  builder.setInsertionPointToStart(entry);
  if (failed(emitNodes(builder, *order)))
    return nullptr;

  SmallVector<Value> results;
  for (const std::string &output : graph.outputs)
    results.push_back(values.lookup(output));
  if (failed(checkOutputTypes(results)))
    return nullptr;
  builder.create<func::ReturnOp>(fileLoc, results);
  func.setFunctionType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.outputs))
    func.setResultAttr(i, kTensorNameAttr, builder.getStringAttr(output));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> buildModule(const Graph &graph, MLIRContext &context) {
  return ModuleBuilder(graph, context).build();
}

} // namespace fusec::import
