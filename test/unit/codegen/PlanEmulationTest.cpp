//===- PlanEmulationTest.cpp - Whole plans through the real GPU backend ----===//
//
// ModelEmulationTest runs the generated kernels with a buffer per value; a
// GPU runs them on the plan's memory. Here each shared model becomes a GPU
// plan (the kernels' PTX and CUBIN replaced by stubs: nothing loads them),
// and the runtime's own GPU backend (gpu::GpuBackend) runs it on the
// CPU-hosted driver (HostGpuDevice.h), whose launches run the kernels'
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
#include "EmulatedTensorMaps.h"
#include "EmulationHarness.h"
#include "FusedModule.h"
#include "HostGpuDevice.h"

#include "../../models/ModelReference.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Diagnostics.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "runtime/Session.h"
#include "runtime/TuningCache.h"
#include "runtime/gpu/GpuBackend.h"
#include "runtime/gpu/Schedule.h"
#include "runtime/gpu/VariantTuner.h"
#include "tools/fuserun/RandomInputs.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <unistd.h>

using namespace fusec;
using namespace fusec::runtime;

namespace {

const std::string kModelsDir = std::string(FUSEC_TEST_DATA_DIR) + "/models";

/// A GPU plan of `module` whose images are stubs, and the CUDA source of
/// its kernels.
struct EmulatedPlan {
  std::shared_ptr<const Plan> plan;
  std::string source;
  /// Kernels that run another kernel's function, as fusec's compiler shares
  /// code that differs only in the name (shape-generic kernels).
  size_t sharedKernels = 0;
};

/// `kernel`'s text with its name blanked out.
std::string anonymous(const codegen::GeneratedKernel &kernel) {
  std::string text = kernel.source;
  for (size_t at = text.find(kernel.name); at != std::string::npos; at = text.find(kernel.name, at + 1))
    text.replace(at, kernel.name.size(), "\x01");
  return text;
}

EmulatedPlan buildEmulatedPlan(mlir::ModuleOp module, const std::string &name, const std::string &target = "sm_90",
                               const std::vector<DimensionRange> &ranges = {}) {
  EmulatedPlan result;
  PlanOptions options;
  options.target = target;
  options.ranges = ranges;
  bool emitted = true;
  std::map<std::string, std::string> firstWithCode;
  module.walk([&](fuse::SuperkernelOp superkernel) {
    auto kernels = codegen::emitKernelVariants(superkernel);
    if (mlir::failed(kernels)) {
      emitted = false;
      return;
    }
    auto artifact = [&](const codegen::GeneratedKernel &kernel) {
      result.source += kernel.source + "\n";
      codegen::CompiledKernel stub;
      stub.ptx = "// " + kernel.name + ": run by the emulation, never loaded\n.version 9.0\n";
      stub.cubin.assign(16, 0); // a plan's images are never empty
      return KernelArtifact{kernel, stub, {}};
    };
    KernelArtifact &own = options.kernels[kernels->front().name];
    own = artifact(kernels->front());
    // As the compiler does: a kernel without variants whose text equals an
    // earlier one's but for the name runs that one's function, with its own
    // launch (grid and scalar arguments).
    if (kernels->size() == 1) {
      auto [first, inserted] = firstWithCode.emplace(anonymous(kernels->front()), kernels->front().name);
      if (!inserted) {
        own.compiled.entry = own.compiled.program = first->second;
        ++result.sharedKernels;
      }
    }
    for (size_t variant = 1; variant < kernels->size(); ++variant)
      own.variants.push_back(artifact((*kernels)[variant]));
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
    test::EmulatedTensorMaps maps(step.tensorMaps, buffers, step.batch);
    tensorMapLaunches_ += !step.tensorMaps.empty();
    int batch = step.batch;
    args.push_back(&batch);
    // The schedule's copy of the variant's scalar arguments: a kernel that
    // shares its program with another gets its own sizes only through them.
    std::vector<uint32_t> arguments = step.arguments;
    if (!arguments.empty())
      args.push_back(arguments.data());
    maps.appendTo(args);
    module_.launch(kernel.findImage(plan::kPtxImageFormat, "", step.variant)->entry,
                   {step.grid.x, step.grid.y, step.grid.z}, {step.block.x, step.block.y, step.block.z}, args, bytes);
  }

  /// Launches that passed tensor maps (Hopper kernels).
  size_t tensorMapLaunches() const { return tensorMapLaunches_; }

private:
  const test::EmulatedModule &module_;
  mutable std::atomic<size_t> tensorMapLaunches_{0};
};

/// `precision` is fusec's --precision. Half-precision plans round at the
/// same points on both sides, but a kernel may sum in another order than the
/// CPU backend, and a last-bit difference before a rounding point can move
/// the rounded value by one unit of the half type (and later values with
/// it): the tolerance is a few units of f16 (2^-11) or bf16 (2^-8).
/// `target` is fusec's --target: sm_90a plans use the Hopper templates.
/// What an emulated plan's conv kernels ran on.
struct ConvKernelCounts {
  size_t convs = 0;
  /// Convs reading through tensor maps (the Hopper templates), and of those
  /// the implicit GEMMs over spatial tiles (a 4-D map of the input image).
  size_t hopper = 0, spatial = 0;
  /// Of those, the 8-channel ones: k-tiles of 8 taps, unswizzled boxes.
  size_t narrow = 0;
};

ConvKernelCounts runPlan(const std::string &name, const std::string &precision = "fp32",
                         const std::string &modelsDir = kModelsDir, const std::string &target = "sm_90",
                         bool expectViews = false, const std::string &layout = "nchw") {
  test::ModelReference reference = test::loadModelReference(modelsDir + "/" + name);
  const double tolerance = reference.quantized   ? reference.atol
                           : precision == "fp16" ? 4e-3
                           : precision == "bf16" ? 3e-2
                                                 : 1e-4;
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.precision = precision;
  options.fusion.layout = layout;
  options.plan.target = target;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  const EmulatedPlan emulated = buildEmulatedPlan(*module, name, target);
  if (expectViews) { // the point of these runs: kernels store into and read slices of a concatenation
    size_t views = 0;
    for (const BufferDesc &buffer : emulated.plan->buffers())
      views += buffer.view.has_value();
    CHECK(views > 0);
  }
  ConvKernelCounts counts;
  bool hopper = false;
  for (const KernelDesc &kernel : emulated.plan->kernels()) {
    const std::vector<TensorMapDesc> &maps = kernel.launchOf(0).tensorMaps;
    hopper = hopper || !maps.empty();
    if (kernel.kind != "conv")
      continue;
    ++counts.convs;
    counts.hopper += !maps.empty();
    counts.spatial += !maps.empty() && maps[0].rank() == 4;
    counts.narrow += !maps.empty() && maps[0].swizzleBytes == 0;
  }
  if (target == "sm_90a") { // the point of these runs: some kernel reads through tensor maps
    CHECK(hopper);
    // Channels-last plans run their convs on the Hopper templates.
    if (layout == "nhwc" && counts.convs > 0)
      CHECK(counts.hopper > 0);
  }
  // tiny_resnet's layer3 downsample and second conv differ from layer2's
  // only in their sizes: they run layer2's functions.
  if (name == "tiny_resnet" && precision == "fp32")
    CHECK(emulated.sharedKernels == 2);
  const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
  test::HostGpuOptions host;
  host.fill = 0xff; // NaN: nothing may be read before it is written
  const auto runner = std::make_shared<EmulatedKernels>(kernels);
  host.runner = runner;
  const auto driver = test::makeHostGpuDevice(host);
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
  if (target == "sm_90a")
    CHECK(runner->tensorMapLaunches() > 0);
  return counts;
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

TEST_CASE("emul: sm_90a plans, whose f16/bf16 Gemms run the Hopper template, match the CPU backend",
          "[codegen][emul][plan][precision][sm90]") {
  // A Gemm with B as N x K (tiny_resnet's classifier), MatMuls with B as
  // K x N (mlp), and a GPT-2 block's four projections on 3-D activations.
  runPlan("tiny_resnet", "fp16", kModelsDir, "sm_90a");
  runPlan("tiny_resnet", "bf16", kModelsDir, "sm_90a");
  runPlan("mlp", "fp16", kModelsDir, "sm_90a");
  runPlan("gpt_block", "bf16", std::string(FUSEC_TEST_DATA_DIR) + "/pytorch", "sm_90a");
  // MobileNetV2's expansions and projections: pointwise channels-last convs
  // as products of pixels by weights, with their ReLU6 and residual adds.
  runPlan("mobilenet_v2", "fp16", std::string(FUSEC_TEST_DATA_DIR) + "/pytorch", "sm_90a", false, "nhwc");
}

// Every shared model on the sm_90a path, channels-last as sm_90a plans run
// convs: each has some kernel on the Hopper templates (runPlan checks it),
// the convs on 3 or 4 channels padded to 8 and those on 16 in k-tiles of
// 8-channel chunks, the MatMuls on the Hopper GEMM.
TEST_CASE("emul: sm_90a channels-last plans of every shared model match the CPU backend",
          "[codegen][emul][plan][precision][sm90]") {
  for (const char *name :
       {"conv_bn_relu", "mlp", "multi_consumer", "pad_conv", "residual_block", "three_part", "tiny_resnet"}) {
    INFO(name);
    runPlan(name, "fp16", kModelsDir, "sm_90a", false, "nhwc");
  }
}

TEST_CASE("emul: sm_90a channels-last plans run 3x3, strided and padded convs on the Hopper implicit GEMM",
          "[codegen][emul][plan][precision][sm90]") {
  // tiny_resnet: its convs reading 32 and 64 channels (layer3's second,
  // layer4's three: a 3x3 of stride 1, one of stride 2, and a strided 1x1
  // shortcut; 32 channels fill half a k-tile, TMA's zeros the rest; 2 x 2
  // and 1 x 1 outputs) run the implicit GEMM, and so do its 3x3s on 8 and
  // 16 channels (stride 1 and 2) and its 3x3 stem, whose 3 channels the
  // compile pads to 8 (the input in a transposing pad kernel, the weights
  // as constants), with k-tiles of 8 chunks of 8 channels (unswizzled
  // 16-byte boxes: 8 taps of 8 channels, or 4 taps of 16, a chunk's
  // channel offset 0 or 8; the last k-tile's missing chunks read zeros).
  // The strided 1x1 shortcuts on 8 and 16 channels would waste most of
  // their one k-tile and stay on the sm_80 template.
  for (const char *precision : {"fp16", "bf16"}) {
    const ConvKernelCounts counts = runPlan("tiny_resnet", precision, kModelsDir, "sm_90a", false, "nhwc");
    INFO(precision);
    CHECK(counts.hopper == 10);
    CHECK(counts.spatial == 10);
    CHECK(counts.narrow == 6);
  }
}

// Quantized models: QuantizeLinear and DequantizeLinear in conv prologues
// and epilogues, a GEMM's and a pooling reduction's, an elementwise kernel,
// and u8 activations stored between kernels (QDQ models, and QLinearConv /
// QLinearMatMul lowered to the same ops); f32 plans and f16 ones (whose
// Q/DQ stay in f32), NCHW and channels-last.
TEST_CASE("emul: QDQ plans through the GPU backend match the CPU backend", "[codegen][emul][plan][quantized]") {
  const std::string dir = std::string(FUSEC_TEST_DATA_DIR) + "/quantized";
  for (const char *name : {"qdq_convnet", "qdq_ffn", "qop_convs", "qop_matmuls"})
    for (const char *precision : {"fp32", "fp16"})
      for (const char *layout : {"nchw", "nhwc"}) {
        INFO(name << " " << precision << " " << layout);
        runPlan(name, precision, dir, "sm_90", false, layout);
      }
}

TEST_CASE("emul: bf16 plans through the GPU backend match the CPU backend", "[codegen][emul][plan][precision]") {
  for (const char *name : {"mlp", "pad_conv", "tiny_resnet"})
    runPlan(name, "bf16");
}

// Transformers from PyTorch's exporters, whose attention keeps the batch
// merged with the heads split (docs/shapes.md): batched MatMuls over
// [batch, heads, ...], softmax, layer norms and transposes around the batch.
// nn.MultiheadAttention computes sequence first: its attention kernels read
// Q, K and V and store their result through views whose row strides grow
// with the batch (fuse-move-transposes, ir/StridedView.h), run here at
// batches 1, 3 and 8.
TEST_CASE("emul: plans of PyTorch-exported transformers through the GPU backend match the CPU backend",
          "[codegen][emul][plan][pytorch]") {
  // (encoder_pre and encoder_pre_ts17 fuse to the kernels of encoder_post
  // and encoder_post_ts14 in another order.)
  for (const char *name : {"encoder_post", "encoder_post_ts14", "bert_classifier", "mha_padding_mask", "decoder",
                           "gpt_block", "vit_tiny"}) {
    INFO(name);
    runPlan(name, "fp32", std::string(FUSEC_TEST_DATA_DIR) + "/pytorch");
  }
  // Tensor-core attention through batch-strided views.
  runPlan("encoder_post", "fp16", std::string(FUSEC_TEST_DATA_DIR) + "/pytorch");
}

// DenseNet's concats in place: its convolutions (tensor-core and SIMT
// templates) and pools store into slices of each block's buffer, its
// BatchNorm-ReLU kernels read slices of it.
TEST_CASE("emul: a DenseNet whose layers write their concatenation in place matches the CPU backend",
          "[codegen][emul][plan][pytorch][concat-in-place]") {
  const std::string pytorch = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch";
  runPlan("densenet_tiny", "fp32", pytorch, "sm_90", /*expectViews=*/true);
  runPlan("densenet_tiny", "fp16", pytorch, "sm_90", /*expectViews=*/true);
}

// ConvNeXt's blocks in NHWC: each depthwise 7x7 conv is evaluated in the
// kernel of the LayerNorm over its channels (conv-into-norm), every element
// once, kept in registers (FusecRowReduction::layerNormCached).
TEST_CASE("emul: a ConvNeXt whose LayerNorms compute their depthwise convs matches the CPU backend",
          "[codegen][emul][plan][pytorch][conv-into-norm]") {
  const std::string pytorch = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch";
  for (const char *precision : {"fp32", "fp16"}) {
    INFO(precision);
    runPlan("convnext_tiny", precision, pytorch, "sm_90", /*expectViews=*/false, "nhwc");
  }
}

namespace {

/// `name` of test/data/pytorch_ranges compiled once over `range` (its own,
/// meta.json's, when empty) for the GPU, and run by the GPU backend on the
/// emulated device. The session specializes the plan per length (the
/// kernels read the length from a scalar argument, their grids grow with
/// it). Each of the model's reference runs must match PyTorch and the CPU
/// backend's run of the same plan; each of `sizes` (random inputs, batch 2,
/// graphed) the CPU backend's.
void runRangedPlan(const std::string &name, const std::string &precision, std::optional<DimensionRange> range = {},
                   const std::vector<int64_t> &sizes = {}) {
  const std::string modelDir = std::string(FUSEC_TEST_DATA_DIR) + "/pytorch_ranges/" + name;
  test::ModelReference reference = test::loadModelReference(modelDir);
  REQUIRE(reference.ranges.size() == 1);
  if (!range) {
    const auto &[dim, bounds] = *reference.ranges.begin();
    range = DimensionRange{dim, bounds.first, bounds.second, bounds.second};
  }
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.precision = precision;
  options.plan.target = "sm_90";
  options.dimensionSizes[range->name] = {import::DimensionSize::range(range->min, range->opt, range->max)};
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  const EmulatedPlan emulated = buildEmulatedPlan(*module, name, "sm_90", {*range});
  REQUIRE(emulated.plan->ranges() == std::vector<DimensionRange>{*range});
  const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
  test::HostGpuOptions host;
  host.fill = 0xff; // NaN: nothing may be read before it is written
  host.runner = std::make_shared<EmulatedKernels>(kernels);
  const auto driver = test::makeHostGpuDevice(host);
  const double tolerance = precision == "fp16" ? 4e-3 : 1e-4;
  struct Run {
    int64_t batch;
    std::map<std::string, int64_t> dims;
    std::map<std::string, Tensor> inputs;
    const std::map<std::string, Tensor> *pytorch;
  };
  std::vector<Run> runs;
  if (sizes.empty())
    for (const test::ReferenceBatch &run : reference.batches)
      runs.push_back({run.batch, run.dims, run.inputs, &run.outputs});
  for (int64_t size : sizes) {
    const Plan sized = emulated.plan->specialize({{range->name, size}});
    runs.push_back({2, {{range->name, size}}, makeRandomInputs(sized, 2, static_cast<uint64_t>(size)), nullptr});
  }
  Session cpu(emulated.plan, Device::Cpu);
  // The reference runs graphed and ungraphed; the long random ones (slow in
  // emulation) graphed.
  for (bool graphed : sizes.empty() ? std::vector<bool>{true, false} : std::vector<bool>{true}) {
    DeviceOptions deviceOptions;
    deviceOptions.useGraphs = graphed;
    Session device(emulated.plan, [&](std::shared_ptr<const Plan> plan) -> std::unique_ptr<Backend> {
      return std::make_unique<gpu::GpuBackend>(std::move(plan), driver, deviceOptions);
    });
    for (const Run &run : runs) {
      INFO(name << " (" << precision << ") batch " << run.batch << " at " << formatDims(run.dims)
                << (graphed ? " graphed" : " ungraphed"));
      std::map<std::string, Tensor> outputs;
      REQUIRE_NOTHROW(outputs = device.run(run.batch, run.inputs));
      CHECK(device.dims() == run.dims);
      const auto expected = cpu.run(run.batch, run.inputs);
      for (const auto &[outputName, want] : expected) {
        INFO("output " << outputName);
        std::string report;
        if (!test::allClose(outputs.at(outputName), want, tolerance, tolerance, report))
          FAIL_CHECK("emulated plan vs the CPU backend: " << report);
        if (run.pytorch && precision == "fp32" &&
            !test::allClose(outputs.at(outputName), run.pytorch->at(outputName), reference.rtol, reference.atol,
                            report))
          FAIL_CHECK("emulated plan vs PyTorch: " << report);
      }
    }
  }
}

} // namespace

TEST_CASE("emul: one GPU plan over a sequence range runs every length of PyTorch's transformer exports",
          "[codegen][emul][plan][pytorch][ranges]") {
  for (const char *name : {"encoder_post", "encoder_pre", "mha_padding_mask", "gpt_block", "bert_classifier"}) {
    INFO(name);
    runRangedPlan(name, "fp32");
  }
  runRangedPlan("encoder_pre", "fp16");
}

// Lengths past every tile: the GEMMs' row tiles (sequence-first products
// over [seq, batch, 32], their matrices on grid.z), the attention's query
// tiles and its key loop, the softmax rows, all counted from the length the
// plan is specialized to; opt below max chooses the tiles for 128.
TEST_CASE("emul: a GPU plan over seq=1:64:150 runs lengths past its tiles", "[codegen][emul][plan][pytorch][ranges]") {
  for (const char *name : {"encoder_post", "gpt_block"}) {
    INFO(name);
    runRangedPlan(name, "fp32", DimensionRange{"seq", 1, 64, 150}, {150});
  }
  runRangedPlan("encoder_pre", "fp16", DimensionRange{"seq", 1, 64, 150}, {150});
}

namespace {

/// The emulated plan of shared model `name` compiled with 3 configs per
/// conv/GEMM kernel (fusec --kernel-variants=3).
EmulatedPlan buildVariantPlan(const std::string &name) {
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.kernelVariants = 3;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  return buildEmulatedPlan(*module, name);
}

/// The last compiled variant of `kernel`. Library variants follow the
/// compiled ones, and the in-process driver double runs no library, so the
/// tuner never picks them here.
size_t lastCompiledVariant(const KernelDesc &kernel) {
  size_t last = 0;
  for (size_t variant = 0; variant < kernel.variantCount(); ++variant)
    if (!kernel.libraryOf(variant))
      last = variant;
  return last;
}

/// The kernel of `plan` named `name`.
const KernelDesc &kernelNamed(const Plan &plan, const std::string &name) {
  for (const KernelDesc &kernel : plan.kernels())
    if (kernel.name == name)
      return kernel;
  FAIL("no kernel named " << name);
  throw std::logic_error("unreachable");
}

/// A path in the temp directory, named after `stem` and this process,
/// where nothing is yet.
std::string freshTempPath(const std::string &stem) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ".json")).string();
  std::filesystem::remove(path);
  return path;
}

} // namespace

