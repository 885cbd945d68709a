//===- KernelCompiler.cpp - NVRTC compilation with a kernel cache ---------===//
#include "codegen/KernelCompiler.h"

#include "support/FileIO.h"
#include "support/Hash.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <sys/stat.h>
#include <thread>

#ifdef FUSEC_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace fusec::codegen {
namespace {

std::string readFile(const std::string &path, bool &ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    ::mkdir(path.substr(0, slash).c_str(), 0755);
    if (slash == std::string::npos)
      break;
  }
}

#ifdef FUSEC_HAVE_NVRTC
/// One NVRTC compilation for the real architecture in `archOption`
/// (sm_XX), which yields both the PTX it lowered (`.target sm_XX`, what a
/// driver JIT-compiles for another device) and the CUBIN ptxas made of it:
/// one front-end pass, not one per format. Returns false with `log` on
/// failure.
bool nvrtcCompile(const GeneratedKernel &kernel, const std::string &archOption, std::string &ptx,
                  std::vector<uint8_t> &cubin, std::string &log) {
  std::vector<const char *> headers, headerNames;
  for (const DeviceHeader &header : deviceHeaders()) {
    headers.push_back(header.text);
    headerNames.push_back(header.name);
  }
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, kernel.source.c_str(), (kernel.name + ".cu").c_str(), int(headers.size()),
                         headers.data(), headerNames.data()) != NVRTC_SUCCESS) {
    log = "nvrtcCreateProgram failed";
    return false;
  }
  std::vector<const char *> options = {archOption.c_str(), "-std=c++17", "--restrict", "--ptxas-options=-v"};
  nvrtcResult result = nvrtcCompileProgram(program, int(options.size()), options.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  log.assign(logSize, '\0');
  if (logSize)
    nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (result == NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetPTXSize(program, &size);
    ptx.assign(size, '\0');
    nvrtcGetPTX(program, ptx.data());
    size = 0;
    nvrtcGetCUBINSize(program, &size);
    cubin.assign(size, 0);
    nvrtcGetCUBIN(program, reinterpret_cast<char *>(cubin.data()));
    if (ptx.empty() || cubin.empty()) {
      log = "NVRTC returned no " + std::string(ptx.empty() ? "PTX" : "CUBIN") + " for " + archOption;
      result = NVRTC_ERROR_INTERNAL_ERROR;
    }
  }
  nvrtcDestroyProgram(&program);
  return result == NVRTC_SUCCESS;
}
#endif

} // namespace

void parsePtxasReport(CompiledKernel &kernel) {
  std::istringstream lines(kernel.log);
  std::string line;
  while (std::getline(lines, line)) {
    size_t used = line.find("Used ");
    if (used != std::string::npos && line.find(" registers", used) != std::string::npos)
      kernel.registers = std::max(kernel.registers, std::atoi(line.c_str() + used + 5));
    size_t stores = line.find(" bytes spill stores");
    if (stores != std::string::npos) {
      size_t begin = line.rfind(' ', stores - 1);
      kernel.spillBytes += std::atoll(line.c_str() + (begin == std::string::npos ? 0 : begin + 1));
      size_t loads = line.find(" bytes spill loads", stores + 1);
      size_t comma = line.rfind(' ', loads - 1);
      if (loads != std::string::npos)
        kernel.spillBytes += std::atoll(line.c_str() + comma + 1);
    }
  }
}

bool haveNvrtc() {
#ifdef FUSEC_HAVE_NVRTC
  return true;
#else
  return false;
#endif
}

