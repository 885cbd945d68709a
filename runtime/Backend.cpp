//===- Backend.cpp - What every backend shares ------------------------------===//

#include "runtime/Backend.h"

#include "runtime/BackendRegistry.h"
#include "runtime/Error.h"

namespace fusec::runtime {

void Backend::executeOnDevice(int64_t, const std::vector<const void *> &, const std::vector<void *> &, void *) {
  throw Error("the " + name() + " backend cannot run on device buffers");
}

RunTimings Backend::time(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
                         const TimingOptions &options) {
  RunTimings timings;
  timings.run = timeRuns(options.warmup, options.iterations, [&] { execute(batch, inputs, outputs); });
  return timings;
}

std::unique_ptr<Backend> createBackend(Device device, std::shared_ptr<const Plan> plan, const DeviceOptions &options) {
  return createBackend(std::string(deviceName(device)), std::move(plan), options);
}

} // namespace fusec::runtime