// Kernel variants and tuning (fuserun --tune) end to end: the plan carries
// other tiles of each conv/GEMM kernel, the tuner times them on the host
// driver, whose virtual clock makes the last compiled variant of every kernel
// the fastest, and the session then runs those variants' emulated CUDA text.
TEST_CASE("emul: tuning runs each kernel's fastest variant and later sessions reuse the choice",
          "[codegen][emul][plan][tuning]") {
  // mlp: Gemm variants (the few-row template, another tile). Each variant
  // is timed in 3 rounds of 9 emulated launches: a larger model takes
  // minutes here (the conv tiles: the next test).
  {
    const EmulatedPlan emulated = buildVariantPlan("mlp");
    REQUIRE(gpu::hasVariants(*emulated.plan));
    const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
    test::HostGpuOptions host;
    host.fill = 0xff;
    host.runner = std::make_shared<EmulatedKernels>(kernels);
    host.launchMicroseconds = [](const Plan &plan, const LaunchStep &step) {
      const size_t last = lastCompiledVariant(plan.kernels()[step.kernel]);
      return step.variant == last ? 5.0 : step.variant == 0 ? 10.0 : 20.0;
    };
    const auto driver = test::makeHostGpuDevice(host);
    const std::string cache = freshTempPath("fusec-tuning-test");

    const int64_t batch = 3;
    const auto inputs = makeRandomInputs(*emulated.plan, batch, /*seed=*/5);
    const auto expected = Session(emulated.plan, Device::Cpu).run(batch, inputs);
    auto check = [&](Session &session) {
      std::map<std::string, Tensor> outputs;
      REQUIRE_NOTHROW(outputs = session.run(batch, inputs));
      for (const auto &[outputName, want] : expected) {
        INFO("output " << outputName);
        std::string report;
        if (!test::allClose(outputs.at(outputName), want, 1e-4, 1e-4, report))
          FAIL_CHECK("tuned plan vs the CPU backend: " << report);
      }
    };

    DeviceOptions tune;
    tune.tune = true;
    tune.tuningCache = cache;
    Session tuned(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, tune));
    check(tuned);
    const std::vector<KernelTuning> timed = tuned.tuning();
    REQUIRE(!timed.empty());
    for (const KernelTuning &kernel : timed) {
      INFO(kernel.kernel);
      CHECK(kernel.batch == 4); // the bucket batch 3 runs in
      CHECK_FALSE(kernel.fromCache);
      REQUIRE(kernel.milliseconds.size() == kernel.configs.size());
      CHECK(kernel.chosen == lastCompiledVariant(kernelNamed(*emulated.plan, kernel.kernel)));
      CHECK(kernel.chosen > 0);
      CHECK(kernel.milliseconds[kernel.chosen] < kernel.milliseconds[0]);
      CHECK(kernel.configs[0] != kernel.configs[kernel.chosen]);
    }

    DeviceOptions reuse;
    reuse.tuningCache = cache;
    Session later(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, reuse));
    const size_t launchesBefore = test::hostGpuCounters(*driver).kernelLaunches;
    check(later);
    const std::vector<KernelTuning> cached = later.tuning();
    REQUIRE(cached.size() == timed.size());
    for (size_t i = 0; i < cached.size(); ++i) {
      CHECK(cached[i].fromCache);
      CHECK(cached[i].milliseconds.empty());
      CHECK(cached[i].chosen == timed[i].chosen);
    }
    // Nothing timed: one launch per device kernel (captured into the graph).
    size_t deviceKernels = 0;
    for (const KernelDesc &kernel : emulated.plan->kernels())
      deviceKernels += kernel.launch ? 1 : 0;
    CHECK(test::hostGpuCounters(*driver).kernelLaunches - launchesBefore == deviceKernels);

    DeviceOptions none;
    none.tuningCache = "none";
    Session untuned(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, none));
    check(untuned);
    CHECK(untuned.tuning().empty());
    std::filesystem::remove(cache);
  }
}

