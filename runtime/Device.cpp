//===- Device.cpp - Where a session runs ------------------------------------===//

#include "runtime/Device.h"

namespace fusec::runtime {

const char *deviceName(Device device) {
  switch (device) {
  case Device::Cpu:
    return "cpu";
  case Device::Cuda:
    return "cuda";
  case Device::Auto:
    return "auto";
  }
  return "unknown";
}

std::optional<Device> parseDevice(const std::string &name) {
  for (Device device : {Device::Cpu, Device::Cuda, Device::Auto})
    if (name == deviceName(device))
      return device;
  return std::nullopt;
}

const char *tacticsName(Tactics tactics) {
  switch (tactics) {
  case Tactics::Generated:
    return "generated";
  case Tactics::Library:
    return "library";
  case Tactics::All:
    break;
  }
  return "all";
}

std::optional<Tactics> parseTactics(const std::string &name) {
  for (Tactics tactics : {Tactics::All, Tactics::Generated, Tactics::Library})
    if (name == tacticsName(tactics))
      return tactics;
  return std::nullopt;
}

} // namespace fusec::runtime
