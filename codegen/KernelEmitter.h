//===- KernelEmitter.h - CUDA C++ for a fuse.superkernel --------*- C++ -*-===//
#ifndef FUSEC_CODEGEN_KERNELEMITTER_H
#define FUSEC_CODEGEN_KERNELEMITTER_H

#include "codegen/KernelSource.h"

#include "ir/FuseOps.h"

#include <string>
#include <vector>

namespace fusec::codegen {

/// Generates one CUDA kernel computing `kernel`'s body: the template for its
/// kind (conv: implicit GEMM or direct; gemm: tiled; reduction: one block per
/// row; pool; elementwise; data movement) with the fused ops as prologue or
/// epilogue. Reports what it cannot express on the op concerned.
mlir::FailureOr<GeneratedKernel> emitKernel(fuse::SuperkernelOp kernel);

/// The name of the function of a kernel's variant `index` (1-based; the
/// kernel's own config is variant 0 and keeps the kernel's name).
std::string variantFunctionName(llvm::StringRef kernelName, size_t index);

/// `kernel` with its own config, then once per config of its `variants`
/// attribute (named variantFunctionName(sym_name, i)).
mlir::FailureOr<std::vector<GeneratedKernel>> emitKernelVariants(fuse::SuperkernelOp kernel);

/// One translation unit defining every function of `kernels` (a kernel and
/// its variants, from emitKernelVariants), named, launched and configured
/// as kernels[0]: NVRTC parses the device headers once for all of them, and
/// each extra function costs only its code generation.
GeneratedKernel joinVariants(const std::vector<GeneratedKernel> &kernels);

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_KERNELEMITTER_H
