//===- EmulationHarness.cpp - Run emitted CUDA source on the CPU ----------===//

#include "EmulationHarness.h"
#include "GuardedMemory.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

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
                        shellQuote(FUSEC_EMULATION_INCLUDE_DIR) + " -I" + shellQuote(FUSEC_SOURCE_ROOT);
  for (const std::string &dir : includeDirs)
    command += " -I" + shellQuote(dir);
  // The sanitizer build of these tests (scripts/ci/tsan-emulation.sh)
  // instruments the kernels too.
  if (const char *flags = std::getenv("FUSEC_EMULATION_CXXFLAGS"))
    command += std::string(" ") + flags;
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

  // The second copy has a file of its own: dlopen would return the first.
  const std::string secondPath = uniqueLibraryPath(dir);
  std::filesystem::copy_file(libraryPath, secondPath, std::filesystem::copy_options::overwrite_existing);
  module.copies_[0] = load(libraryPath, sourcePath);
  module.copies_[1] = load(secondPath, sourcePath);
  return module;
}

EmulatedModule::Copy EmulatedModule::load(const std::string &path, const std::string &sourcePath) {
  Copy copy;
  copy.library.reset(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!copy.library)
    throw std::runtime_error("cannot load '" + path + "': " + ::dlerror());
  copy.launchEntry = reinterpret_cast<LaunchEntry>(::dlsym(copy.library.get(), "fusec_emulation_launch_blocks"));
  if (!copy.launchEntry)
    throw std::runtime_error("'" + sourcePath +
                             "' does not include fusec_cuda_emulation.h "
                             "(through fusec_cuda_prelude.h)");
  return copy;
}

void EmulatedModule::runBlocks(const Copy &copy, void (*thunk)(void **), Dim3 grid, Dim3 block, void **args,
                               const std::vector<uint32_t> &blocks) const {
  const unsigned gridDims[3] = {grid.x, grid.y, grid.z};
  const unsigned blockDims[3] = {block.x, block.y, block.z};
  copy.launchEntry(thunk, gridDims, blockDims, args, blocks.data(), blocks.size());
}

void EmulatedModule::launch(const std::string &kernelName, Dim3 grid, Dim3 block, std::vector<void *> args,
                            const std::vector<size_t> &bufferBytes) const {
  const std::string thunkName = kernelName + "__emulated";
  void (*thunks[2])(void **);
  for (int c = 0; c < 2; ++c) {
    thunks[c] = reinterpret_cast<void (*)(void **)>(::dlsym(copies_[c].library.get(), thunkName.c_str()));
    if (!thunks[c])
      throw std::runtime_error("no thunk '" + thunkName + "' for kernel '" + kernelName + "' in the emulated module");
  }
  if (bufferBytes.size() > args.size())
    throw std::invalid_argument("more buffer sizes than arguments for kernel '" + kernelName + "'");

  // Guarded copies of the buffers, at their original alignment.
  std::vector<std::unique_ptr<GuardedBuffer>> guarded;
  for (size_t i = 0; i < bufferBytes.size(); ++i) {
    guarded.push_back(std::make_unique<GuardedBuffer>(bufferBytes[i], 0, reinterpret_cast<uintptr_t>(args[i]) % 16));
    if (bufferBytes[i])
      std::memcpy(guarded[i]->data(), args[i], bufferBytes[i]);
  }
  std::vector<void *> launchArgs = args;
  for (size_t i = 0; i < guarded.size(); ++i)
    launchArgs[i] = guarded[i]->data();

  // Blocks in a shuffled order, alternately to each copy of the module.
  std::vector<uint32_t> order(size_t(grid.x) * grid.y * grid.z);
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = uint32_t(i);
  const char *seed = std::getenv("FUSEC_EMULATION_SEED");
  std::mt19937_64 random(seed && *seed ? std::strtoull(seed, nullptr, 0) : 0x5eedf00dULL);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<uint32_t> shares[2];
  for (size_t i = 0; i < order.size(); ++i)
    shares[i % 2].push_back(order[i]);

  std::exception_ptr failures[2];
  auto runShare = [&](int c) {
    try {
      if (!shares[c].empty() || c == 0)
        runBlocks(copies_[c], thunks[c], grid, block, launchArgs.data(), shares[c]);
    } catch (...) {
      failures[c] = std::current_exception();
    }
  };
  std::thread second(runShare, 1);
  runShare(0);
  second.join();

  std::string faults;
  for (size_t i = 0; i < guarded.size(); ++i) {
    const std::string fault = guarded[i]->faults("argument " + std::to_string(i));
    if (!fault.empty())
      faults += (faults.empty() ? "" : "; ") + fault;
    if (bufferBytes[i])
      std::memcpy(args[i], guarded[i]->data(), bufferBytes[i]);
  }
  for (std::exception_ptr failure : failures)
    if (failure)
      std::rethrow_exception(failure);
  if (!faults.empty())
    throw std::runtime_error("kernel '" + kernelName + "': " + faults);
}

} // namespace fusec::test
