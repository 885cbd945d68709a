//===- FuserunTest.cpp - The fuserun command line, end to end ---------------===//

#include "TestSupport.h"

#include "runtime/Npy.h"
#include "support/FileIO.h"

#include <cstdlib>
#include <sys/wait.h>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;
using nlohmann::json;

namespace {

struct ToolResult {
  int exitCode = -1;
  std::string out;
  std::string err;
};

/// Runs fuserun with `args` (a shell word list) in `dir`.
ToolResult fuserun(const test::TempDir &dir, const std::string &args) {
  const std::string command =
      std::string(FUSERUN_PATH) + " " + args + " >" + dir.file("stdout.txt") + " 2>" + dir.file("stderr.txt");
  const int status = std::system(command.c_str());
  ToolResult result;
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  auto read = [](const std::string &path) {
    const std::vector<uint8_t> bytes = readFileBytes(path);
    return std::string(bytes.begin(), bytes.end());
  };
  result.out = read(dir.file("stdout.txt"));
  result.err = read(dir.file("stderr.txt"));
  return result;
}

/// A directory holding small.plan and x3.npy (the plan's 3 example rows).
struct Workspace {
  test::TempDir dir;
  std::string plan = dir.file("small.plan");
  std::string input = dir.file("x3.npy");

  Workspace() {
    writeFileAtomically(plan, test::smallPlanBytes());
    std::vector<float> x;
    for (const auto &row : test::kSmallPlanInputRows)
      x.insert(x.end(), row.begin(), row.end());
    writeNpy(input, Tensor({3, 2}, x));
  }
};

} // namespace

TEST_CASE("fuserun runs a plan on .npy inputs and writes .npy outputs") {
  Workspace w;
  for (const std::string &flags :
       {std::string("--input x=") + w.input + " --output-dir=" + w.dir.file("out"),
        std::string("--input=x=") + w.input + " --output-dir " + w.dir.file("out") + " --batch 3 --device cpu"}) {
    INFO(flags);
    const ToolResult r = fuserun(w.dir, w.plan + " " + flags);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.out, Contains("wrote " + w.dir.file("out") + "/y.npy"));
    std::vector<float> expected;
    for (const auto &row : test::kSmallPlanOutputRows)
      expected.insert(expected.end(), row.begin(), row.end());
    test::requireTensor(readNpy(w.dir.file("out/y.npy")), {3, 3}, expected);
  }
}

TEST_CASE("fuserun summarizes outputs and times runs") {
  Workspace w;
  const ToolResult r = fuserun(w.dir, w.plan + " --random-inputs=5 --batch=2 --iters 3 --warmup=1");
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.out, Contains("timing: 3 runs at batch 2 on cpu: median "));
  CHECK_THAT(r.out, Contains(" ms, min "));
  CHECK_THAT(r.out, Contains("output 'y' [2, 3]: min "));
}

TEST_CASE("fuserun --random-inputs is deterministic") {
  Workspace w;
  for (const char *out : {"a", "b"})
    REQUIRE(fuserun(w.dir, w.plan +
                               " --random-inputs 11 --batch=4 "
                               "--output-dir=" +
                               w.dir.file(out))
                .exitCode == 0);
  const Tensor a = readNpy(w.dir.file("a/y.npy"));
  CHECK(a.shape() == Shape{4, 3});
  CHECK(a.values() == readNpy(w.dir.file("b/y.npy")).values());
}

TEST_CASE("fuserun --info describes the plan as JSON or text") {
  Workspace w;
  const ToolResult r = fuserun(w.dir, w.plan + " --info=json --batch=3");
  REQUIRE(r.exitCode == 0);
  const json info = json::parse(r.out);
  CHECK(info["format_version"] == "7.5");
  CHECK(info["compiler_version"] == "fusec test");
  CHECK(info["target"] == "cpu");
  CHECK(info["batch_buckets"] == json({1, 2, 4}));
  CHECK(info["inputs"] == json::parse(R"([{"name": "x", "dtype": "f32", "shape": [-1, 2]}])"));
  CHECK(info["outputs"][0]["shape"] == json({-1, 3}));
  CHECK(info["kernels"]["count"] == 3);
  CHECK(info["kernels"]["list"][0]["ops"] == json({"Gemm"}));
  CHECK(info["kernels"]["list"][2] == json::parse(R"({"name": "k2_add_add", "kind": "elementwise",
                        "ops": ["Add", "Add"]})"));
  CHECK(info["arena_bytes"] == 128 * 3);
  CHECK(info["arena_lower_bound_bytes"] == 24 * 3);

  const ToolResult text = fuserun(w.dir, w.plan + " --info");
  REQUIRE(text.exitCode == 0);
  CHECK_THAT(text.out, Contains("kernels: 3"));
  CHECK_THAT(text.out, Contains("k2_add_add (elementwise): Add Add"));
  CHECK_THAT(text.out, Contains("arena at batch 1: 128 bytes (lower bound 24)"));
  CHECK_THAT(text.out, Contains("x  f32 [batch, 2]"));
}