// The conv tiles' variants through the plan, chosen from a tuning cache
// written beforehand (no timing: emulated launches are slow): every kernel
// runs its last compiled variant, and the outputs still match the CPU backend.
TEST_CASE("emul: the variants a tuning cache chooses run and match the CPU backend", "[codegen][emul][plan][tuning]") {
  const EmulatedPlan emulated = buildVariantPlan("tiny_resnet");
  const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
  test::HostGpuOptions host;
  host.fill = 0xff;
  host.runner = std::make_shared<EmulatedKernels>(kernels);
  const auto driver = test::makeHostGpuDevice(host);

  const std::string path = freshTempPath("fusec-tuning-cache-test");
  const int64_t bucket = 2;
  size_t convVariants = 0;
  TuningCache cache(path);
  for (const KernelDesc &kernel : emulated.plan->kernels()) {
    // Only kernels with compiled variants to choose from (a cuDNN variant
    // beside one compiled kernel is no choice here: the driver runs no
    // library).
    if (lastCompiledVariant(kernel) == 0)
      continue;
    convVariants += kernel.kind == "conv" ? 1 : 0;
    TuningKey key{driver->performanceIdentity(), emulated.plan->manifest().sourceHash, kernel.name, bucket, {}};
    for (size_t variant = 0; variant < kernel.variantCount(); ++variant)
      key.variants.push_back(kernel.configOf(variant));
    cache.store(
        key, TuningEntry{std::vector<double>(kernel.variantCount(), 1.0), key.variants[lastCompiledVariant(kernel)]});
  }
  cache.save();
  CHECK(convVariants >= 4);

  DeviceOptions reuse;
  reuse.tuningCache = path;
  Session session(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, reuse));
  const auto inputs = makeRandomInputs(*emulated.plan, bucket, /*seed=*/9);
  const auto expected = Session(emulated.plan, Device::Cpu).run(bucket, inputs);
  std::map<std::string, Tensor> outputs;
  REQUIRE_NOTHROW(outputs = session.run(bucket, inputs));
  for (const auto &[outputName, want] : expected) {
    std::string report;
    if (!test::allClose(outputs.at(outputName), want, 1e-4, 1e-4, report))
      FAIL_CHECK("output " << outputName
                           << " with every kernel's last compiled variant vs the CPU backend: " << report);
  }
  const std::vector<KernelTuning> chosen = session.tuning();
  CHECK(chosen.size() == cache.size());
  for (const KernelTuning &kernel : chosen) {
    CHECK(kernel.fromCache);
    CHECK(kernel.chosen == lastCompiledVariant(kernelNamed(*emulated.plan, kernel.kernel)));
    CHECK(kernel.chosen > 0);
  }
  std::filesystem::remove(path);
}

