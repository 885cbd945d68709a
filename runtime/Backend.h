//===- Backend.h - The interface between a Session and a device -------------===//
//
// A backend executes a plan's kernels on one device. The Session checks
// inputs and owns the host tensors; the backend owns everything
// device-specific (arena memory, compiled kernels, CUDA graphs per batch
// bucket) and moves data between the host buffers and the device.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_BACKEND_H
#define FUSEC_RUNTIME_BACKEND_H

#include "runtime/Device.h"
#include "runtime/plan/Plan.h"

#include <memory>
#include <vector>

namespace fusec::runtime {

class Backend {
public:
  virtual ~Backend() = default;

  /// The concrete device (never Device::Auto).
  virtual Device device() const = 0;

  /// Runs every kernel of the plan at `batch`. `inputs[i]` holds the data of
  /// plan input i and `outputs[i]` receives plan output i, both host memory
  /// in C order with the shapes of the plan resolved at `batch`.
  virtual void execute(int64_t batch, const std::vector<const float *> &inputs,
                       const std::vector<float *> &outputs) = 0;
};

/// The backend for `device`. Device::Auto picks the best one available.
/// Throws Error if the device is unavailable.
std::unique_ptr<Backend> createBackend(Device device,
                                       std::shared_ptr<const Plan> plan);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_BACKEND_H
