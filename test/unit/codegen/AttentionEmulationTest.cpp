//===- AttentionEmulationTest.cpp - The flash-attention kernel, emulated --===//
//
// fuse.attention modules of ragged sizes (sequence lengths 1, 7, 33, 100,
// none a multiple of the 16-row or 32-key tiles; Sk != S; head dims that are
// not multiples of the warp), causal and masked, f32 and f16, compiled by
// the default pipeline and run through the emulation against the CPU
// backend's reference. Head dims cover the float4 score loop (D a multiple
// of 4, K rows padded by 4 or 8 floats) and the scalar one. The last case starts from the unfused
// MatMul/Div/Add/Softmax/MatMul chain and compares the fused kernel with
// the plan of the same module compiled with --fusion-strategy=none.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"
#include "FusedModule.h"
#include "KernelEmulation.h"

#include "codegen/KernelEmitter.h"
#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "runtime/Session.h"
#include "tools/fuserun/RandomInputs.h"

#include "../../models/ModelReference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace fusec;

namespace {

struct Case {
  int64_t heads, seq, keySeq, headDim, valueDim;
  bool causal = false;
  /// "" (none), or the mask's shape, e.g. "1x7x9" (broadcast over batch).
  std::string mask;
  std::string type = "f32";
  /// Keys per tile pinned in the tensor-core loop's #fuse.config (0: the
  /// config fusec chooses).
  int64_t pinnedKeys = 0;
  /// Key slices pinned as the config's split_k and run (0: the config fusec
  /// chooses, run as the runtime would).
  int64_t splitSlices = 0;
  /// The f32 tensor-core loop pinned to one TF32 product (--precision=tf32).
  bool tf32 = false;
};

std::string tensorType(const std::string &dims, const std::string &type) { return "tensor<" + dims + "x" + type + ">"; }

/// A module computing fuse.attention for `c` at a dynamic batch.
std::string attentionModule(const Case &c) {
  const std::string h = "?x" + std::to_string(c.heads) + "x";
  const std::string q = tensorType(h + std::to_string(c.seq) + "x" + std::to_string(c.headDim), c.type);
  const std::string k = tensorType(h + std::to_string(c.keySeq) + "x" + std::to_string(c.headDim), c.type);
  const std::string v = tensorType(h + std::to_string(c.keySeq) + "x" + std::to_string(c.valueDim), c.type);
  const std::string o = tensorType(h + std::to_string(c.seq) + "x" + std::to_string(c.valueDim), c.type);
  const std::string m = c.mask.empty() ? "" : tensorType(c.mask, c.type);
  std::string ir = "func.func @main(%q: " + q + " {fuse.name = \"q\"}, %k: " + k + " {fuse.name = \"k\"}, %v: " + v +
                   " {fuse.name = \"v\"}" + (m.empty() ? "" : ", %m: " + m + " {fuse.name = \"m\"}") + ") -> (" + o +
                   " {fuse.name = \"o\"}) {\n";
  ir += "  %o = fuse.attention %q, %k, %v" + std::string(m.empty() ? "" : ", %m") +
        " {scale = 0.3 : f32, causal = " + (c.causal ? "true" : "false") + "} : (" + q + ", " + k + ", " + v +
        (m.empty() ? "" : ", " + m) + ") -> " + o + "\n";
  ir += "  return %o : " + o + "\n}\n";
  return ir;
}

int countKernels(mlir::ModuleOp module, llvm::StringRef kind) {
  int count = 0;
  module.walk([&](fuse::SuperkernelOp kernel) { count += kernel.getKind() == kind; });
  return count;
}

/// The outputs of `module`'s single superkernel, run through the emulation
/// on the inputs' own bytes (f32, f16 or bf16: test::emulate is f32 only),
/// as doubles.
std::map<std::string, std::vector<double>> emulateTyped(mlir::ModuleOp module,
                                                        const std::map<std::string, runtime::Tensor> &inputs, int batch,
                                                        int64_t splitSlices) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>("main");
  std::vector<fuse::SuperkernelOp> superkernels(func.getOps<fuse::SuperkernelOp>().begin(),
                                                func.getOps<fuse::SuperkernelOp>().end());
  REQUIRE(superkernels.size() == 1);
  auto kernel = codegen::emitKernel(superkernels[0]);
  REQUIRE(mlir::succeeded(kernel));
  auto emulated = test::EmulatedModule::compile(kernel->source, "", {FUSEC_PRELUDE_DIR});
  std::vector<std::vector<uint8_t>> buffers;
  for (mlir::Value input : superkernels[0].getInputs()) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(input);
    REQUIRE(arg);
    const runtime::Tensor &tensor =
        inputs.at(func.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "fuse.name").str());
    const auto *bytes = static_cast<const uint8_t *>(tensor.rawData());
    buffers.emplace_back(bytes, bytes + tensor.byteSize());
  }
  auto resultType = llvm::cast<mlir::RankedTensorType>(superkernels[0].getResult(0).getType());
  runtime::Shape shape;
  for (int64_t dim : resultType.getShape())
    shape.push_back(mlir::ShapedType::isDynamic(dim) ? batch : dim);
  const runtime::ElementType type = resultType.getElementType().isF32()   ? runtime::ElementType::F32
                                    : resultType.getElementType().isF16() ? runtime::ElementType::F16
                                                                          : runtime::ElementType::BF16;
  buffers.emplace_back(runtime::Tensor(shape, type).byteSize(), uint8_t(0xff)); // NaN until written
  std::vector<void *> args;
  std::vector<size_t> sizes;
  for (auto &buffer : buffers) {
    args.push_back(buffer.data());
    sizes.push_back(buffer.size());
  }
  const auto &launch = kernel->launch;
  test::Dim3 grid{unsigned(launch.grid[0].at(batch)), unsigned(launch.grid[1].at(batch)),
                  unsigned(launch.grid[2].at(batch))};
  // A split over the keys: the pinned slices, or the runtime's rule.
  test::SplitScratch scratch(launch, size_t(grid.x) * grid.y, splitSlices);
  grid.z *= scratch.slices();
  scratch.appendTo(args, sizes);
  args.push_back(&batch);
  // The sequence lengths and view geometry, as the runtime passes them.
  std::vector<uint32_t> arguments = launch.arguments;
  if (!arguments.empty())
    args.push_back(arguments.data());
  emulated.launch(kernel->name, grid, {unsigned(launch.block[0]), unsigned(launch.block[1]), unsigned(launch.block[2])},
                  args, sizes);
  REQUIRE(scratch.countersCleared());
  const std::string name = func.getResultAttrOfType<mlir::StringAttr>(0, "fuse.name").str();
  return {{name, runtime::Tensor::fromBytes(shape, type, buffers.back().data(), buffers.back().size()).toDoubles()}};
}

