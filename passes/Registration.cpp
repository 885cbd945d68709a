//===- Registration.cpp - Register fusec passes ---------------------------===//
#include "passes/Passes.h"
#include "passes/Pipeline.h"

#include "mlir/Transforms/Passes.h"

void fusec::registerPasses() {
  registerFusecPasses();
  registerFusionPipeline();
  // The generic clean-ups fusec's pipelines schedule.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
}
