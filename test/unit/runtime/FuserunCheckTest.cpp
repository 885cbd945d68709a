//===- FuserunCheckTest.cpp - fuserun --check catches a wrong backend -----===//
//
// On a machine without a GPU fuserun --check can only compare the CPU
// backend with itself, so the path that matters (a backend whose outputs
// differ) is driven here through runFuserun with a test double of the
// backend: the CPU backend with one output element changed after each run.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"

#include "runtime/Backend.h"
#include "support/FileIO.h"
#include "tools/fuserun/FuserunRun.h"

#include <cmath>
#include <sstream>

using namespace fusec;
using namespace fusec::runtime;
using Catch::Contains;

namespace {

/// The CPU backend, but element `element` of output `output` is off by
/// `delta` after every run.
class PerturbedBackend : public Backend {
public:
  PerturbedBackend(std::shared_ptr<const Plan> plan, size_t output, size_t element, float delta)
      : cpu_(createBackend(Device::Cpu, std::move(plan))), output_(output), element_(element), delta_(delta) {}

  std::string name() const override { return cpu_->name(); }
  void execute(int64_t batch, const std::vector<const void *> &inputs, const std::vector<void *> &outputs) override {
    cpu_->execute(batch, inputs, outputs);
    static_cast<float *>(outputs[output_])[element_] += delta_; // the test plans' outputs are f32
  }

private:
  std::unique_ptr<Backend> cpu_;
  size_t output_, element_;
  float delta_;
};

struct FuserunResult {
  int exitCode = -1;
  std::string out, err;
};

/// fuserun on the host step plan (outputs y and z, [batch, 4]) with random
/// inputs at batch 3, its backend perturbed in output y or z.
FuserunResult runPerturbed(const std::string &extraArgs, size_t output, size_t element, float delta) {
  test::TempDir dir;
  const std::string plan = dir.file("host.plan");
  writeFileAtomically(plan, test::hostStepPlanBytes());
  std::vector<std::string> args = {plan, "--random-inputs=3", "--batch=3"};
  std::istringstream extra(extraArgs);
  for (std::string arg; extra >> arg;)
    args.push_back(arg);
  const fuserun::FuserunOptions options = fuserun::parseFuserunOptions(args);
  std::ostringstream out, err;
  FuserunResult result;
  result.exitCode = fuserun::runFuserun(
      options, out, err, [&](const std::string &, std::shared_ptr<const Plan> plan, const DeviceOptions &) {
        return std::make_unique<PerturbedBackend>(plan, output, element, delta);
      });
  result.out = out.str();
  result.err = err.str();
  return result;
}

} // namespace

TEST_CASE("fuserun --check reports an output that differs from the CPU backend and exits 1") {
  // Output z (index 1), element 7 of 12, off by 1024 (printed as exactly
  // that at six significant digits).
  const FuserunResult r = runPerturbed("--check", 1, 7, 1024.0f);
  INFO(r.out << r.err);
  CHECK(r.exitCode == 1);
  CHECK_THAT(r.out, Contains("check 'y' against the CPU backend: max abs error 0, max rel error 0: ok"));
  CHECK_THAT(r.out, Contains("check 'z' against the CPU backend: max abs error 1024, max rel error "));
  CHECK_THAT(r.out, Contains(": 1 of 12 elements differ beyond tolerance"));
  CHECK(r.err == "fuserun: error: outputs differ from the CPU backend beyond rtol 0.0001, atol 0.0001\n");
}

TEST_CASE("fuserun --check fails on a NaN and honours --rtol and --atol") {
  const FuserunResult nan = runPerturbed("--check", 0, 0, NAN);
  INFO(nan.out << nan.err);
  CHECK(nan.exitCode == 1);
  CHECK_THAT(nan.out, Contains("check 'y' against the CPU backend: max abs error inf, max rel error 0: 1 of 12 "
                               "elements differ beyond tolerance"));

  // Within the tolerances given, a difference passes; beyond them it fails.
  const FuserunResult loose = runPerturbed("--check --atol=0.01 --rtol=0", 0, 3, 0.005f);
  INFO(loose.out << loose.err);
  CHECK(loose.exitCode == 0);
  CHECK_THAT(loose.out, Contains("check 'y' against the CPU backend: max abs error 0.00"));
  CHECK_THAT(loose.out, Contains(": ok"));
  CHECK(loose.err.empty());
  const FuserunResult tight = runPerturbed("--check --atol=0.001 --rtol=0", 0, 3, 0.005f);
  CHECK(tight.exitCode == 1);
  CHECK_THAT(tight.err, Contains("beyond rtol 0, atol 0.001"));
}

TEST_CASE("fuserun without --check does not compare, so the same difference exits 0") {
  const FuserunResult r = runPerturbed("", 1, 7, 1024.0f);
  CHECK(r.exitCode == 0);
  CHECK_THAT(r.out, !Contains("against the CPU backend"));
  CHECK_THAT(r.out, Contains("output 'z' [3, 4]: min "));
}