/// Runs `fused` through the emulation and `reference`'s plan on the CPU
/// backend at each batch, output by output, within `tolerance` (absolute
/// and relative).
void compareWithCpu(mlir::ModuleOp fused, mlir::ModuleOp reference, double tolerance, int64_t splitSlices = 0) {
  auto bytes = buildPlan(reference, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "test"));
  runtime::Session session(plan, runtime::Device::Cpu);
  for (int batch : {1, 2}) {
    auto inputs = runtime::makeRandomInputs(*plan, batch, static_cast<uint64_t>(batch) + 11);
    auto expected = session.run(batch, inputs);
    auto actual = emulateTyped(fused, inputs, batch, splitSlices);
    for (const auto &[name, tensor] : expected) {
      INFO("batch " << batch << " output " << name);
      const std::vector<double> want = tensor.toDoubles(), got = actual.at(name);
      REQUIRE(got.size() == want.size());
      size_t bad = 0, worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        const double error = std::fabs(got[i] - want[i]);
        if (!(error <= tolerance + tolerance * std::fabs(want[i])))
          ++bad;
        if (!(error <= std::fabs(got[worst] - want[worst])))
          worst = i;
      }
      INFO("worst at " << worst << ": got " << got[worst] << ", expected " << want[worst]);
      CHECK(bad == 0);
    }
  }
}

/// The main loop the kernel of `module` instantiates.
std::string mainLoop(mlir::ModuleOp module) {
  std::string name;
  module.walk([&](fuse::SuperkernelOp superkernel) {
    auto kernel = codegen::emitKernel(superkernel);
    REQUIRE(mlir::succeeded(kernel));
    for (const char *loop : {"FusecAttentionHalf<", "FusecAttentionTf32<", "FusecAttention<"})
      if (name.empty() && kernel->source.find(std::string("using Attention = ") + loop) != std::string::npos)
        name = std::string(loop).substr(0, std::strlen(loop) - 1);
  });
  return name;
}

