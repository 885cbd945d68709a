//===- KernelInterpreter.h - Run one plan kernel on the host ----*- C++ -*-===//
//
// Interprets a kernel's ops over its local value table with exact float32
// semantics. The CPU backend runs every kernel this way; the CUDA backend
// runs host steps this way between its captured segments.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H
#define FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H

#include "runtime/plan/Plan.h"

#include <vector>

namespace fusec::runtime::cpu {

/// Runs `kernel` at `batch`; `buffers[id]` is the host address of buffer id.
void interpretKernel(const KernelDesc &kernel, int64_t batch, const std::vector<float *> &buffers);

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H
