//===- Registration.cpp - Register fusec passes ---------------------------===//
#include "passes/Passes.h"

#include "mlir/Transforms/Passes.h"

void fusec::registerPasses() {
  registerFusecPasses();
  // The generic clean-ups fusec's pipelines schedule.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
}
