//===- KernelInterpreter.h - Run one plan kernel on the host ----*- C++ -*-===//
//
// Interprets a kernel's ops over its local value table. Float values (f32,
// f16, bf16) are computed in float32 and each op's results are rounded to
// their value's element type, so the reference has exactly the rounding
// points of the plan; integer values (i64, i32, i1, i8, u8) are held as int64_t and
// only Cast, Identity and the typed ops (comparisons, logic, Where) handle
// them. The CPU backend runs every kernel this
// way; the CUDA backend runs host steps this way between its captured
// segments.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H
#define FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H

#include "runtime/plan/Plan.h"

#include <vector>

namespace fusec::runtime::cpu {

/// Runs `kernel` at `batch`; `buffers[id]` is the host address of buffer id
/// (`descs[id]`), holding elements in the buffer's storage format. A view
/// buffer's address is that of its first element in its root: its rows are
/// gathered before the ops run and scattered after.
void interpretKernel(const KernelDesc &kernel, int64_t batch, const std::vector<void *> &buffers,
                     const std::vector<BufferDesc> &descs);

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_KERNELINTERPRETER_H
