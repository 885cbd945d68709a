//===- Device.h - Where a session runs --------------------------------------===//
#ifndef FUSEC_RUNTIME_DEVICE_H
#define FUSEC_RUNTIME_DEVICE_H

#include <optional>
#include <string>

namespace fusec::runtime {

enum class Device {
  Cpu,
  Cuda,
  /// The best device available: CUDA where a driver and GPU exist, else CPU.
  Auto,
};

/// "cpu", "cuda" or "auto".
const char *deviceName(Device device);
/// The inverse of deviceName(); nullopt for anything else.
std::optional<Device> parseDevice(const std::string &name);

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_DEVICE_H
