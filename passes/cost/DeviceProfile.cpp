//===- DeviceProfile.cpp - A GPU described as data ------------------------===//
#include "passes/cost/DeviceProfile.h"

#include "passes/cost/BuiltinProfiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

namespace fusec {
namespace {

llvm::Error profileError(llvm::StringRef source, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "device profile '" + source + "': " + message);
}

} // namespace

const std::map<std::string, double> kDefaultTemplateEfficiency = {
    {"tensor_core_gemm", 0.45},
    {"tensor_core_conv", 0.35},
    {"tensor_core_gemm_half", 0.35},
    {"tensor_core_conv_half", 0.25},
    {"simt_gemm", 0.15},
    {"simt_conv", 0.08},
    {"direct_conv", 0.05},
    {"simt_gemv", 0.3},
    {"simt_attention", 0.4},
    {"tensor_core_attention_half", 0.35},
    {"tensor_core_attention", 0.35},
    // The Hopper GEMM (sm_90a), until measured: docs/hopper.md's speed model.
    {"wgmma_gemm_half", 0.6},
    // cuBLASLt on whole problems, until measured: what vendor GEMMs are
    // commonly seen to reach of the peak their arithmetic runs on.
    {"cublaslt_half", 0.7},
    {"cublaslt_tf32", 0.6},
    {"cublaslt_fp32", 0.75},
    // cuDNN's fused convolutions, until measured: below its GEMMs (implicit
    // GEMM gathers the input; NCHW costs it layout work).
    {"cudnn_half", 0.6},
    {"cudnn_tf32", 0.5},
    {"cudnn_fp32", 0.6},
};

double DeviceProfile::efficiencyOf(llvm::StringRef templateName) const {
  auto it = templateEfficiency.find(templateName.str());
  if (it != templateEfficiency.end())
    return it->second;
  auto fallback = kDefaultTemplateEfficiency.find(templateName.str());
  return fallback != kDefaultTemplateEfficiency.end() ? fallback->second : 0.05;
}

llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef text, llvm::StringRef source) {
  auto json = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object())
    return profileError(source, "not a JSON object");
  DeviceProfile profile;
  auto number = [&](const char *key, double &out, bool positive) -> llvm::Error {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number())
      return profileError(source, llvm::Twine("'") + key + "' must be a number");
    out = it->get<double>();
    if (positive && out <= 0)
      return profileError(source, llvm::Twine("'") + key + "' must be positive");
    return llvm::Error::success();
  };
  auto text_ = [&](const char *key, std::string &out) -> llvm::Error {
    auto it = json.find(key);
    if (it == json.end() || !it->is_string())
      return profileError(source, llvm::Twine("'") + key + "' must be a string");
    out = it->get<std::string>();
    return llvm::Error::success();
  };
  double sm = 0, smem = 0, regs = 0;
  if (auto err = text_("name", profile.name))
    return std::move(err);
  if (auto err = text_("arch", profile.arch))
    return std::move(err);
  if (auto err = number("hbm_bandwidth_gbps", profile.hbmBandwidthGBps, true))
    return std::move(err);
  if (auto err = number("peak_fp32_tflops", profile.peakFp32Tflops, true))
    return std::move(err);
  if (auto err = number("peak_tensor_tflops", profile.peakTensorTflops, true))
    return std::move(err);
  if (json.contains("peak_f16_tensor_tflops")) {
    if (auto err = number("peak_f16_tensor_tflops", profile.peakHalfTensorTflops, true))
      return std::move(err);
  } else {
    profile.peakHalfTensorTflops = 2 * profile.peakTensorTflops;
  }
  if (auto err = number("launch_overhead_us", profile.launchOverheadUs, false))
    return std::move(err);
  if (auto err = number("graph_launch_overhead_us", profile.graphLaunchOverheadUs, false))
    return std::move(err);
  if (auto err = number("sm_count", sm, true))
    return std::move(err);
  if (auto err = number("shared_memory_per_block_kb", smem, true))
    return std::move(err);
  if (auto err = number("registers_per_thread", regs, true))
    return std::move(err);
  if (auto err = number("l2_cache_mb", profile.l2CacheMB, false))
    return std::move(err);
  if (auto efficiencies = json.find("template_efficiency"); efficiencies != json.end()) {
    if (!efficiencies->is_object())
      return profileError(source, "'template_efficiency' must be an object of template names to fractions");
    for (auto &[name, value] : efficiencies->items()) {
      if (!kDefaultTemplateEfficiency.count(name))
        return profileError(source, "'template_efficiency' names unknown template '" + name + "'");
      if (!value.is_number() || value.get<double>() <= 0 || value.get<double>() > 1)
        return profileError(source, "'template_efficiency." + name + "' must be a number in (0, 1]");
      profile.templateEfficiency[name] = value.get<double>();
    }
  }
  profile.smCount = static_cast<int>(sm);
  profile.sharedMemoryPerBlockKB = static_cast<int>(smem);
  profile.registersPerThread = static_cast<int>(regs);
  return profile;
}

llvm::Expected<DeviceProfile> loadDeviceProfile(llvm::StringRef nameOrPath) {
  std::string lower = nameOrPath.lower();
  for (const BuiltinProfile &builtin : kBuiltinProfiles)
    if (lower == builtin.name)
      return parseDeviceProfile(builtin.json, builtin.name);
  auto buffer = llvm::MemoryBuffer::getFile(nameOrPath, /*IsText=*/true);
  if (!buffer)
    return profileError(nameOrPath, "not a built-in profile (" + llvm::join(builtinDeviceProfiles(), ", ") +
                                        ") and not a readable file: " + buffer.getError().message());
  return parseDeviceProfile((*buffer)->getBuffer(), nameOrPath);
}

std::vector<std::string> builtinDeviceProfiles() {
  std::vector<std::string> names;
  for (const BuiltinProfile &builtin : kBuiltinProfiles)
    names.push_back(builtin.name);
  return names;
}

} // namespace fusec
