//===- FuserunOptions.cpp - fuserun's command line --------------------------===//

#include "tools/fuserun/FuserunOptions.h"

#include "runtime/BackendRegistry.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace fusec::fuserun {

namespace {

template <typename Integer> Integer parseInteger(const std::string &flag, const std::string &text, Integer minimum) {
  Integer value{};
  const char *end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < minimum)
    throw UsageError("option '" + flag + "' expects an integer >= " + std::to_string(minimum) + ", got '" + text + "'");
  return value;
}

double parseTolerance(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= 0.0) || value == HUGE_VAL)
    throw UsageError("option '" + flag + "' expects a non-negative number, got '" + text + "'");
  return value;
}

} // namespace

std::string fuserunUsage() {
  return R"(usage: fuserun PLAN [options]

Runs a compiled model.plan and reads/writes float32 .npy files.

options (each valued option accepts --flag=value and --flag value):
  --device=cpu|cuda|auto  where to run (default auto: CUDA if available, else CPU)
  --batch=N               batch size (default: taken from the input files; 1 for
                          --random-inputs and --info)
  --input NAME=FILE.npy   bind graph input NAME to a float32 .npy file; repeat
                          for every input
  --dim NAME=SIZE         run (or with --info describe) the shape variant
                          compiled for this size of the named dimension
                          (fusec --dim NAME=A,B); repeat for each name. Without
                          it, the input files' shapes pick the variant, and
                          --random-inputs and --info take the plan's first
  --random-inputs=SEED    generate deterministic inputs, uniform in [-1, 1), for
                          every input not given with --input
  --output-dir=DIR        write each output to DIR/<output name>.npy ('/' in a
                          name becomes '_'); without it, print a summary of
                          each output
  --iters=N               time N runs and print the median/min/max in ms (CUDA:
                          device time between events for the whole run and for
                          its execution alone; CPU: wall clock)
  --warmup=N              untimed runs before the timed ones (default 0)
  --time-kernels          with --iters on CUDA: also time every kernel on its
                          own, back to back, and print the sum per run
  --check                 also run the CPU backend on the same inputs and report
                          each output's max abs and rel error (rel over elements
                          whose reference exceeds atol in magnitude); exit 1 if
                          any |out - ref| > atol + rtol * |ref|
  --rtol=X, --atol=X      tolerances for --check (default 1e-4 each)
  --no-graph              CUDA: launch kernels directly at the exact batch
                          instead of replaying a CUDA graph per batch bucket
  --prebuild-graphs       CUDA: capture every bucket's graphs at load instead of
                          on each bucket's first run
  --cuda-driver=LIB       the CUDA driver library to dlopen (default libcuda.so.1)
  --cublaslt=LIB          the cuBLASLt library library variants call (default
                          libcublasLt.so.13; if it does not load, those
                          kernels run their generated variants)
  --cudnn=LIB             the cuDNN library convolution library variants call
                          (default libcudnn.so.9; likewise)
  --tactics=all|generated|library
                          CUDA: which forms of conv/GEMM kernels may run: every
                          variant the plan carries (all, default: the plan's
                          default unless --tune times them), the generated
                          kernels only, or the library variant wherever a
                          kernel has one
  --tune                  CUDA: time every compiled variant of each conv/GEMM
                          kernel (fusec --kernel-variants=3) at the run's batch
                          bucket, run the fastest, print the choices and keep
                          them in the tuning cache, which later runs on the
                          same GPU and driver reuse without --tune
  --timing-gate=auto|host-flag|none
                          CUDA, for --time-kernels and --tune: hold the
                          stream on a flag in host memory while the timed
                          kernels are enqueued (host-flag), or not (none:
                          needs no host-mapped memory; times may include
                          launch latency); auto (default) probes the wait
                          once and falls back to none, with a note on stderr
  --tuning-cache=FILE     the tuning cache (default $FUSEC_TUNING_CACHE, else
                          $XDG_CACHE_HOME/fusec/tuning.json, else
                          ~/.cache/fusec/tuning.json); 'none': neither read
                          nor write one
  --serve-bench           instead of one run: --clients threads, each with its
                          own session of the plan, send --requests requests
                          each back to back at batch sizes drawn from
                          --batch-dist (inputs from --random-inputs, default
                          seed 1); prints requests/s, samples/s and latency
                          p50/p90/p99/max, overall and per batch size
  --clients=N             serve bench clients (default 4)
  --requests=N            timed requests per client (default 50)
  --batch-dist=SPEC       batch sizes and weights, e.g. 1:0.5,4:0.3,8:0.2 or
                          1,4,8 (equal weights; default 1)
  --info[=json]           describe the plan (inputs, outputs, kernels, arena
                          bytes at --batch) instead of running it; --info=json
                          prints JSON
  --help                  show this help

exit codes: 0 success, 1 error (bad plan, bad inputs, failed run), 2 usage error
)";
}