// Split-K through the runtime: the kernels' partial sums and tile counters
// are workspace scratch the schedule passes after the buffers; device memory
// starts as NaN bytes, so counters the backend did not zero would break the
// first run, and counters a kernel did not reset would break the next ones
// (graph replays).
TEST_CASE("emul: split-K kernels through the GPU backend get zeroed counters and replay correctly",
          "[codegen][emul][plan]") {
  auto context = createContext();
  auto module = test::parseAndFuse(*context, R"mlir(
func.func @main(%x: tensor<1x64x4x4xf32> {fuse.name = "x"}, %w: tensor<64x64x3x3xf32> {fuse.name = "w"},
                %a: tensor<2x256xf32> {fuse.name = "a"}, %b: tensor<256x96xf32> {fuse.name = "b"})
    -> (tensor<1x64x4x4xf32> {fuse.name = "conv"}, tensor<2x96xf32> {fuse.name = "matmul"}) {
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<1x64x4x4xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x4x4xf32>
  %r = fuse.relu %c : (tensor<1x64x4x4xf32>) -> tensor<1x64x4x4xf32>
  %m = fuse.matmul %a, %b : (tensor<2x256xf32>, tensor<256x96xf32>) -> tensor<2x96xf32>
  return %r, %m : tensor<1x64x4x4xf32>, tensor<2x96xf32>
}
)mlir");
  const EmulatedPlan emulated = buildEmulatedPlan(*module, "split_k");
  size_t split = 0;
  for (const KernelDesc &kernel : emulated.plan->kernels())
    split += kernel.launch && kernel.launch->isSplit() ? 1 : 0;
  CHECK(split == 2);
  // On the driver's 132 SMs: at most 132 blocks of 64 x 64 partial sums
  // and 66 tile counters.
  const WorkspaceLayout layout = layoutWorkspace(*emulated.plan, 1, 132);
  CHECK(layout.splitCountersBytes == 66 * sizeof(uint32_t));
  CHECK(layout.splitCountersOffset - layout.splitPartialsOffset >= 132 * 64 * 64 * sizeof(float));

  const auto kernels = test::EmulatedModule::compile(emulated.source, "", {FUSEC_PRELUDE_DIR});
  test::HostGpuOptions host;
  host.fill = 0xff;
  host.runner = std::make_shared<EmulatedKernels>(kernels);
  const auto driver = test::makeHostGpuDevice(host);
  Session session(emulated.plan, std::make_unique<gpu::GpuBackend>(emulated.plan, driver, DeviceOptions()));
  for (uint64_t seed : {1, 2, 3}) {
    INFO("run " << seed);
    const auto inputs = makeRandomInputs(*emulated.plan, 1, seed);
    const auto expected = Session(emulated.plan, Device::Cpu).run(1, inputs);
    std::map<std::string, Tensor> outputs;
    REQUIRE_NOTHROW(outputs = session.run(1, inputs));
    for (const auto &[outputName, want] : expected) {
      std::string report;
      if (!test::allClose(outputs.at(outputName), want, 1e-4, 1e-4, report))
        FAIL_CHECK("output " << outputName << " vs the CPU backend: " << report);
    }
  }
}