void checkCase(const Case &c) {
  INFO("heads " << c.heads << " S " << c.seq << " Sk " << c.keySeq << " D " << c.headDim << " Dv " << c.valueDim
                << (c.causal ? " causal" : "") << (c.mask.empty() ? "" : " mask " + c.mask) << " " << c.type);
  auto context = createContext();
  auto module = test::parseAndFuse(*context, attentionModule(c));
  REQUIRE(countKernels(*module, "attention") == 1);
  if (c.pinnedKeys != 0) {
    module->walk([&](fuse::SuperkernelOp superkernel) {
      fuse::KernelConfig config = fuse::KernelConfig::fromAttr(superkernel.getConfigAttr());
      config.blockN = config.warpN = c.pinnedKeys;
      superkernel.setConfigAttr(config.toAttr(context.get()));
      auto kernel = codegen::emitKernel(superkernel);
      REQUIRE(mlir::succeeded(kernel));
      CHECK(kernel->source.find("  static constexpr int kBlockN = " + std::to_string(c.pinnedKeys) + ";\n") !=
            std::string::npos);
    });
  }
  if (c.tf32) {
    module->walk([&](fuse::SuperkernelOp superkernel) {
      fuse::KernelConfig config = fuse::KernelConfig::fromAttr(superkernel.getConfigAttr());
      config.passes = 1;
      superkernel.setConfigAttr(config.toAttr(context.get()));
      auto kernel = codegen::emitKernel(superkernel);
      REQUIRE(mlir::succeeded(kernel));
      CHECK(kernel->source.find("using Attention = FusecAttentionTf32<") != std::string::npos);
      CHECK(kernel->source.find("  static constexpr int kPasses = 1;\n") != std::string::npos);
    });
  }
  if (c.splitSlices != 0) {
    module->walk([&](fuse::SuperkernelOp superkernel) {
      fuse::KernelConfig config = fuse::KernelConfig::fromAttr(superkernel.getConfigAttr());
      config.splitK = c.splitSlices;
      superkernel.setConfigAttr(config.toAttr(context.get()));
      auto kernel = codegen::emitKernel(superkernel);
      REQUIRE(mlir::succeeded(kernel));
      CHECK(kernel->source.find("FusecSplitK split;") != std::string::npos);
      CHECK(kernel->launch.splitMaxSlices == c.splitSlices);
    });
  }
  // The tensor cores take 16-bit heads of whole k16 steps, f32 heads of
  // whole k8 steps (in 3xTF32).
  const bool half = c.type != "f32" && c.headDim % 16 == 0 && c.valueDim % 16 == 0;
  const bool tf32 = c.type == "f32" && c.headDim % 8 == 0 && c.valueDim % 8 == 0;
  CHECK(mainLoop(*module) == (half ? "FusecAttentionHalf" : tf32 ? "FusecAttentionTf32" : "FusecAttention"));
  // f16 inputs and output, f32 inside on both sides: one rounding of the
  // result, which may differ by a unit of f16 where the sums' orders differ;
  // the tensor-core loop also rounds the probabilities to the element type
  // for the P V product (2^-11 relative for f16, 2^-8 for bf16).
  // One TF32 product rounds Q, K, P and V to 10 mantissa bits.
  const double tolerance = c.tf32 ? 1e-2 : c.type == "f32" ? 1e-4 : c.type == "f16" ? 4e-3 : 2e-2;
  compareWithCpu(*module, *module, tolerance, c.splitSlices);
}

} // namespace

TEST_CASE("emul: attention on ragged sequence lengths", "[codegen][emul][attention]") {
  checkCase({2, 1, 1, 8, 8});
  checkCase({2, 7, 9, 16, 24});
  checkCase({1, 33, 33, 40, 33});
  checkCase({1, 100, 70, 64, 64});
  // D = 12: float4 reads with K rows padded by 8 floats; D = 6: scalar reads.
  checkCase({1, 7, 40, 12, 6});
  checkCase({2, 17, 33, 6, 12, true});
}

TEST_CASE("emul: causal attention skips the key tiles above the diagonal", "[codegen][emul][attention]") {
  checkCase({2, 33, 33, 16, 16, true});
  checkCase({1, 7, 100, 32, 32, true});
  checkCase({1, 100, 100, 8, 8, true});
}

