//===- FuseAttributes.cpp - fuse dialect attributes -----------------------===//
#include "ir/FuseAttributes.h"
#include "ir/KernelConfig.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_ATTRDEF_CLASSES
#include "ir/FuseAttributes.cpp.inc"

namespace fusec::fuse {

void FuseDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ir/FuseAttributes.cpp.inc"
      >();
}

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef kind,
                                       ArrayRef<int64_t> block, ArrayRef<int64_t> warp, int64_t stages, StringRef mma,
                                       StringRef precision, int64_t splitK, ArrayRef<int64_t> vector) {
  std::string problem = describeConfigProblem(kind, block, warp, stages, mma, precision, splitK, vector);
  if (!problem.empty())
    return emitError() << "invalid #fuse.config: " << problem;
  return success();
}

} // namespace fusec::fuse
