//===- DotExporter.cpp - The fused graph as Graphviz DOT ------------------===//
#include "compiler/export/DotExporter.h"
#include "compiler/ValueNames.h"
#include "compiler/import/GraphBuilder.h"

#include "ir/FuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdio>

using namespace mlir;

namespace fusec {
namespace {

std::string quote(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

double costField(fuse::SuperkernelOp kernel, StringRef key) {
  if (DictionaryAttr cost = kernel.getCostAttr())
    if (auto value = llvm::dyn_cast_or_null<FloatAttr>(cost.get(key)))
      return value.getValueAsDouble();
  return 0;
}

class DotWriter {
public:
  explicit DotWriter(func::FuncOp func) : func(func) {}

  std::string write() {
    out = "digraph fusec {\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n";
    for (BlockArgument arg : func.getArguments()) {
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), import::kTensorNameAttr);
      std::string id = "input" + std::to_string(arg.getArgNumber());
      out += "  " + id + " [shape=ellipse, label=" + quote(name ? name.str() : id) + "];\n";
      producerOf[arg] = id;
    }
    unsigned cluster = 0;
    for (Operation &op : func.getBody().front()) {
      if (auto kernel = llvm::dyn_cast<fuse::SuperkernelOp>(op))
        writeKernel(kernel, cluster++);
      else if (!llvm::isa<fuse::ConstantOp, func::ReturnOp>(op))
        writeOp(&op, "  ");
    }
    auto returnOp = llvm::cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      auto name = func.getResultAttrOfType<StringAttr>(index, import::kTensorNameAttr);
      std::string id = "output" + std::to_string(index);
      out += "  " + id + " [shape=ellipse, label=" + quote(name ? name.str() : id) + "];\n";
      edge(value, id);
    }
    out += edges + "}\n";
    return out;
  }

private:
  std::string idOf(Operation *op) {
    auto [it, inserted] = ids.try_emplace(op, "op" + std::to_string(ids.size()));
    return it->second;
  }

  void edge(Value from, const std::string &to) {
    auto it = producerOf.find(from);
    if (it != producerOf.end())
      edges += "  " + it->second + " -> " + to + ";\n";
  }

  void writeOp(Operation *op, const std::string &indent) {
    std::string name = opDisplayName(op);
    std::string type = op->getName().stripDialect().str();
    if (auto onnx = llvm::dyn_cast<fuse::OnnxOpInterface>(op))
      type = onnx.getOnnxName().str();
    std::string id = idOf(op);
    out += indent + id + " [label=" + quote(type + "\n" + name) + "];\n";
    for (Value operand : op->getOperands())
      edge(operand, id);
    for (Value result : op->getResults())
      producerOf[result] = id;
  }

  void writeKernel(fuse::SuperkernelOp kernel, unsigned index) {
    Block &body = kernel.getBody().front();
    // Copy before inserting: insertion may move the map's entries.
    for (auto [arg, operand] : llvm::zip(body.getArguments(), kernel.getInputs())) {
      auto it = producerOf.find(operand);
      if (it != producerOf.end()) {
        std::string producer = it->second;
        producerOf[arg] = producer;
      }
    }
    double savedBytes = costField(kernel, "unfused_bytes") - costField(kernel, "fused_bytes");
    char savings[96];
    std::snprintf(savings, sizeof(savings), "saves %.1f KB, %.2f us (est.)", savedBytes / 1e3,
                  costField(kernel, "unfused_us") - costField(kernel, "fused_us"));
    out += "  subgraph cluster_" + std::to_string(index) + " {\n";
    out += "    label=" + quote(kernel.getSymName().str() + "\n" + kernel.getKind().str() + ", " + savings) + ";\n";
    out += "    style=filled; color=lightblue; fontname=\"Helvetica\";\n";
    for (Operation &op : body.without_terminator())
      writeOp(&op, "    ");
    out += "  }\n";
    for (auto [result, yielded] : llvm::zip(kernel.getResults(), body.getTerminator()->getOperands())) {
      auto it = producerOf.find(yielded);
      if (it != producerOf.end()) {
        std::string producer = it->second;
        producerOf[result] = producer;
      }
    }
  }

  func::FuncOp func;
  std::string out, edges;
  llvm::DenseMap<Operation *, std::string> ids;
  llvm::DenseMap<Value, std::string> producerOf;
};

} // namespace

std::string exportDot(ModuleOp module) {
  auto func = module.lookupSymbol<func::FuncOp>(import::kEntryFunction);
  if (!func)
    return "digraph fusec {}\n";
  return DotWriter(func).write();
}

} // namespace fusec
