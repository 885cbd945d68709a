//===- PlanEmulationTest.cpp - Whole plans through the real Schedule ------===//
//
// ModelEmulationTest runs the generated kernels with a buffer per value; a
// GPU runs them on the plan's memory. Here each shared model becomes a GPU
// plan (the kernels' PTX and CUBIN replaced by stubs: nothing loads them),
// and the runtime's own Schedule drives the run as the GPU backend (gpu::GpuBackend) does
// (bucket padding, arena and I/O offsets, argument order, copies, host
// steps),
// with the kernels' exact CUDA text emulated on the CPU:
//  * the weights and the workspace each sit between guard pages, and every
//    kernel argument is checked against its buffer's bounds;
//  * the workspace starts filled with NaN, so a kernel that reads arena
//    bytes no earlier step wrote spoils the outputs;
//  * batch 1, 3 (padded to the bucket of 4) and 8, graphed (bucket) and
//    ungraphed (exact batch) schedules, against the CPU backend.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"
#include "GuardedMemory.h"

#include "../../models/ModelReference.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "runtime/RandomInputs.h"
#include "runtime/Schedule.h"
#include "runtime/Session.h"
#include "runtime/cpu/KernelInterpreter.h"

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

/// What GpuBackend::run does, with host memory for device memory and the
/// emulated kernels for the launches.
class EmulatedDevice {
public:
  EmulatedDevice(const Plan &plan, const test::EmulatedModule &kernels) : plan_(plan), kernels_(kernels) {
    const ByteRange weights = plan.sectionBytes(plan::kWeightsSection);
    weights_ = std::make_unique<test::GuardedBuffer>(weights.size, 0);
    if (weights.size)
      std::memcpy(weights_->data(), weights.data, weights.size);
  }

  std::map<std::string, Tensor> run(int64_t batch, bool graphed, const std::map<std::string, Tensor> &inputs) {
    const std::vector<int64_t> buckets = batchBuckets(plan_);
    const RunMode mode = chooseRunMode(buckets, batch, graphed);
    const WorkspaceLayout layout = layoutWorkspace(plan_, std::max(buckets.back(), mode.runBatch));
    const Schedule schedule = buildSchedule(plan_, layout, mode);
    // NaN (0xff bytes) everywhere: nothing may be read before it is written.
    test::GuardedBuffer workspace(layout.bytes, 0xff);
    workspace_ = &workspace;

    for (const IoTransfer &transfer : schedule.inputs) {
      const auto *host = reinterpret_cast<const uint8_t *>(inputs.at(plan_.inputs()[transfer.index].name).data());
      for (uint64_t block = 0; block < transfer.blocks; ++block) {
        uint8_t *row = at(transfer.device) + block * transfer.deviceBlockBytes;
        std::memcpy(row, host + block * transfer.hostBlockBytes, transfer.hostBlockBytes);
        std::memset(row + transfer.hostBlockBytes, 0, transfer.deviceBlockBytes - transfer.hostBlockBytes);
      }
    }
    for (size_t i = 0; i < schedule.segments.size(); ++i) {
      for (const DeviceStep &step : schedule.segments[i].steps)
        if (const auto *launch = std::get_if<LaunchStep>(&step))
          runLaunch(*launch, mode);
        else if (const auto *copy = std::get_if<CopyStep>(&step))
          std::memmove(at(copy->destination), at(copy->source), copy->bytes);
      if (i < schedule.hostSteps.size())
        runHostStep(schedule.hostSteps[i], mode);
    }
    std::map<std::string, Tensor> outputs;
    for (const IoTransfer &transfer : schedule.outputs) {
      const TensorDesc &desc = plan_.outputs()[transfer.index];
      const Shape shape = resolveShape(desc.shape, batch);
      std::vector<float> values(transfer.blocks * transfer.hostBlockBytes / sizeof(float));
      auto *host = reinterpret_cast<uint8_t *>(values.data());
      for (uint64_t block = 0; block < transfer.blocks; ++block)
        std::memcpy(host + block * transfer.hostBlockBytes, at(transfer.device) + block * transfer.deviceBlockBytes,
                    transfer.hostBlockBytes);
      outputs[desc.name] = Tensor(shape, std::move(values));
    }
    INFO("guard pages of the weights and the workspace");
    CHECK(weights_->faults("the weights") == "");
    CHECK(workspace.faults("the workspace") == "");
    workspace_ = nullptr;
    return outputs;
  }

private:
  uint8_t *at(const DeviceAddress &address) const {
    return (address.region == Region::Weights ? weights_->data() : workspace_->data()) + address.offset;
  }

  /// The arguments as Enqueue passes them: input buffers, output buffers,
  /// the batch; each with its bytes at the run batch, for the bounds checks.
  void runLaunch(const LaunchStep &step, const RunMode &mode) {
    const KernelDesc &kernel = plan_.kernels()[step.kernel];
    std::vector<size_t> ids = kernel.inputs;
    ids.insert(ids.end(), kernel.outputs.begin(), kernel.outputs.end());
    REQUIRE(ids.size() == step.args.size());
    std::vector<void *> args;
    std::vector<size_t> bytes;
    for (size_t i = 0; i < ids.size(); ++i) {
      args.push_back(at(step.args[i]));
      bytes.push_back(static_cast<size_t>(plan_.buffers()[ids[i]].byteSize().at(mode.runBatch)));
    }
    int batch = step.batch;
    args.push_back(&batch);
    INFO("kernel '" << kernel.name << "' (" << describeRunMode(mode) << ")");
    REQUIRE_NOTHROW(kernels_.launch(kernel.image->entry, {step.grid.x, step.grid.y, step.grid.z},
                                    {step.block.x, step.block.y, step.block.z}, args, bytes));
  }

  void runHostStep(const HostStep &step, const RunMode &mode) {
    const KernelDesc &kernel = plan_.kernels()[step.kernel];
    std::vector<void *> buffers(plan_.buffers().size(), nullptr);
    for (size_t id : kernel.inputs)
      if (plan_.buffers()[id].kind == BufferKind::Weight)
        buffers[id] = const_cast<void *>(plan_.weightData(plan_.buffers()[id]));
    for (const HostBuffer &staged : step.buffers)
      buffers[staged.buffer] = reinterpret_cast<void *>(at(staged.device));
    cpu::interpretKernel(kernel, mode.runBatch, buffers);
  }

  const Plan &plan_;
  const test::EmulatedModule &kernels_;
  std::unique_ptr<test::GuardedBuffer> weights_;
  test::GuardedBuffer *workspace_ = nullptr;
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
  EmulatedDevice device(*emulated.plan, kernels);
  Session cpu(emulated.plan, Device::Cpu);
  for (int64_t batch : {1, 3, 8}) {
    const auto inputs = makeRandomInputs(*emulated.plan, batch, /*seed=*/static_cast<uint64_t>(batch));
    const auto expected = cpu.run(batch, inputs);
    for (bool graphed : {true, false}) {
      const auto outputs = device.run(batch, graphed, inputs);
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
  TEST_CASE("emul: the plan of " #NAME " through the runtime's Schedule matches the CPU backend",                      \
            "[codegen][emul][plan]") {                                                                                 \
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
TEST_CASE("emul: fp16 plans of every shared model through the runtime's Schedule match the CPU backend",
          "[codegen][emul][plan][precision]") {
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"})
    runPlan(name, "fp16");
}

TEST_CASE("emul: bf16 plans through the runtime's Schedule match the CPU backend", "[codegen][emul][plan][precision]") {
  for (const char *name : {"mlp", "pad_conv", "tiny_resnet"})
    runPlan(name, "bf16");
}