TEST_CASE("emul: attention with broadcast additive masks", "[codegen][emul][attention]") {
  checkCase({2, 7, 9, 16, 16, false, "1x7x9"});
  checkCase({3, 33, 40, 8, 8, false, "?x1x1x40"});
  checkCase({1, 7, 33, 16, 16, true, "7x33"});
}

TEST_CASE("emul: f16 attention accumulates in f32", "[codegen][emul][attention][precision]") {
  checkCase({2, 7, 9, 16, 24, false, "", "f16"});
  checkCase({1, 33, 100, 64, 64, true, "", "f16"});
  checkCase({2, 100, 33, 128, 128, false, "1x100x33", "f16"});
}

TEST_CASE("emul: f16 and bf16 attention on the tensor cores, ragged against the 64-row and 64/32-key tiles",
          "[codegen][emul][attention][precision]") {
  checkCase({2, 1, 1, 16, 16, false, "", "f16"});
  checkCase({1, 65, 100, 32, 64, false, "", "f16"});
  checkCase({2, 17, 130, 80, 80, true, "", "f16"}); // 32-key tiles
  checkCase({1, 100, 100, 64, 64, true, "", "bf16"});
  checkCase({2, 7, 9, 16, 16, false, "1x7x9", "bf16"});
  checkCase({3, 33, 40, 48, 32, false, "?x1x1x40", "f16"});
}

TEST_CASE("emul: f32 attention on the tensor cores in 3xTF32, ragged against the 64-row and 32-key tiles",
          "[codegen][emul][attention]") {
  checkCase({2, 1, 1, 8, 8});
  checkCase({1, 65, 100, 32, 64});
  checkCase({2, 17, 130, 128, 128, true});
  checkCase({1, 100, 100, 64, 64, true, "1x100x100"});
  checkCase({3, 33, 40, 48, 24, false, "?x1x1x40"});
  checkCase({1, 70, 33, 120, 8});
  // Plain TF32 (one product), split or not: its row sums add P as rounded.
  Case tf32{2, 65, 100, 32, 64, true};
  tf32.tf32 = true;
  checkCase(tf32);
  tf32.splitSlices = 2;
  tf32.keySeq = 300;
  tf32.causal = false;
  checkCase(tf32);
}

TEST_CASE("emul: the tensor-core attention loop with 32-key tiles pinned on narrow heads",
          "[codegen][emul][attention][precision]") {
  checkCase({1, 65, 100, 64, 64, true, "", "f16", 32});
  checkCase({2, 17, 33, 32, 48, false, "1x17x33", "bf16", 32});
}

TEST_CASE("emul: attention split over the key sequence merges its slices", "[codegen][emul][attention][split]") {
  // f32 on the tensor cores and SIMT (odd heads), 32-key tiles: 300 keys
  // are 10 tiles over 2, 3 and 4 slices, the last tile ragged; causal
  // query tiles near the top have fewer key tiles than slices, so some
  // slices are empty and must weigh nothing.
  checkCase({2, 40, 300, 16, 24, false, "", "f32", 0, 2});
  checkCase({1, 33, 300, 40, 72, false, "1x33x300", "f32", 0, 3});
  checkCase({1, 300, 300, 8, 8, true, "", "f32", 0, 4});
  checkCase({2, 40, 300, 12, 20, false, "", "f32", 0, 3});
  checkCase({1, 300, 300, 6, 6, true, "", "f32", 0, 4});
  // Tensor cores: 64-key tiles (10 of 600 keys), 32-key tiles for D = 128,
  // causal with empty slices, and a mask, in f16 and bf16.
  checkCase({2, 70, 600, 64, 64, false, "", "f16", 0, 4});
  checkCase({1, 130, 300, 128, 128, true, "", "f16", 0, 3});
  checkCase({1, 65, 600, 32, 48, false, "1x65x600", "bf16", 0, 5});
  checkCase({2, 200, 200, 16, 16, true, "", "bf16", 32, 2});
}

