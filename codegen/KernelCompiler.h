//===- KernelCompiler.h - NVRTC compilation with a kernel cache -*- C++ -*-===//
//
// Compiles generated kernels for a target architecture: CUBIN for that arch
// plus PTX for the others (the runtime JIT-compiles PTX when the device's
// arch differs). Identical sources are compiled once (content hash of
// source, options and NVRTC version); kernels compile in parallel on every
// core; results may be cached on disk.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_CODEGEN_KERNELCOMPILER_H
#define FUSEC_CODEGEN_KERNELCOMPILER_H

#include "codegen/KernelSource.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fusec::codegen {

struct CompiledKernel {
  /// The kernel function in `ptx` and `cubin`: the kernel's own name, or
  /// that of an earlier kernel with the same code under another name, whose
  /// binaries it shares.
  std::string entry;
  /// The program `ptx` and `cubin` were compiled from, named by its first
  /// function (`entry` unless the program defines several, as a kernel and
  /// its variants do): kernels of one program share its images.
  std::string program;
  std::string ptx;
  std::vector<uint8_t> cubin;
  /// NVRTC's log (warnings, register and spill report).
  std::string log;
  /// Registers per thread (the most of any function of the program) and
  /// bytes spilled to local memory (stores + loads, of all its functions),
  /// from ptxas's report.
  int registers = 0;
  int64_t spillBytes = 0;
  bool fromCache = false;
};

struct CompileOptions {
  /// "sm_90", "sm_80", ...
  std::string arch = "sm_90";
  /// Directory of the on-disk cache; empty disables it.
  std::string cacheDir;
  /// Where failing sources are written for inspection.
  std::string dumpDir;
  unsigned threads = 0; // 0: every core
  /// Called (from worker threads, serialised) after each kernel: done, total.
  std::function<void(size_t, size_t)> progress;
  /// Programs compiled by earlier calls, by the on-disk cache's key (source,
  /// architecture, toolchain): one found here is not compiled again (it
  /// counts as cached), and each call adds what it compiled. The compiles
  /// of one plan's shape variants share one; null for none.
  std::map<uint64_t, CompiledKernel> *memo = nullptr;
};

struct CompileStats {
  size_t compiled = 0, cached = 0, deduplicated = 0;
  double nvrtcSeconds = 0;
};

/// Reads "Used N registers" and "N bytes spill stores, M bytes spill loads"
/// from a ptxas report into `kernel`.
void parsePtxasReport(CompiledKernel &kernel);

/// True when this build links NVRTC.
bool haveNvrtc();
/// "13.0", or "" without NVRTC.
std::string nvrtcVersion();
/// The default cache directory: $FUSEC_CACHE_DIR, else
/// $XDG_CACHE_HOME/fusec/kernels, else ~/.cache/fusec/kernels.
std::string defaultKernelCacheDir();

/// Compiles every kernel; on failure `error` names the kernel, holds NVRTC's
/// log and the path of the dumped source, and the result is empty.
std::vector<CompiledKernel> compileKernels(const std::vector<GeneratedKernel> &kernels, const CompileOptions &options,
                                           std::string &error, CompileStats *stats = nullptr);

} // namespace fusec::codegen

#endif // FUSEC_CODEGEN_KERNELCOMPILER_H
