//===- HostLibraryCalls.h - Library variants computed from their description ===//
//
// The in-process GPU double (HostGpuDevice.h) runs a plan's library variants
// when HostGpuOptions::runsLibraryVariants is set: each launch computes the
// plan's own description of the call (support/LibraryMatmul.h,
// LibraryConv.h) with plain loops, not the kernel's ops. A description the
// compiler derived wrongly (a padding order, a stride, a missed epilogue op)
// then computes something other than the CPU backend does, with no vendor
// library's conventions in between; the library doubles (HostCublasLt.cpp,
// HostCudnn.cpp) test the mapping onto each library.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_HOSTLIBRARYCALLS_H
#define FUSEC_TEST_UNIT_RUNTIME_HOSTLIBRARYCALLS_H

#include "runtime/plan/Plan.h"

#include <vector>

namespace fusec::test {

/// Computes `call` at run batch `batch` on host memory: `args[i]` is the
/// address of the kernel's buffer i (its inputs, then its outputs), whose
/// element types `types` gives. Arithmetic in f32 (as the libraries
/// accumulate); f16/bf16 outputs rounded to nearest even once.
void runLibraryCall(const runtime::LibraryCall &call, int64_t batch, const std::vector<void *> &args,
                    const std::vector<runtime::ElementType> &types);

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_RUNTIME_HOSTLIBRARYCALLS_H
