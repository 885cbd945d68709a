//===- KernelEmulation.h - Run a fused module's generated kernels -*- C++ -*-===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H
#define FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H

#include "runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>

namespace fusec::test {

/// Emits every superkernel of the fused `module`, compiles the CUDA text
/// through the emulation header and runs the kernels in order at `batch`.
/// Split-capable kernels run with `splitSlices` k-slices (at most their
/// own maximum), or with 0 the slices the runtime picks on an H200 (132
/// SMs). Returns the graph outputs by name.
std::map<std::string, runtime::Tensor> emulate(mlir::ModuleOp module,
                                               const std::map<std::string, runtime::Tensor> &inputs, int batch,
                                               int64_t splitSlices = 0);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_KERNELEMULATION_H