TEST_CASE("emul: the formed attention kernel matches the unfused chain", "[codegen][emul][attention]") {
  // softmax(Q Kt / 4 + causal mask) V with Kt a transpose; Sk = S = 5.
  const std::string ir = R"mlir(
func.func @main(%q: tensor<?x2x5x16xf32> {fuse.name = "q"}, %k: tensor<?x2x5x16xf32> {fuse.name = "k"},
                %v: tensor<?x2x5x8xf32> {fuse.name = "v"}) -> (tensor<?x2x5x8xf32> {fuse.name = "o"}) {
  %c = fuse.constant dense<4.0> : tensor<f32>
  %mask = fuse.constant dense<[[0.0, -1.0e9, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9, -1.0e9, -1.0e9],
                               [0.0, 0.0, 0.0, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, 0.0, -1.0e9],
                               [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x5xf32>
  %kt = fuse.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<?x2x5x16xf32>) -> tensor<?x2x16x5xf32>
  %s = fuse.matmul %q, %kt : (tensor<?x2x5x16xf32>, tensor<?x2x16x5xf32>) -> tensor<?x2x5x5xf32>
  %d = fuse.div %s, %c : (tensor<?x2x5x5xf32>, tensor<f32>) -> tensor<?x2x5x5xf32>
  %a = fuse.add %d, %mask : (tensor<?x2x5x5xf32>, tensor<5x5xf32>) -> tensor<?x2x5x5xf32>
  %p = fuse.softmax %a {axis = 3 : i64} : (tensor<?x2x5x5xf32>) -> tensor<?x2x5x5xf32>
  %o = fuse.matmul %p, %v : (tensor<?x2x5x5xf32>, tensor<?x2x5x8xf32>) -> tensor<?x2x5x8xf32>
  return %o : tensor<?x2x5x8xf32>
}
)mlir";
  auto context = createContext();
  auto fused = test::parseAndFuse(*context, ir);
  auto unfused = test::parseAndFuse(*context, ir, test::withStrategy("none"));
  REQUIRE(countKernels(*fused, "attention") == 1);
  REQUIRE(countKernels(*unfused, "attention") == 0);
  bool causal = false;
  fused->walk([&](fuse::AttentionOp op) { causal = op.getCausal(); });
  CHECK(causal);
  compareWithCpu(*fused, *unfused, 1e-4);
}

TEST_CASE("emul: elementwise ops after attention run in its epilogue", "[codegen][emul][attention]") {
  // A residual Add of Q and a Tanh join the attention kernel (epilogue-fusion);
  // both the attention output and the sum are written.
  const std::string ir = R"mlir(
func.func @main(%q: tensor<?x2x7x16xf32> {fuse.name = "q"}, %k: tensor<?x2x9x16xf32> {fuse.name = "k"},
                %v: tensor<?x2x9x16xf32> {fuse.name = "v"})
    -> (tensor<?x2x7x16xf32> {fuse.name = "o"}, tensor<?x2x7x16xf32> {fuse.name = "y"}) {
  %o = fuse.attention %q, %k, %v {scale = 0.25 : f32, causal = false} : (tensor<?x2x7x16xf32>, tensor<?x2x9x16xf32>, tensor<?x2x9x16xf32>) -> tensor<?x2x7x16xf32>
  %a = fuse.add %o, %q : (tensor<?x2x7x16xf32>, tensor<?x2x7x16xf32>) -> tensor<?x2x7x16xf32>
  %y = fuse.tanh %a : (tensor<?x2x7x16xf32>) -> tensor<?x2x7x16xf32>
  return %o, %y : tensor<?x2x7x16xf32>, tensor<?x2x7x16xf32>
}
)mlir";
  auto context = createContext();
  auto fused = test::parseAndFuse(*context, ir);
  int kernels = 0;
  fused->walk([&](fuse::SuperkernelOp) { ++kernels; });
  REQUIRE(kernels == 1);
  REQUIRE(countKernels(*fused, "attention") == 1);
  auto bytes = buildPlan(*fused, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "test"));
  runtime::Session session(plan, runtime::Device::Cpu);
  for (int batch : {1, 3}) {
    auto inputs = runtime::makeRandomInputs(*plan, batch, 5);
    auto expected = session.run(batch, inputs);
    auto actual = test::emulate(*fused, inputs, batch);
    for (const char *name : {"o", "y"}) {
      std::string report;
      INFO("batch " << batch << " output " << name);
      if (!test::allClose(actual.at(name), expected.at(name), 1e-4, 1e-5, report))
        FAIL_CHECK("emulated attention epilogue vs the CPU backend: " << report);
    }
  }
}
