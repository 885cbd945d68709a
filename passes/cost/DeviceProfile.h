//===- DeviceProfile.h - A GPU described as data ----------------*- C++ -*-===//
//
// The cost model's view of a GPU. Profiles are JSON files: the built-in ones
// (passes/cost/profiles/*.json) are embedded at build time, and
// `--device-profile=FILE` loads any other.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_PASSES_COST_DEVICEPROFILE_H
#define FUSEC_PASSES_COST_DEVICEPROFILE_H

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace fusec {

struct DeviceProfile {
  std::string name;
  /// The NVRTC architecture, e.g. "sm_90".
  std::string arch;
  double hbmBandwidthGBps = 0;
  double peakFp32Tflops = 0;
  /// The TF32 tensor-core peak (dense), what the f32 templates run on.
  double peakTensorTflops = 0;
  /// The f16/bf16 tensor-core peak with f32 accumulation (dense), what the
  /// half templates run on; twice the TF32 peak where a profile gives none
  /// (the ratio on A100, H100 and H200).
  double peakHalfTensorTflops = 0;
  /// Cost of one kernel launch outside a CUDA graph, and inside one.
  double launchOverheadUs = 0;
  double graphLaunchOverheadUs = 0;
  int smCount = 0;
  int sharedMemoryPerBlockKB = 0;
  int registersPerThread = 0;
  double l2CacheMB = 0;
  /// The fraction of the peak (tensor peak / passes for tensor-core
  /// templates, the half tensor peak for their f16/bf16 forms, named
  /// `<template>_half`, the FP32 peak for SIMT ones) each conv/GEMM template
  /// reaches on whole tiles, by template name (ir/KernelConfig.h), and the
  /// attention main loops (`simt_attention`, `tensor_core_attention_half`:
  /// both products and the softmax); the defaults
  /// (kDefaultTemplateEfficiency) where a profile gives none.
  std::map<std::string, double> templateEfficiency;

  double efficiencyOf(llvm::StringRef templateName) const;
};

/// The efficiencies a profile without "template_efficiency" gets: what the
/// templates are designed to reach (docs/codegen-design.md), until measured.
extern const std::map<std::string, double> kDefaultTemplateEfficiency;

/// Parses a profile; errors name `sourceName` and the missing or bad field.
llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef json, llvm::StringRef sourceName);

/// A built-in profile by name ("h200", "h100", "a100"; case-insensitive), or
/// a JSON file when `nameOrPath` names an existing file.
llvm::Expected<DeviceProfile> loadDeviceProfile(llvm::StringRef nameOrPath);

std::vector<std::string> builtinDeviceProfiles();

inline constexpr const char *kDefaultDeviceProfile = "h200";

} // namespace fusec

#endif // FUSEC_PASSES_COST_DEVICEPROFILE_H