TEST_CASE("fuserun reports bad inputs and plans with exit code 1") {
  Workspace w;
  // A float64 file: numpy's header with another dtype.
  std::vector<uint8_t> f8 = encodeNpy(Tensor({3, 2}));
  std::string header(f8.begin(), f8.begin() + 64);
  f8[header.find("<f4") + 2] = '8';
  writeFileAtomically(w.dir.file("f8.npy"), f8);
  writeFileAtomically(w.dir.file("bad.plan"), {'n', 'o', 'p', 'e'});
  // The right shape in another element type: never converted silently.
  writeNpy(w.dir.file("i32.npy"), Tensor({3, 2}, ElementType::I32));
  const struct {
    std::string args, message;
  } cases[] = {
      {w.plan, "fuserun: error: missing input 'x' of shape [batch, 2]"},
      {w.plan + " --input y=" + w.input, "unknown input 'y'"},
      {w.plan + " --input x=" + w.input + " --batch=2", "input 'x' has shape [3, 2], but the plan expects [2, 2]"},
      {w.plan + " --input x=" + w.dir.file("f8.npy"), "f8.npy: unsupported dtype '<f8'"},
      {w.plan + " --input x=" + w.dir.file("none.npy"), "cannot open"},
      {w.plan + " --input x=" + w.dir.file("i32.npy"), "i32.npy: input 'x' is i32, the plan takes f32"},
      {w.dir.file("bad.plan"), "bad.plan: file is too short"},
      {w.dir.file("none.plan"), "cannot open"},
      {w.plan + " --device=cuda --random-inputs=1", "cannot run plan '" + w.plan +
                                                        "' on cuda: kernel 'k0_gemm' has no GPU "
                                                        "image"},
  };
  for (const auto &c : cases) {
    INFO(c.args);
    const ToolResult r = fuserun(w.dir, c.args);
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.err, Contains("fuserun: error: "));
    CHECK_THAT(r.err, Contains(c.message));
  }
}

TEST_CASE("fuserun reports usage errors with exit code 2") {
  Workspace w;
  const struct {
    std::string args, message;
  } cases[] = {
      {"", "missing the PLAN argument"},
      {w.plan + " --frobnicate", "unknown option '--frobnicate'"},
      {w.plan + " -x", "unknown option '-x'"},
      {w.plan + " --batch=0", "option '--batch' expects an integer >= 1"},
      {w.plan + " --batch abc", "got 'abc'"},
      {w.plan + " --iters", "option '--iters' needs a value"},
      {w.plan + " --input x", "expects NAME=FILE.npy"},
      {w.plan + " --info=xml", "accepts 'json' or 'text'"},
      {w.plan + " --device=tpu", "expects cpu, cuda or auto"},
      {w.plan + " --help=yes", "takes no value"},
      {w.plan + " other.plan", "expected one PLAN argument"},
      {w.plan + " --input x=a.npy --input x=b.npy", "given twice"},
      {w.plan + " --rtol=-1", "option '--rtol' expects a non-negative number"},
      {w.plan + " --atol abc", "got 'abc'"},
      {w.plan + " --check=yes", "takes no value"},
      {w.plan + " --no-graph=1", "takes no value"},
      {w.plan + " --time-kernels", "option '--time-kernels' needs --iters"},
      {w.plan + " --cuda-driver=", "option '--cuda-driver' needs a library"},
      {w.plan + " --serve-bench --iters=3", "option '--serve-bench' makes its own inputs"},
      {w.plan + " --serve-bench --input x=" + w.input, "does not combine with --input"},
      {w.plan + " --clients=0", "option '--clients' expects an integer >= 1"},
      {w.plan + " --requests abc", "option '--requests' expects an integer >= 1"},
      {w.plan + " --timing-gate=spin", "option '--timing-gate' expects auto, host-flag or none, got 'spin'"},
  };
  for (const auto &c : cases) {
    INFO(c.args);
    const ToolResult r = fuserun(w.dir, c.args);
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.err, Contains("fuserun: error: "));
    CHECK_THAT(r.err, Contains(c.message));
    CHECK_THAT(r.err, Contains("run 'fuserun --help' for usage"));
  }
}

