//===- EmulationHarness.cpp - Run emitted CUDA source on the CPU ----------===//

#include "EmulationHarness.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <dlfcn.h>
#include <unistd.h>

namespace fusec::test {

namespace {

std::string shellQuote(const std::string &word) {
  std::string quoted = "'";
  for (char c : word)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void writeTextFile(const std::string &path, const std::string &text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file.flush())
    throw std::runtime_error("cannot write '" + path + "'");
}

/// dlopen returns an already loaded library with the same path instead of
/// loading the file again, so every module needs a name of its own.
std::string uniqueLibraryPath(const std::string &dir) {
  std::string path = dir + "/kernels-XXXXXX.so";
  const int fd = ::mkstemps(path.data(), /*suffixlen=*/3);
  if (fd < 0)
    throw std::runtime_error("cannot create a library file in '" + dir + "'");
  ::close(fd);
  return path;
}

/// Runs the host compiler; throws with its output if it fails.
void compileLibrary(const std::string &sourcePath, const std::string &libraryPath,
                    const std::vector<std::string> &includeDirs) {
  std::string command = shellQuote(FUSEC_HOST_CXX) +
                        " -x c++ -std=c++17 -O1 -fPIC -shared -pthread"
                        " -DFUSEC_EMULATION -I" +
                        shellQuote(FUSEC_EMULATION_INCLUDE_DIR);
  for (const std::string &dir : includeDirs)
    command += " -I" + shellQuote(dir);
  command += " -o " + shellQuote(libraryPath) + " " + shellQuote(sourcePath);

  FILE *pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    throw std::runtime_error("cannot run the host compiler: " + command);
  std::string output;
  char buffer[4096];
  while (size_t count = std::fread(buffer, 1, sizeof buffer, pipe))
    output.append(buffer, count);
  const int status = ::pclose(pipe);
  if (status != 0)
    throw std::runtime_error("cannot compile '" + sourcePath + "' for emulation:\n" + command + "\n" + output);
}

} // namespace

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "fusec-emul-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a directory like '" + pattern + "'");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void EmulatedModule::Unloader::operator()(void *handle) const { ::dlclose(handle); }

EmulatedModule EmulatedModule::compile(const std::string &cudaSource, const std::string &workDir,
                                       const std::vector<std::string> &includeDirs) {
  EmulatedModule module;
  std::string dir = workDir;
  if (dir.empty()) {
    module.ownedDir_ = std::make_unique<ScratchDir>();
    dir = module.ownedDir_->path();
  } else {
    std::filesystem::create_directories(dir);
  }

  const std::string sourcePath = dir + "/kernels.cu";
  writeTextFile(sourcePath, cudaSource);
  const std::string libraryPath = uniqueLibraryPath(dir);
  compileLibrary(sourcePath, libraryPath, includeDirs);

  module.library_.reset(::dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!module.library_)
    throw std::runtime_error("cannot load '" + libraryPath + "': " + ::dlerror());
  module.launchEntry_ = reinterpret_cast<LaunchEntry>(::dlsym(module.library_.get(), "fusec_emulation_launch"));
  if (!module.launchEntry_)
    throw std::runtime_error("'" + sourcePath +
                             "' does not include fusec_cuda_emulation.h "
                             "(through fusec_cuda_prelude.h)");
  return module;
}

void EmulatedModule::launch(const std::string &kernelName, Dim3 grid, Dim3 block, std::vector<void *> args) const {
  const std::string thunkName = kernelName + "__emulated";
  auto *thunk = reinterpret_cast<void (*)(void **)>(::dlsym(library_.get(), thunkName.c_str()));
  if (!thunk)
    throw std::runtime_error("no thunk '" + thunkName + "' for kernel '" + kernelName + "' in the emulated module");
  const unsigned gridDims[3] = {grid.x, grid.y, grid.z};
  const unsigned blockDims[3] = {block.x, block.y, block.z};
  launchEntry_(thunk, gridDims, blockDims, args.data());
}

} // namespace fusec::test
