//===- EmulationHarness.h - Run emitted CUDA source on the CPU --*- C++ -*-===//
//
// CI has no GPU, so the codegen tests check the CUDA C++ text fusec emits by
// compiling it with the host compiler against
// codegen/emulation/fusec_cuda_emulation.h into a shared library, loading it
// and running its kernels on host threads.
//
// Each translation unit must define, under FUSEC_EMULATION, a thunk
// `extern "C" void NAME__emulated(void **args)` per kernel NAME that unpacks
// `args` and calls the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_CODEGEN_EMULATIONHARNESS_H
#define FUSEC_TEST_UNIT_CODEGEN_EMULATIONHARNESS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace fusec::test {

/// A fresh directory under the system temp dir, removed with its contents.
class ScratchDir {
public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

/// A grid or block shape, as CUDA's dim3. (The emulation header, which defines
/// dim3, is for kernel sources only: it defines CUDA's keywords as macros.)
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// A CUDA translation unit compiled for the host and loaded.
class EmulatedModule {
public:
  /// Writes `cudaSource` to `workDir`/kernels.cu and compiles it into a shared
  /// library next to it, with FUSEC_EMULATION defined and headers searched in
  /// the emulation header's directory, then in `includeDirs` (where
  /// fusec_cuda_prelude.h is found). An empty `workDir` means a temporary
  /// directory removed with the module; a given one is created if needed and
  /// kept, with the source, for inspection. Throws std::runtime_error with
  /// the source path and the compiler's output if compilation fails.
  static EmulatedModule compile(const std::string &cudaSource, const std::string &workDir = "",
                                const std::vector<std::string> &includeDirs = {});

  /// Runs kernel `kernelName` over `grid` x `block` through its thunk, which
  /// receives `args`. The blocks run in a shuffled order (FUSEC_EMULATION_SEED
  /// chooses it), split between two copies of the module that run at the
  /// same time. The first `bufferBytes.size()` arguments are global memory
  /// buffers of those sizes: the kernel gets copies of them placed between
  /// guard pages, at the same alignment, and the copies are written back
  /// after the launch. Throws std::runtime_error if the module has no such
  /// thunk, or for a fault: a misaligned vector access, an access outside
  /// a buffer (naming the argument and the offset); std::invalid_argument
  /// for a shape a GPU would reject.
  void launch(const std::string &kernelName, Dim3 grid, Dim3 block, std::vector<void *> args,
              const std::vector<size_t> &bufferBytes = {}) const;

private:
  struct Unloader {
    void operator()(void *handle) const;
  };
  /// The module's fusec_emulation_launch_blocks (see fusec_cuda_emulation.h).
  using LaunchEntry = void (*)(void (*thunk)(void **), const unsigned grid[3], const unsigned block[3], void **args,
                               const uint32_t *blocks, size_t count);
  /// One loaded copy of the compiled library.
  struct Copy {
    std::unique_ptr<void, Unloader> library;
    LaunchEntry launchEntry = nullptr;
  };

  EmulatedModule() = default;

  /// Loads the library at `path`.
  static Copy load(const std::string &path, const std::string &sourcePath);
  void runBlocks(const Copy &copy, void (*thunk)(void **), Dim3 grid, Dim3 block, void **args,
                 const std::vector<uint32_t> &blocks) const;

  // Declared before the libraries so that they are unloaded first.
  std::unique_ptr<ScratchDir> ownedDir_;
  /// Two copies of the library, each with its own __shared__ memory and
  /// builtin variables, so that two blocks can run at once.
  Copy copies_[2];
};

/// The bits of a float, for checks that results are bit-exact.
inline uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The float with these bits.
inline float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

} // namespace fusec::test

#endif // FUSEC_TEST_UNIT_CODEGEN_EMULATIONHARNESS_H