TEST_CASE("fuserun --help documents every flag") {
  test::TempDir dir;
  const ToolResult r = fuserun(dir, "--help");
  CHECK(r.exitCode == 0);
  for (const char *flag : {"--device",        "--batch",           "--input",        "--output-dir",
                           "--random-inputs", "--iters",           "--warmup",       "--info",
                           "--help",          "--check",           "--rtol",         "--atol",
                           "--no-graph",      "--prebuild-graphs", "--time-kernels", "--cuda-driver",
                           "--serve-bench",   "--clients",         "--requests",     "--batch-dist",
                           "--tune",          "--tuning-cache",    "--timing-gate"})
    CHECK_THAT(r.out, Contains(flag));
}

TEST_CASE("fuserun --check compares every output with the CPU backend") {
  Workspace w;
  const std::string gpuPlan = w.dir.file("host.plan");
  writeFileAtomically(gpuPlan, test::hostStepPlanBytes());
  const ToolResult r = fuserun(w.dir, gpuPlan + " --random-inputs=3 --batch=3 --check "
                                                "--cuda-driver=/nonexistent/libcuda.so.1");
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.out, Contains("check 'y' against the CPU backend: max abs "
                             "error 0, max rel error 0: ok"));
  CHECK_THAT(r.out, Contains("check 'z' against the CPU backend: "));
}

TEST_CASE("fuserun --device=auto falls back to the CPU with one note") {
  Workspace w;
  const std::string gpuPlan = w.dir.file("host.plan");
  writeFileAtomically(gpuPlan, test::hostStepPlanBytes());
  const std::string driver = " --cuda-driver=/nonexistent/libcuda.so.1";
  const ToolResult r = fuserun(w.dir, gpuPlan + " --random-inputs=1 --iters=2 --prebuild-graphs" + driver);
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  const std::string note = "fusec: CUDA is unavailable (cannot load the CUDA driver "
                           "'/nonexistent/libcuda.so.1': ";
  CHECK_THAT(r.err, Contains(note));
  CHECK(r.err.find(note) == r.err.rfind(note));
  CHECK_THAT(r.out, Contains("timing: 2 runs at batch 1 on cpu: median "));
  CHECK_THAT(r.out, !Contains("timing execute"));

  const ToolResult cuda = fuserun(w.dir, gpuPlan + " --random-inputs=1 --device=cuda" + driver);
  CHECK(cuda.exitCode == 1);
  CHECK_THAT(cuda.err, Contains("fuserun: error: cannot run on cuda: cannot load the "
                                "CUDA driver '/nonexistent/libcuda.so.1'"));
}

TEST_CASE("fuserun rejects batches beyond what the plan and memory allow") {
  Workspace w;
  const struct {
    std::string args, message;
  } cases[] = {
      // Used to overflow the element count and crash in MatMul.
      {w.plan + " --random-inputs=1 --batch=2305843009213693952", "batch size 2305843009213693952 is too large"},
      // Used to abort in the allocator.
      {w.plan + " --random-inputs=1 --batch=1000000000000", "batch size 1000000000000 is too large"},
      {w.plan + " --info --batch=2305843009213693952", "batch size 2305843009213693952 is too large"},
  };
  for (const auto &c : cases) {
    INFO(c.args);
    const ToolResult r = fuserun(w.dir, c.args);
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.err, Contains("fuserun: error: "));
    CHECK_THAT(r.err, Contains(c.message));
    CHECK_THAT(r.err, Contains("so the largest batch is"));
  }
}

TEST_CASE("fuserun rejects hostile window and padding attributes at load") {
  Workspace w;
  const json window = {{"kernel_shape", {3, 3}},
                       {"strides", {1, 1}},
                       {"pads", {0, 0, 0, 0}},
                       {"dilations", {int64_t(1) << 62, 1}},
                       {"ceil_mode", 0}};
  writeFileAtomically(w.dir.file("dilation.plan"), test::windowPlanBytes("MaxPool", window, {-1, 1, 2, 2}));
  const json pad = {{"pads", {0, 0, 0, int64_t(1) << 31, 0, 0, 0, 0}}, {"mode", "constant"}, {"value", 0.0}};
  writeFileAtomically(w.dir.file("pad.plan"), test::windowPlanBytes("Pad", pad, {-1, 1, 4, 4}));
  const struct {
    std::string args, message;
  } cases[] = {
      {w.dir.file("dilation.plan") + " --info", "op MaxPool 'op1': spatial dimension 0: window of size 3"},
      {w.dir.file("pad.plan") + " --random-inputs=1", "op Pad 'op1': the plan records result shape [batch, 1, 4, 4]"},
  };
  for (const auto &c : cases) {
    INFO(c.args);
    const ToolResult r = fuserun(w.dir, c.args);
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.err, Contains(c.message));
  }
}