FuserunOptions parseFuserunOptions(const std::vector<std::string> &args) {
  FuserunOptions options;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      if (arg == "-h")
        options.help = true;
      else if (arg.size() > 1 && arg[0] == '-')
        throw UsageError("unknown option '" + arg + "'");
      else
        positional.push_back(arg);
      continue;
    }

    const size_t equals = arg.find('=');
    const std::string flag = arg.substr(0, equals);
    std::optional<std::string> inlineValue;
    if (equals != std::string::npos)
      inlineValue = arg.substr(equals + 1);
    auto value = [&]() -> std::string {
      if (inlineValue)
        return *inlineValue;
      if (i + 1 >= args.size())
        throw UsageError("option '" + flag + "' needs a value");
      return args[++i];
    };
    auto noValue = [&] {
      if (inlineValue)
        throw UsageError("option '" + flag + "' takes no value");
    };

    if (flag == "--help") {
      noValue();
      options.help = true;
    } else if (flag == "--info") {
      if (!inlineValue || *inlineValue == "text")
        options.info = InfoFormat::Text;
      else if (*inlineValue == "json")
        options.info = InfoFormat::Json;
      else
        throw UsageError("option '--info' accepts 'json' or 'text', got '" + *inlineValue + "'");
    } else if (flag == "--device") {
      const std::string name = value();
      if (!runtime::isDeviceName(name))
        throw UsageError("option '--device' expects " + runtime::describeDeviceNames() + ", got '" + name + "'");
      options.device = name;
    } else if (flag == "--batch") {
      options.batch = parseInteger<int64_t>(flag, value(), 1);
    } else if (flag == "--input") {
      const std::string binding = value();
      const size_t split = binding.find('=');
      if (split == std::string::npos || split == 0 || split + 1 == binding.size())
        throw UsageError("option '--input' expects NAME=FILE.npy, got '" + binding + "'");
      const std::string name = binding.substr(0, split);
      for (const auto &existing : options.inputFiles)
        if (existing.first == name)
          throw UsageError("input '" + name + "' is given twice");
      options.inputFiles.emplace_back(name, binding.substr(split + 1));
    } else if (flag == "--dim") {
      const std::string binding = value();
      const size_t split = binding.find('=');
      if (split == std::string::npos || split == 0 || split + 1 == binding.size())
        throw UsageError("option '--dim' expects NAME=SIZE, got '" + binding + "'");
      const std::string name = binding.substr(0, split);
      if (!options.dims.emplace(name, parseInteger<int64_t>(flag, binding.substr(split + 1), 1)).second)
        throw UsageError("dimension '" + name + "' is given twice");
    } else if (flag == "--output-dir") {
      options.outputDir = value();
      if (options.outputDir->empty())
        throw UsageError("option '--output-dir' needs a directory");
    } else if (flag == "--random-inputs") {
      options.randomSeed = parseInteger<uint64_t>(flag, value(), 0);
    } else if (flag == "--iters") {
      options.iterations = parseInteger<int>(flag, value(), 1);
      options.reportTiming = true;
    } else if (flag == "--warmup") {
      options.warmup = parseInteger<int>(flag, value(), 0);
      options.reportTiming = true;
    } else if (flag == "--time-kernels") {
      noValue();
      options.timeKernels = true;
    } else if (flag == "--check") {
      noValue();
      options.check = true;
    } else if (flag == "--rtol") {
      options.rtol = parseTolerance(flag, value());
    } else if (flag == "--atol") {
      options.atol = parseTolerance(flag, value());
    } else if (flag == "--serve-bench") {
      noValue();
      options.serveBench = true;
    } else if (flag == "--clients") {
      options.clients = parseInteger<int>(flag, value(), 1);
    } else if (flag == "--requests") {
      options.requestsPerClient = parseInteger<int>(flag, value(), 1);
    } else if (flag == "--batch-dist") {
      options.batchDistribution = value();
    } else if (flag == "--no-graph") {
      noValue();
      options.deviceOptions.useGraphs = false;
    } else if (flag == "--prebuild-graphs") {
      noValue();
      options.deviceOptions.prebuildGraphs = true;
    } else if (flag == "--tune") {
      noValue();
      options.deviceOptions.tune = true;
    } else if (flag == "--timing-gate") {
      const std::string gate = value();
      if (gate != "auto" && gate != "host-flag" && gate != "none")
        throw UsageError("option '--timing-gate' expects auto, host-flag or none, got '" + gate + "'");
      options.deviceOptions.timingGate = gate == "auto"        ? runtime::TimingGate::Auto
                                         : gate == "host-flag" ? runtime::TimingGate::HostFlag
                                                               : runtime::TimingGate::None;
    } else if (flag == "--tuning-cache") {
      options.deviceOptions.tuningCache = value();
      if (options.deviceOptions.tuningCache.empty())
        throw UsageError("option '--tuning-cache' needs a file, or 'none'");
    } else if (flag == "--cublaslt") {
      options.deviceOptions.cublasLt = value();
      if (options.deviceOptions.cublasLt.empty())
        throw UsageError("option '--cublaslt' needs a library");
    } else if (flag == "--cudnn") {
      options.deviceOptions.cudnn = value();
      if (options.deviceOptions.cudnn.empty())
        throw UsageError("option '--cudnn' needs a library");
    } else if (flag == "--tactics") {
      const std::string tactics = value();
      std::optional<runtime::Tactics> parsed = runtime::parseTactics(tactics);
      if (!parsed)
        throw UsageError("option '--tactics' expects all, generated or library, got '" + tactics + "'");
      options.deviceOptions.tactics = *parsed;
    } else if (flag == "--cuda-driver") {
      options.deviceOptions.cudaDriver = value();
      if (options.deviceOptions.cudaDriver.empty())
        throw UsageError("option '--cuda-driver' needs a library");
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
  }

  if (options.help)
    return options;
  if (options.timeKernels && !options.reportTiming)
    throw UsageError("option '--time-kernels' needs --iters");
  if (options.serveBench &&
      (!options.inputFiles.empty() || options.outputDir || options.check || options.reportTiming || options.batch))
    throw UsageError("option '--serve-bench' makes its own inputs and times its own requests: it does not combine "
                     "with --input, --output-dir, --check, --iters, --warmup or --batch");
  if (positional.empty())
    throw UsageError("missing the PLAN argument");
  if (positional.size() > 1)
    throw UsageError("expected one PLAN argument, got '" + positional[0] + "' and '" + positional[1] + "'");
  options.planPath = positional.front();
  return options;
}

} // namespace fusec::fuserun
