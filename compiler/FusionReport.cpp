//===- FusionReport.cpp - What fusion decided, and why --------------------===//
#include "compiler/FusionReport.h"
#include "compiler/CopyKernelReasons.h"
#include "compiler/ValueNames.h"

#include "ir/FuseOps.h"
#include "ir/SliceViews.h"
#include "passes/FusionAttributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdio>
#include <set>

using namespace mlir;
using nlohmann::json;

namespace fusec {
namespace {

double number(DictionaryAttr dict, StringRef key) {
  if (!dict)
    return 0;
  Attribute value = dict.get(key);
  if (auto f = llvm::dyn_cast_or_null<FloatAttr>(value))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_or_null<IntegerAttr>(value))
    return static_cast<double>(i.getInt());
  return 0;
}

std::string formatBytes(double bytes) {
  char text[32];
  if (bytes >= 1e6)
    std::snprintf(text, sizeof(text), "%.1f MB", bytes / 1e6);
  else if (bytes >= 1e3)
    std::snprintf(text, sizeof(text), "%.1f KB", bytes / 1e3);
  else
    std::snprintf(text, sizeof(text), "%.0f B", bytes);
  return text;
}

} // namespace

json buildFusionReport(ModuleOp module) {
  json report = {{"kernels", json::array()}, {"rejected", json::array()}};
  double fusedUs = 0, unfusedUs = 0, fusedBytes = 0, unfusedBytes = 0;
  int64_t unfusedKernels = 0, kernels = 0;
  module.walk([&](func::FuncOp func) {
    if (auto config = func->getAttrOfType<DictionaryAttr>(kFusionConfigAttr))
      for (NamedAttribute entry : config)
        if (auto text = llvm::dyn_cast<StringAttr>(entry.getValue()))
          report[entry.getName().str()] = text.str();
    for (auto superkernel : func.getOps<fuse::SuperkernelOp>()) {
      json members = json::array(), rules = json::array();
      std::set<std::string> seenRules, seenMembers;
      for (Operation &op : superkernel.getBody().front().without_terminator()) {
        // An op a rewrite made from several nodes names them all; each
        // node is listed once.
        for (const std::string &name : fuse::nodeNamesOf(op.getLoc()))
          if (seenMembers.insert(name).second)
            members.push_back(name);
        if (auto rule = op.getAttrOfType<StringAttr>(kFusedByAttr))
          if (seenRules.insert(rule.str()).second)
            rules.push_back(rule.str());
        if (auto folded = op.getAttrOfType<ArrayAttr>(kFoldedAttr))
          for (auto name : folded.getAsValueRange<StringAttr>()) {
            std::string rule = name == "bn" ? "fold-batch-norm" : "fold-pad-into-conv";
            if (seenRules.insert(rule).second)
              rules.push_back(rule);
          }
      }
      DictionaryAttr cost = superkernel.getCostAttr();
      // A concat whose operands were stored into its buffer costs nothing.
      const bool aliased = fuse::isAlias(superkernel);
      const bool inPlace = fuse::isInPlace(superkernel) || aliased;
      if (inPlace)
        rules.push_back(aliased ? "reshape-in-place" : "concat-in-place");
      const double kept = inPlace ? 0.0 : 1.0;
      json entry = {
          {"kernel", superkernel.getSymName().str()},
          {"kind", superkernel.getKind().str()},
          {"members", members},
          {"rules", rules},
          {"fused",
           {{"time_us", kept * number(cost, "fused_us")},
            {"bytes", kept * number(cost, "fused_bytes")},
            {"kernels", inPlace ? 0 : 1}}},
          {"unfused",
           {{"time_us", number(cost, "unfused_us")},
            {"bytes", number(cost, "unfused_bytes")},
            {"kernels", static_cast<int64_t>(number(cost, "unfused_kernels"))}}},
      };
      if (inPlace)
        entry["in_place"] = true;
      // A kernel that only moves data says why it stays, with what it costs.
      if (std::string reason = copyKernelReason(superkernel); !reason.empty())
        entry["copy"] = {
            {"reason", reason}, {"bytes", number(cost, "fused_bytes")}, {"time_us", number(cost, "fused_us")}};
      report["kernels"].push_back(entry);
      kernels += inPlace ? 0 : 1;
      fusedUs += kept * number(cost, "fused_us");
      unfusedUs += number(cost, "unfused_us");
      fusedBytes += kept * number(cost, "fused_bytes");
      unfusedBytes += number(cost, "unfused_bytes");
      unfusedKernels += static_cast<int64_t>(number(cost, "unfused_kernels"));
    }
    std::set<std::string> seen;
    if (auto rejected = func->getAttrOfType<ArrayAttr>(kRejectedFusionsAttr))
      for (auto candidate : rejected.getAsRange<DictionaryAttr>()) {
        json entry;
        for (NamedAttribute field : candidate) {
          if (auto text = llvm::dyn_cast<StringAttr>(field.getValue()))
            entry[field.getName().str()] = text.str();
          else
            entry[field.getName().str()] = number(candidate, field.getName());
        }
        if (entry["reason"] == "illegal") {
          entry.erase("fused_us");
          entry.erase("unfused_us");
        }
        if (seen.insert(entry.dump()).second)
          report["rejected"].push_back(entry);
      }
  });
  report["totals"] = {{"kernels", {{"fused", kernels}, {"unfused", unfusedKernels}}},
                      {"bytes", {{"fused", fusedBytes}, {"unfused", unfusedBytes}}},
                      {"time_us", {{"fused", fusedUs}, {"unfused", unfusedUs}}}};
  return report;
}

