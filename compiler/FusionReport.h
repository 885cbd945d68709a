//===- FusionReport.h - What fusion decided, and why ------------*- C++ -*-===//
#ifndef FUSEC_COMPILER_FUSIONREPORT_H
#define FUSEC_COMPILER_FUSIONREPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fusec {

/// The fusion report of a module after the fusion pipeline, read from the IR
/// (superkernels and their `cost`, the planner's rejected candidates):
/// every kernel with its member nodes, kind, rules and estimated time and
/// bytes fused vs unfused (a kernel that only moves data with `copy`: why it
/// stays, its bytes and time), every rejected candidate with its reason,
/// totals.
nlohmann::json buildFusionReport(mlir::ModuleOp module);

/// A short human summary, one line per fused kernel, per kernel in place and
/// per copy kernel, and a total line:
///   fused conv1+bn1+relu1 -> sk0_conv_bn_relu__conv1: saves 2.4 MB, 2 launches
///   copy sk3_slice_reshape__select: moves 1.2 KB (0.01 us): its consumer ...
std::string summarizeFusionReport(const nlohmann::json &report);

} // namespace fusec

#endif // FUSEC_COMPILER_FUSIONREPORT_H
