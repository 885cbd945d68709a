//===- CpuBackend.h - The reference backend: interpret kernels on the host --===//
//
// Runs each kernel's ops one after another through the OpRegistry. It is the
// numerical oracle for every other backend, so it favours plain, exact
// float32 code over speed (f16/bf16 values are computed in float32 and rounded
// after every op; see KernelInterpreter).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_CPU_CPUBACKEND_H
#define FUSEC_RUNTIME_CPU_CPUBACKEND_H

#include "runtime/Backend.h"

#include <memory>
#include <vector>

namespace fusec::runtime::cpu {

class CpuBackend final : public Backend {
public:
  explicit CpuBackend(std::shared_ptr<const Plan> plan);

  std::string name() const override { return "cpu"; }
  void execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) override;
  /// The CPU's device memory is host memory: execute(), synchronously. A
  /// stream is an error (there are none).
  void executeOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                       void *stream) override;

private:
  /// Host addresses of every buffer for this run.
  std::vector<void *> bindBuffers(int64_t batch, const std::vector<const void *> &inputs,
                                  const std::vector<void *> &outputs);

  std::shared_ptr<const Plan> plan_;
  /// Grown to the largest batch run so far and reused; 8-byte words so that
  /// i64 buffers are aligned.
  std::vector<uint64_t> arena_;
};

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_CPUBACKEND_H