std::string summarizeFusionReport(const json &report) {
  std::string text;
  for (const json &kernel : report["kernels"]) {
    if (kernel.value("in_place", false)) {
      std::string members;
      for (const json &member : kernel["members"])
        members += (members.empty() ? "" : "+") + member.get<std::string>();
      bool aliased = false;
      for (const json &rule : kernel["rules"])
        aliased |= rule == "reshape-in-place";
      text += "in place " + members + " (" + kernel["kernel"].get<std::string>() +
              (aliased ? "): its result is its operand's bytes, saves "
                       : "): its operands are stored into its buffer, saves ") +
              formatBytes(kernel["unfused"]["bytes"].get<double>()) + ", 1 launch\n";
      continue;
    }
    if (kernel.contains("copy")) {
      const json &copy = kernel["copy"];
      char cost[64];
      std::snprintf(cost, sizeof(cost), "%.2f us", copy["time_us"].get<double>());
      text += "copy " + kernel["kernel"].get<std::string>() + ": moves " + formatBytes(copy["bytes"].get<double>()) +
              " (" + cost + "): " + copy["reason"].get<std::string>() + "\n";
    }
    int64_t replaced = kernel["unfused"]["kernels"].get<int64_t>();
    if (replaced < 2)
      continue;
    std::string members;
    for (const json &member : kernel["members"])
      members += (members.empty() ? "" : "+") + member.get<std::string>();
    double saved = kernel["unfused"]["bytes"].get<double>() - kernel["fused"]["bytes"].get<double>();
    text += "fused " + members + " -> " + kernel["kernel"].get<std::string>() + ": saves " + formatBytes(saved) + ", " +
            std::to_string(replaced - 1) + " launch" + (replaced == 2 ? "" : "es") + "\n";
  }
  if (report.contains("layout") && report.contains("layout_choice"))
    text += "layout " + report["layout"].get<std::string>() + ": " + report["layout_choice"].get<std::string>() + "\n";
  const json &totals = report["totals"];
  char line[256];
  std::snprintf(line, sizeof(line),
                "%lld kernels (unfused: %lld), modeled HBM traffic %s (unfused: %s), %zu rejected candidate(s)\n",
                static_cast<long long>(totals["kernels"]["fused"].get<int64_t>()),
                static_cast<long long>(totals["kernels"]["unfused"].get<int64_t>()),
                formatBytes(totals["bytes"]["fused"].get<double>()).c_str(),
                formatBytes(totals["bytes"]["unfused"].get<double>()).c_str(), report["rejected"].size());
  return text + line;
}

} // namespace fusec