namespace {

/// The plan of shared model `name` with fusec's --precision and --layout,
/// and library variants (the default tactics).
EmulatedPlan buildLibraryPlan(const std::string &name, const std::string &precision, const std::string &layout) {
  test::ModelReference reference = test::loadModelReference(kModelsDir + "/" + name);
  auto context = createContext();
  DiagnosticCollector diagnostics(context.get());
  DriverOptions options;
  options.inputPath = reference.onnxPath;
  options.fusion.precision = precision;
  options.fusion.layout = layout;
  auto module = importAndFuse(*context, options);
  INFO(diagnostics.text());
  REQUIRE(module);
  return buildEmulatedPlan(*module, name);
}

} // namespace

// What the compiler writes of a library variant (ir/LibraryConv.h,
// ir/LibraryMatmul.h) must compute what the kernel's ops compute: the
// in-process driver runs every library variant from its description alone
// (HostLibraryCalls.h: plain loops over the plan's own terms, no library's
// conventions), every other kernel through the interpreter, and the outputs
// must match the CPU backend's. A padding order, a stride or an epilogue op
// the description gets wrong shows here.
TEST_CASE("library variants of the shared models compute what their kernels compute", "[codegen][plan][library]") {
  struct Case {
    const char *model, *precision, *layout;
    double tolerance;
  };
  // multi_consumer's one conv kernel writes two values (no library call
  // does): it runs its generated kernel here, through the interpreter.
  // f16 plans: the description keeps f32 from the accumulator to the output
  // where the kernel's ops round at each cast.
  const Case cases[] = {{"conv_bn_relu", "fp32", "nchw", 1e-4},
                        {"pad_conv", "fp32", "nchw", 1e-4},
                        {"residual_block", "fp32", "nchw", 1e-4},
                        {"tiny_resnet", "fp32", "nchw", 1e-4},
                        {"tiny_resnet", "fp32", "nhwc", 1e-4},
                        {"three_part", "fp32", "nchw", 1e-4},
                        {"multi_consumer", "fp32", "nchw", 1e-4},
                        {"mlp", "fp32", "nchw", 1e-4},
                        {"residual_block", "fp16", "nchw", 1e-2},
                        {"tiny_resnet", "fp16", "nhwc", 1e-2},
                        {"mlp", "fp16", "nchw", 1e-2}};
  for (const Case &test : cases) {
    INFO(test.model << " " << test.precision << " " << test.layout);
    const EmulatedPlan built = buildLibraryPlan(test.model, test.precision, test.layout);
    size_t libraryKernels = 0;
    for (const KernelDesc &kernel : built.plan->kernels())
      libraryKernels += kernel.hasLibraryVariant() ? 1 : 0;
    CHECK((libraryKernels > 0) == (std::string(test.model) != "multi_consumer"));

    size_t libraryLaunches = 0;
    test::HostGpuOptions host;
    host.fill = 0xff; // NaN: nothing may be read before it is written
    host.runsLibraryVariants = true;
    host.launchMicroseconds = [&](const Plan &plan, const LaunchStep &step) {
      libraryLaunches += plan.kernels()[step.kernel].libraryOf(step.variant) ? 1 : 0;
      return 1.0;
    };
    const auto driver = test::makeHostGpuDevice(host);
    Session cpu(built.plan, Device::Cpu);
    for (int64_t batch : {1, 3}) {
      const auto inputs = makeRandomInputs(*built.plan, batch, /*seed=*/static_cast<uint64_t>(batch) + 11);
      const auto expected = cpu.run(batch, inputs);
      for (bool graphed : {true, false}) {
        DeviceOptions options;
        options.useGraphs = graphed;
        options.tactics = Tactics::Library;
        options.tuningCache = "none";
        Session device(built.plan, std::make_unique<gpu::GpuBackend>(built.plan, driver, options));
        std::map<std::string, Tensor> outputs;
        REQUIRE_NOTHROW(outputs = device.run(batch, inputs));
        for (const auto &[outputName, want] : expected) {
          INFO("batch " << batch << (graphed ? " graphed" : " ungraphed") << " output " << outputName);
          std::string report;
          if (!test::allClose(outputs.at(outputName), want, test.tolerance, test.tolerance, report))
            FAIL_CHECK("library variants vs the CPU backend: " << report);
        }
      }
    }
    CHECK(libraryLaunches >= libraryKernels);
  }
}

