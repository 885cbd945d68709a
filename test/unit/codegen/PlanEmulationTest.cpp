//===- PlanEmulationTest.cpp - Whole plans through the real GPU backend ----===//
//
// ModelEmulationTest runs the generated kernels with a buffer per value; a
// GPU runs them on the plan's memory. Here each shared model becomes a GPU
// plan (the kernels' PTX and CUBIN replaced by stubs: nothing loads them),
// and the runtime's own GPU backend (gpu::GpuBackend) runs it on the
// CPU-hosted driver (HostGpuDriver.h), whose launches run the kernels'
// exact CUDA text in emulation: the bucket padding, arena and I/O offsets,
// argument order, copies, host steps, graph capture and replay are the
// backend's own code.
//  * every kernel argument lies inside one device allocation with its
//    buffer's bytes at the run batch, and the emulation places each between
//    guard pages;
//  * device memory starts filled with NaN (a fresh session per run), so a
//    kernel that reads arena bytes no earlier step wrote spoils the outputs;
//  * batch 1, 3 (padded to the bucket of 4) and 8, graphed (bucket) and
//    ungraphed (exact batch) schedules, against the CPU backend.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"
#include "HostGpuDriver.h"

#include "../../models/ModelReference.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "runtime/RandomInputs.h"
#include "runtime/Schedule.h"
#include "runtime/Session.h"
#include "runtime/gpu/GpuBackend.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace fusec;
using namespace fusec::runtime;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";

/// A GPU plan of `module` whose images are stubs, and the CUDA source of
/// its kernels.
struct EmulatedPlan {
  std::shared_ptr<const Plan> plan;
  std::string source;
};

EmulatedPlan buildEmulatedPlan(mlir::ModuleOp module, const std::string &name) {
  EmulatedPlan result;
  PlanOptions options;
  options.target = "sm_90";
  bool emitted = true;
  module.walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    if (mlir::failed(kernel)) {
      emitted = false;
      return;
    }
    result.source += kernel->source + "\n";
    codegen::CompiledKernel stub;
    stub.ptx = "// " + kernel->name + ": run by the emulation, never loaded\n.version 9.0\n";
    stub.cubin.assign(16, 0); // a plan's images are never empty
    options.kernels[kernel->name] = {*kernel, stub};
  });
  REQUIRE(emitted);
  auto bytes = buildPlan(module, options);
  REQUIRE(mlir::succeeded(bytes));
  result.plan = std::make_shared<const Plan>(Plan::fromBytes(*bytes, name + ".plan"));
  return result;
}

/// Runs each launch as the emulated CUDA text of its kernel, with the
/// grid, the block and the argument bounds of the launch.
class EmulatedKernels final : public test::HostKernelRunner {
public:
  explicit EmulatedKernels(const test::EmulatedModule &module) : module_(module) {}

  void run(const Plan &plan, const LaunchStep &step, const std::vector<void *> &buffers,
           const std::vector<size_t> &bytes) const override {
    const KernelDesc &kernel = plan.kernels()[step.kernel];
    std::vector<void *> args = buffers;
    int batch = step.batch;
    args.push_back(&batch);
    module_.launch(kernel.findImage(plan::kPtxImageFormat)->entry, {step.grid.x, step.grid.y, step.grid.z},
                   {step.block.x, step.block.y, step.block.z}, args, bytes);
  }

private:
  const test::EmulatedModule &module_;
};

/// `precision` is fusec's --precision. Half-precision plans round at the
/// same points on both sides, but a kernel may sum in another order than the
/// CPU backend, and a last-bit difference before a rounding point can move
/// the rounded value by one unit of the half type (and later values with
/// it): the tolerance is a few units of f16 (2^-11) or bf16 (2^-8).
void runPlan(const std::string &name, const std::string &precision = "fp32") {
  const double tolerance = precision == "fp16" ? 4e-3 : precision == "bf16" ? 3e-2 : 1e-4;
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.precision = precision;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  const EmulatedPlan emulated = buildEmulatedPlan(*module, name);
  const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
  test::HostGpuOptions host;
  host.fill = 0xff; // NaN: nothing may be read before it is written
  host.runner = std::make_shared<EmulatedKernels>(kernels);
  const auto driver = test::makeHostGpuDriver(host);
  Session cpu(emulated.plan, Device::Cpu);
  for (int64_t batch : {1, 3, 8}) {
    const auto inputs = makeRandomInputs(*emulated.plan, batch, /*seed=*/static_cast<uint64_t>(batch));
    const auto expected = cpu.run(batch, inputs);
    for (bool graphed : {true, false}) {
      // A session per run: each starts from a workspace of NaN.
      DeviceOptions options;
      options.useGraphs = graphed;
      Session device(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, options));
      std::map<std::string, Tensor> outputs;
      REQUIRE_NOTHROW(outputs = device.run(batch, inputs));
      for (const auto &[outputName, want] : expected) {
        INFO(name << " (" << precision << ") batch " << batch << (graphed ? " graphed" : " ungraphed") << " output "
                  << outputName);
        std::string report;
        if (!test::allClose(outputs.at(outputName), want, tolerance, tolerance, report))
          FAIL_CHECK("emulated plan vs the CPU backend: " << report);
      }
    }
  }
}

} // namespace

#define FUSEC_EMULATED_PLAN_TEST(NAME)                                                                                 \
  TEST_CASE("emul: the plan of " #NAME " through the GPU backend matches the CPU backend", "[codegen][emul][plan]") {  \
    runPlan(#NAME);                                                                                                    \
  }
FUSEC_EMULATED_PLAN_TEST(conv_bn_relu)
FUSEC_EMULATED_PLAN_TEST(mlp)
FUSEC_EMULATED_PLAN_TEST(multi_consumer)
FUSEC_EMULATED_PLAN_TEST(pad_conv)
FUSEC_EMULATED_PLAN_TEST(residual_block)
FUSEC_EMULATED_PLAN_TEST(three_part)
FUSEC_EMULATED_PLAN_TEST(tiny_resnet)
#undef FUSEC_EMULATED_PLAN_TEST

// The f16 and bf16 kernels: typed signatures, widening loads, rounding where
// each op's result type says, converting stores, and the casts AMP inserts.
TEST_CASE("emul: fp16 plans of every shared model through the GPU backend match the CPU backend",
          "[codegen][emul][plan][precision]") {
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"})
    runPlan(name, "fp16");
}

TEST_CASE("emul: bf16 plans through the GPU backend match the CPU backend", "[codegen][emul][plan][precision]") {
  for (const char *name : {"mlp", "pad_conv", "tiny_resnet"})
    runPlan(name, "bf16");
}
