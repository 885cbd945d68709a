//===- CpuBackend.h - The reference backend: interpret kernels on the host --===//
//
// Runs each kernel's ops one after another through the OpRegistry. It is the
// numerical oracle for every other backend, so it favours plain, exact
// float32 code over speed.
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

  Device device() const override { return Device::Cpu; }
  void execute(int64_t batch, const std::vector<const float *> &inputs, const std::vector<float *> &outputs) override;

private:
  /// Host addresses of every buffer for this run.
  std::vector<float *> bindBuffers(int64_t batch, const std::vector<const float *> &inputs,
                                   const std::vector<float *> &outputs);

  std::shared_ptr<const Plan> plan_;
  /// Grown to the largest batch run so far and reused.
  std::vector<float> arena_;
};

} // namespace fusec::runtime::cpu

#endif // FUSEC_RUNTIME_CPU_CPUBACKEND_H
