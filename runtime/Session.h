//===- Session.h - Run a plan: the runtime's public C++ API -----------------===//
//
//   auto plan = std::make_shared<const Plan>(Plan::load("model.plan"));
//   Session session(plan, Device::Auto);
//   auto outputs = session.run(/*batch=*/4, {{"input", inputTensor}});
//
// A Session binds a plan to a backend, chosen by name (DeviceOptions tune
// the GPU ones). It checks every input against the
// plan (names and shapes at the requested batch size) before running, and
// may be run any number of times at any batch size; it is not thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SESSION_H
#define FUSEC_RUNTIME_SESSION_H

#include "runtime/Backend.h"
#include "runtime/BatchLimit.h"
#include "runtime/Device.h"
#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusec::runtime {

class Session {
public:
  /// Throws Error if `device` is unavailable. Device::Auto falls back to the
  /// CPU, saying why on stderr, where CUDA cannot run the plan.
  explicit Session(std::shared_ptr<const Plan> plan, Device device = Device::Auto, const DeviceOptions &options = {});
  /// On the backend registered as `device` ("cpu", "cuda", a program's
  /// own; see BackendRegistry.h) or "auto". Throws Error for an unknown name.
  Session(std::shared_ptr<const Plan> plan, const std::string &device, const DeviceOptions &options = {});
  /// Binds the plan to a backend the caller made for it (createBackend, or
  /// a backend of its own such as a test double).
  Session(std::shared_ptr<const Plan> plan, std::unique_ptr<Backend> backend);
  ~Session();
  Session(Session &&) noexcept;
  Session &operator=(Session &&) noexcept;

  const Plan &plan() const { return *plan_; }
  /// The name of the backend the session runs on ("auto" resolved).
  std::string device() const;
  const std::vector<TensorDesc> &inputs() const { return plan_->inputs(); }
  const std::vector<TensorDesc> &outputs() const { return plan_->outputs(); }

  /// The batch size the given inputs imply: the batch dimension of the first
  /// plan input that has one and is given with the plan's rank; 1 if none.
  /// run() then checks all inputs against it.
  int64_t inferBatch(const std::map<std::string, Tensor> &inputs) const;

  /// The largest batch a run may use: what the plan's arena, inputs and
  /// outputs allow within this machine's memory.
  int64_t maxBatch() const { return batchLimit_.maxBatch; }
  /// Throws Error unless 1 <= batch <= maxBatch(); every run checks this
  /// before it allocates anything.
  void checkBatch(int64_t batch) const;

  /// Runs the plan at `batch` and returns every output by name (each in its
  /// plan dtype). Throws Error if an input is missing or unknown, if its
  /// shape differs from the plan's at `batch`, or if its element type differs
  /// from the plan's (inputs are never converted).
  std::map<std::string, Tensor> run(int64_t batch, const std::map<std::string, Tensor> &inputs);

  /// Runs without copies or checks on the data: `inputs` and `outputs` point
  /// to host memory in the order of inputs()/outputs(), each holding the
  /// plan's shape at `batch` in the tensor's dtype (TensorDesc::dtype). Throws Error if the pointer counts are wrong.
  void run(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs);
  /// Runs on buffers already in the device's memory (CUDA device pointers of
  /// the session's device; host pointers on the CPU backend), in the order
  /// of inputs()/outputs(), each holding the plan's shape at `batch`. With a
  /// `stream` (a CUstream; CUDA only) the run is ordered after the stream's
  /// earlier work and before its later work, and the call returns once the
  /// run is enqueued: no copies through the host and no device-wide
  /// synchronization. Without one it returns when the run has finished.
  /// Throws Error if the pointer counts are wrong or the backend cannot.
  void runOnDevice(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                   void *stream = nullptr);

  /// Runs like the pointer entry point, first `options.warmup` times
  /// untimed, then `options.iterations` times timed (CUDA events on a GPU,
  /// the wall clock on the CPU). Throws Error like run().
  RunTimings time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                  const TimingOptions &options);

  /// Which compiled variant each conv/GEMM kernel with variants runs, per
  /// run batch so far (chosen at a batch's first run: from the tuning cache,
  /// or timed with DeviceOptions::tune). Empty on the CPU and for plans
  /// without variants.
  std::vector<KernelTuning> tuning() const { return backend_->tuning(); }

private:
  void checkPointers(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) const;

  std::shared_ptr<const Plan> plan_;
  BatchLimit batchLimit_;
  std::unique_ptr<Backend> backend_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_SESSION_H
