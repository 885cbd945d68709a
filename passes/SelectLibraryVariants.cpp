//===- SelectLibraryVariants.cpp - Library variants of conv/GEMM kernels --===//
#include "passes/Passes.h"

#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/LibraryCall.h"
#include "ir/OpClassification.h"
#include "passes/cost/CostModel.h"

namespace fusec {
#define GEN_PASS_DEF_SELECTLIBRARYVARIANTS
#include "passes/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec::fuse;

namespace {

bool hasConvOrGemm(SuperkernelOp kernel) {
  for (Operation &op : kernel.getBody().front()) {
    const OpClass opClass = classifyOp(&op);
    if (opClass == OpClass::Conv || opClass == OpClass::Gemm)
      return true;
  }
  return false;
}

struct SelectLibraryVariants : fusec::impl::SelectLibraryVariantsBase<SelectLibraryVariants> {
  using Base::Base;

  void runOnOperation() override {
    const bool generated = tactics == "generated,library" || tactics == "library,generated" || tactics == "generated";
    const bool library = tactics != "generated";
    if (!generated && tactics != "library") {
      getOperation().emitError() << "unknown tactics '" << tactics
                                 << "' (expected generated,library, generated or library)";
      return signalPassFailure();
    }
    if (!library)
      return;
    auto profile = fusec::loadDeviceProfile(deviceProfile);
    if (!profile) {
      getOperation().emitError() << llvm::toString(profile.takeError());
      return signalPassFailure();
    }
    fusec::RooflineCostModel costModel(*profile, batch);
    getOperation().walk([&](SuperkernelOp kernel) {
      if (!hasConvOrGemm(kernel))
        return;
      LibraryCallMatch match = matchLibraryCall(kernel);
      if (!match.matched()) {
        kernel.setNoLibrary(match.reason);
        ++numNoLibrary;
        return;
      }
      kernel.setLibrary(match.library);
      ++numLibrary;
      bool preferLibrary = !generated;
      if (!preferLibrary) {
        std::vector<Operation *> ops;
        for (Operation &op : kernel.getBody().front().without_terminator())
          ops.push_back(&op);
        const fusec::CostEstimate compiled = costModel.estimateKernel(ops, [](Operation *) { return true; });
        const Value operand = kernel.getBody().getArgument(match.matmul ? match.matmul->a : match.conv->input);
        const bool half = elementByteSize(elementTypeOf(operand)) == 2;
        preferLibrary =
            fusec::libraryCallTimeUs(compiled, *profile, match.library, match.compute(), half) < compiled.timeUs;
      }
      if (preferLibrary) {
        kernel.setLibraryDefault(true);
        ++numLibraryDefault;
      }
    });
  }
};

} // namespace