// The tuner times library variants beside the compiled ones and runs the
// faster: the driver's virtual clock makes the library variant of every
// kernel the fastest, then the slowest.
TEST_CASE("tuning times library variants beside the compiled ones", "[codegen][plan][library][tuning]") {
  const EmulatedPlan built = buildLibraryPlan("residual_block", "fp32", "nchw");
  for (bool libraryFaster : {true, false}) {
    INFO((libraryFaster ? "library faster" : "library slower"));
    test::HostGpuOptions host;
    host.runsLibraryVariants = true;
    host.launchMicroseconds = [libraryFaster](const Plan &plan, const LaunchStep &step) {
      const bool library = plan.kernels()[step.kernel].libraryOf(step.variant) != nullptr;
      return library == libraryFaster ? 2.0 : 9.0;
    };
    const auto driver = test::makeHostGpuDevice(host);
    DeviceOptions options;
    options.tune = true;
    options.tuningCache = "none";
    Session session(built.plan, std::make_unique<gpu::GpuBackend>(built.plan, driver, options));
    const auto inputs = makeRandomInputs(*built.plan, 2, /*seed=*/4);
    const auto expected = Session(built.plan, Device::Cpu).run(2, inputs);
    std::map<std::string, Tensor> outputs;
    REQUIRE_NOTHROW(outputs = session.run(2, inputs));
    for (const auto &[outputName, want] : expected) {
      std::string report;
      if (!test::allClose(outputs.at(outputName), want, 1e-4, 1e-4, report))
        FAIL_CHECK("tuned plan vs the CPU backend: " << report);
    }
    const std::vector<KernelTuning> timed = session.tuning();
    REQUIRE(!timed.empty());
    for (const KernelTuning &kernel : timed) {
      INFO(kernel.kernel);
      const KernelDesc &desc = kernelNamed(*built.plan, kernel.kernel);
      REQUIRE(desc.hasLibraryVariant());
      CHECK((desc.libraryOf(kernel.chosen) != nullptr) == libraryFaster);
      for (double time : kernel.milliseconds)
        CHECK(std::isfinite(time));
    }
  }
}
