//===- KernelEmitter.h - CUDA C++ for a fuse.superkernel --------*- C++ -*-===//
#ifndef FUSEC_CODEGEN_KERNELEMITTER_H
#define FUSEC_CODEGEN_KERNELEMITTER_H

#include "codegen/KernelSource.h"

#include "ir/FuseOps.h"

namespace fusec::codegen {

/// Generates one CUDA kernel computing `kernel`'s body: the template for its
/// kind (conv: implicit GEMM or direct; gemm: tiled; reduction: one block per
/// row; pool; elementwise; data movement) with the fused ops as prologue or
/// epilogue. Reports what it cannot express on the op concerned.
mlir::FailureOr<GeneratedKernel> emitKernel(fuse::SuperkernelOp kernel);

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_KERNELEMITTER_H