TEST_CASE("fuserun --serve-bench prints throughput and latency per batch size") {
  Workspace w;
  const ToolResult r = fuserun(w.dir, w.plan + " --device=cpu --serve-bench --clients=3 --requests=20 "
                                               "--batch-dist=1:0.5,4:0.5 --random-inputs=9");
  INFO(r.err);
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.out, Contains("serve-bench: 3 clients on cpu, 60 requests ("));
  CHECK_THAT(r.out, Contains("requests/s"));
  CHECK_THAT(r.out, Contains("serve-bench latency: p50 "));
  CHECK_THAT(r.out, Contains("serve-bench batch 1 ("));
  CHECK_THAT(r.out, Contains("serve-bench batch 4 ("));
  // A bad distribution or a batch the plan cannot run is an error (exit 1).
  const ToolResult bad = fuserun(w.dir, w.plan + " --device=cpu --serve-bench --batch-dist=1:0");
  CHECK(bad.exitCode == 1);
  CHECK_THAT(bad.err, Contains("batch distribution entry '1:0': the weight must be a finite number > 0"));
  const ToolResult huge = fuserun(w.dir, w.plan + " --device=cpu --serve-bench --batch-dist=100000000000");
  CHECK(huge.exitCode == 1);
  CHECK_THAT(huge.err, Contains("100000000000"));
}

TEST_CASE("fuserun runs, checks, times and serve-benches a GPU plan on the host CUDA double") {
  test::TempDir dir;
  const std::string plan = dir.file("host.plan");
  writeFileAtomically(plan, test::hostStepPlanBytes());
  const std::string cuda = plan + " --device=cuda --cuda-driver=" + FUSEC_HOST_CUDA_DRIVER;
  const ToolResult checked = fuserun(dir, cuda + " --random-inputs=4 --batch=3 --check --iters=3 --time-kernels");
  INFO(checked.err);
  CHECK(checked.exitCode == 0);
  CHECK_THAT(checked.out, Contains("check 'y' against the CPU backend: "));
  CHECK_THAT(checked.out, Contains("timing: 3 runs at batch 3 on cuda (bucket 4, graph)"));
  CHECK_THAT(checked.out, Contains("timing kernels: "));
  // Sessions of one plan on four threads, each with its own stream and
  // graphs, at batches inside and above the buckets.
  const ToolResult bench = fuserun(dir, cuda + " --serve-bench --clients=4 --requests=15 --batch-dist=1,3,17");
  INFO(bench.err);
  CHECK(bench.exitCode == 0);
  CHECK_THAT(bench.out, Contains("serve-bench: 4 clients on cuda, 60 requests ("));
}

TEST_CASE("fuserun times kernels without a gate where the host-memory wait is never released") {
  // The double's wait, as on a machine where the device never sees the
  // flag written: the probe's deadline passes, the note names it, and the
  // kernels are timed with nothing holding the stream.
  test::TempDir dir;
  const std::string plan = dir.file("host.plan");
  writeFileAtomically(plan, test::hostStepPlanBytes());
  const std::string cuda = plan + " --device=cuda --cuda-driver=" + FUSEC_HOST_CUDA_DRIVER +
                           " --random-inputs=4 --batch=3 --check --iters=2 --time-kernels";
  setenv("FUSEC_HOST_CUDA_WAIT", "never", 1);
  const ToolResult probed = fuserun(dir, cuda);
  const ToolResult ungated = fuserun(dir, cuda + " --timing-gate=none");
  unsetenv("FUSEC_HOST_CUDA_WAIT");
  INFO(probed.err);
  CHECK(probed.exitCode == 0);
  CHECK_THAT(probed.err, Contains("fusec: the device's wait on host memory is unusable here (the stream was not "
                                  "released within 2000 ms of the flag's write)"));
  CHECK_THAT(probed.out, Contains("each timed on its own, the stream not held: launch latency may be included)"));
  INFO(ungated.err);
  CHECK(ungated.exitCode == 0);
  CHECK(ungated.err.find("unusable") == std::string::npos); // no probe
  CHECK_THAT(ungated.out, Contains("the stream not held"));
  // --info says what the kernels compute in, which check.sh's tolerances follow.
  const ToolResult info = fuserun(dir, plan + " --info");
  CHECK_THAT(info.out, Contains("precision: fp32\n"));
}