std::string nvrtcVersion() {
#ifdef FUSEC_HAVE_NVRTC
  int major = 0, minor = 0;
  if (::nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
    return std::to_string(major) + "." + std::to_string(minor);
#endif
  return "";
}

std::string defaultKernelCacheDir() { return runtime::userCachePath("FUSEC_CACHE_DIR", "kernels"); }

namespace {

/// `kernel`'s source with its name replaced by a placeholder: what two
/// kernels that differ only in name have in common.
std::string anonymous(const GeneratedKernel &kernel) {
  std::string source = kernel.source;
  if (kernel.name.empty())
    return source;
  for (size_t at = source.find(kernel.name); at != std::string::npos; at = source.find(kernel.name, at + 1))
    source.replace(at, kernel.name.size(), "\x01");
  return source;
}

} // namespace

std::vector<CompiledKernel> compileKernels(const std::vector<GeneratedKernel> &kernels, const CompileOptions &options,
                                           std::string &error, CompileStats *stats) {
#ifndef FUSEC_HAVE_NVRTC
  error = "this fusec was built without NVRTC: kernels cannot be compiled for " + options.arch + " (use --target=cpu)";
  return {};
#else
  if (options.arch.rfind("sm_", 0) != 0) {
    error = "target '" + options.arch + "' is not an NVIDIA architecture like sm_90";
    return {};
  }
  // The headers a kernel includes are part of what it compiles to: a changed
  // header must not find the cache's old binaries.
  std::string toolchain = "nvrtc " + nvrtcVersion();
  for (const DeviceHeader &header : deviceHeaders())
    toolchain += "\n" + std::string(header.name) + "\n" + header.text;
  // Kernels with the same code compile once, whatever their names: a
  // network repeats blocks (ResNet-50's 57 kernels are 25 programs), and
  // each NVRTC compile parses the templates again. The cache is keyed by the
  // source itself (names included), since its binaries hold the entry name.
  std::map<uint64_t, size_t> firstWithCode;
  std::vector<uint64_t> keys(kernels.size()), codeKeys(kernels.size());
  std::vector<size_t> unique;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string suffix = "\n" + options.arch + "\n" + toolchain;
    const std::string identity = kernels[i].source + suffix;
    keys[i] = fnv1a64(identity.data(), identity.size());
    const std::string code = anonymous(kernels[i]) + suffix;
    codeKeys[i] = fnv1a64(code.data(), code.size());
    if (firstWithCode.emplace(codeKeys[i], i).second)
      unique.push_back(i);
  }
  std::vector<CompiledKernel> results(kernels.size());
  std::mutex errorMutex;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::atomic<size_t> done{0};
  std::mutex progressMutex;
  auto reportProgress = [&] {
    size_t count = ++done;
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      options.progress(count, unique.size());
    }
  };
  auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t slot = next++; slot < unique.size() && !failed; slot = next++) {
      size_t i = unique[slot];
      const GeneratedKernel &kernel = kernels[i];
      CompiledKernel &result = results[i];
      result.entry = result.program = kernel.name;
      if (options.memo) {
        // Only read while the workers run: calls add to it after.
        auto known = options.memo->find(keys[i]);
        if (known != options.memo->end()) {
          result = known->second;
          result.fromCache = true;
          reportProgress();
          continue;
        }
      }
      std::string base = options.cacheDir.empty() ? "" : options.cacheDir + "/" + toHex64(keys[i]);
      if (!base.empty()) {
        bool havePtx = false, haveCubin = false;
        result.ptx = readFile(base + ".ptx", havePtx);
        std::string cubin = readFile(base + ".cubin", haveCubin);
        if (havePtx && haveCubin) {
          result.cubin.assign(cubin.begin(), cubin.end());
          result.fromCache = true;
          reportProgress();
          continue;
        }
      }
      const bool ok = nvrtcCompile(kernel, "--gpu-architecture=" + options.arch, result.ptx, result.cubin, result.log);
      if (!ok) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!failed.exchange(true)) {
          std::string dump =
              (options.dumpDir.empty() ? std::string("/tmp") : options.dumpDir) + "/" + kernel.name + ".cu";
          std::ofstream(dump) << kernel.source;
          error = "NVRTC failed to compile kernel '" + kernel.name + "' (source: " + dump + "):\n" + result.log;
        }
        continue;
      }
      parsePtxasReport(result);
      reportProgress();
      if (!base.empty()) {
        try {
          makeDirectories(options.cacheDir);
          runtime::writeFileAtomically(base + ".ptx", std::vector<uint8_t>(result.ptx.begin(), result.ptx.end()));
          runtime::writeFileAtomically(base + ".cubin", result.cubin);
        } catch (const std::exception &) { // NOLINT(bugprone-empty-catch)
          // A cache that cannot be written only costs time.
        }
      }
    }
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max<size_t>(1, unique.size()));
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (std::thread &thread : pool)
    thread.join();
  if (failed)
    return {};
  if (options.memo)
    for (size_t i : unique)
      options.memo->emplace(keys[i], results[i]);
  for (size_t i = 0; i < kernels.size(); ++i) {
    size_t first = firstWithCode[codeKeys[i]];
    if (first != i)
      results[i] = results[first];
  }
  if (stats) {
    for (size_t i : unique)
      (results[i].fromCache ? stats->cached : stats->compiled) += 1;
    stats->deduplicated = kernels.size() - unique.size();
    stats->nvrtcSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return results;
#endif
}

} // namespace fusec::codegen
