//===- FuserunOptions.h - fuserun's command line ----------------------------===//
#ifndef FUSEC_TOOLS_FUSERUN_FUSERUNOPTIONS_H
#define FUSEC_TOOLS_FUSERUN_FUSERUNOPTIONS_H

#include "runtime/Device.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fusec::fuserun {

/// A malformed command line (exit code 2).
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class InfoFormat { None, Text, Json };

struct FuserunOptions {
  std::string planPath;
  /// A registered backend's name or "auto".
  std::string device = "auto";
  std::optional<int64_t> batch;
  /// (input name, .npy path) in command-line order.
  std::vector<std::pair<std::string, std::string>> inputFiles;
  /// --dim: the shape variant to run, by its named dimension sizes.
  std::map<std::string, int64_t> dims;
  std::optional<std::string> outputDir;
  std::optional<uint64_t> randomSeed;
  int iterations = 1;
  int warmup = 0;
  /// Set by --iters or --warmup.
  bool reportTiming = false;
  /// --time-kernels: also time each kernel on its own (CUDA).
  bool timeKernels = false;
  /// --no-graph, --prebuild-graphs, --cuda-driver.
  runtime::DeviceOptions deviceOptions;
  /// --check: compare every output with the CPU backend's.
  bool check = false;
  double rtol = 1e-4;
  double atol = 1e-4;
  InfoFormat info = InfoFormat::None;
  /// --serve-bench: concurrent clients (tools/fuserun/ServeBench.h) instead of one run.
  bool serveBench = false;
  int clients = 4;
  int requestsPerClient = 50;
  /// --batch-dist, as given ("1:0.5,4:0.3,8:0.2").
  std::string batchDistribution = "1";
  bool help = false;
};

/// Parses argv[1..]. Every valued option accepts "--flag=value" and
/// "--flag value"; --info takes a value only as "--info=json". Throws
/// UsageError.
FuserunOptions parseFuserunOptions(const std::vector<std::string> &args);

/// The --help text.
std::string fuserunUsage();

} // namespace fusec::fuserun

#endif // FUSEC_TOOLS_FUSERUN_FUSERUNOPTIONS_H
