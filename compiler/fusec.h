//===- fusec.h - fusec's compiler-side API (umbrella) -----------*- C++ -*-===//
//
// Installed as <fusec/fusec.h>. Everything an MLIR-based compiler needs to
// pull fusec's dialect and fusion pipeline into its own pass manager:
//
//   mlir::DialectRegistry registry;
//   fusec::registerDialects(registry);        // fuse + func
//   fusec::registerPasses();                  // fuse-* passes, fuse-fusion-pipeline
//   fusec::buildFusionPipeline(pm, fusec::FusionOptions());
//   fusec::FusionRegistry::instance().registerStrategy(...);   // plugins
//
// and the driver that compiles a model file into a plan.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_COMPILER_FUSEC_H
#define FUSEC_COMPILER_FUSEC_H

#include "compiler/Driver.h"
#include "compiler/Plugins.h"
#include "ir/FuseDialect.h"
#include "ir/FuseOps.h"
#include "passes/FusionRegistry.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"

#endif // FUSEC_COMPILER_FUSEC_H
