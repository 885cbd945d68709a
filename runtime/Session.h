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
// A plan with shape variants (fusec --dim seq=64,128) runs each variant on a
// backend of its own, made at the variant's first run. run() with named
// tensors picks the variant their shapes fit; selectDims() picks one for
// the pointer entry points. At most DeviceOptions::shapeCacheSize variants
// keep their backends (arena, loaded kernels, CUDA graphs) at once: the
// least recently run one gives its backend up first.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_SESSION_H
#define FUSEC_RUNTIME_SESSION_H

#include "runtime/Backend.h"
#include "runtime/BatchLimit.h"
#include "runtime/Device.h"
#include "runtime/Tensor.h"
#include "runtime/plan/Plan.h"

#include <functional>
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
  /// Makes the plan's backends with `makeBackend`: one for the plan now,
  /// one for each other shape variant at its first run, at most
  /// `shapeCacheSize` at once (DeviceOptions::shapeCacheSize).
  using BackendMaker = std::function<std::unique_ptr<Backend>(std::shared_ptr<const Plan>)>;
  Session(std::shared_ptr<const Plan> plan, BackendMaker makeBackend,
          size_t shapeCacheSize = DeviceOptions().shapeCacheSize);
  ~Session();
  Session(Session &&) noexcept;
  Session &operator=(Session &&) noexcept;

  /// The plan of the selected shape variant (the plan itself unless
  /// selectDims or run chose another).
  const Plan &plan() const { return *variants_[selected_].plan; }
  /// The name of the backend the session runs on ("auto" resolved).
  std::string device() const;
  const std::vector<TensorDesc> &inputs() const { return plan().inputs(); }
  const std::vector<TensorDesc> &outputs() const { return plan().outputs(); }

  /// The named dimension sizes of each shape variant, the plan's own first
  /// (one empty map for a plan that names none).
  std::vector<std::map<std::string, int64_t>> shapeVariants() const;
  /// The selected variant's sizes.
  const std::map<std::string, int64_t> &dims() const { return plan().dims(); }
  /// Selects the shape variant compiled for exactly these sizes (every
  /// dimension the plan names, given once), or, for a plan with ranges
  /// (fusec --dim seq=1:512), the plan at these sizes of its ranges. Throws
  /// Error listing the sizes the plan holds if none matches. A session over
  /// a plan with ranges starts at each range's `opt` size.
  void selectDims(const std::map<std::string, int64_t> &dims);

  /// The batch size the given inputs imply: the batch dimension of the first
  /// plan input that has one and is given with the plan's rank; 1 if none.
  /// run() then checks all inputs against it.
  int64_t inferBatch(const std::map<std::string, Tensor> &inputs) const;

  /// The largest batch a run may use: what the plan's arena, inputs and
  /// outputs allow within this machine's memory.
  int64_t maxBatch() const { return variants_[selected_].batchLimit.maxBatch; }
  /// Throws Error unless 1 <= batch <= maxBatch(); every run checks this
  /// before it allocates anything.
  void checkBatch(int64_t batch) const;

  /// Runs the plan at `batch` and returns every output by name (each in its
  /// plan dtype), on the shape variant the inputs' shapes fit (which stays
  /// selected). Throws Error if an input is missing or unknown, if its
  /// shape differs from the plan's at `batch` (from every variant's), or if
  /// its element type differs from the plan's (inputs are never converted).
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
  /// Of the selected shape variant; empty if its backend was given up.
  std::vector<KernelTuning> tuning() const;

private:
  /// One shape variant: its plan (aliasing the session's plan) and, while
  /// it holds one, its backend.
  struct ShapeVariant {
    std::shared_ptr<const Plan> plan;
    BatchLimit batchLimit;
    std::unique_ptr<Backend> backend;
    uint64_t lastRun = 0;
    /// A plan with ranges: never run itself, it is specialized to the sizes
    /// of each run (Plan::specialize).
    bool ranged = false;
    /// Specialized from variant `parent` (a ranged one) for one run's sizes;
    /// the least recently run such variant is dropped first.
    bool specialized = false;
    size_t parent = 0;
  };

  /// A ranged variant and the sizes of its ranges that a run's inputs give.
  struct VariantChoice {
    size_t variant = 0;
    std::map<std::string, int64_t> rangeSizes;
  };

  void checkPointers(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) const;
  /// The variant whose inputs have the given tensors' shapes at `batch`
  /// (for a ranged one, with the sizes of its ranges).
  VariantChoice variantTaking(int64_t batch, const std::map<std::string, Tensor> &inputs) const;
  /// The variant `choice` names, specialized (made now if new) where it is
  /// ranged.
  size_t variantFor(const VariantChoice &choice);
  /// The selected variant's backend, made now if it has none.
  Backend &selectedBackend();

  std::shared_ptr<const Plan> plan_;
  std::vector<ShapeVariant> variants_;
  size_t selected_ = 0;
  uint64_t runs_ = 0;
  /// Makes the other variants' backends; empty when the caller made the
  /// one backend.
  BackendMaker makeBackend_;
  size_t shapeCacheSize_ = DeviceOptions().shapeCacheSize;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_SESSION_H
