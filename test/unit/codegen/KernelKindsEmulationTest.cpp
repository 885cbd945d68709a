//===- KernelKindsEmulationTest.cpp - Every kernel template, emulated -----===//
//
// The shared models do not use every op. Small fused modules here exercise
// each kernel template (reductions with prologues and materialized values,
// pooling variants, pads, transposes, concats, grouped convs, transposed
// GEMMs, batched matmuls), run through the emulation, and are compared with
// the CPU reference backend running the plan of the same fused module.
//
//===----------------------------------------------------------------------===//
#include "EmulationHarness.h"
#include "FusedModule.h"
#include "KernelEmulation.h"

#include "../../models/ModelReference.h"

#include "compiler/Driver.h"
#include "compiler/PlanWriter.h"
#include "ir/FuseOps.h"
#include "ir/KernelConfig.h"
#include "runtime/Session.h"
#include "tools/fuserun/RandomInputs.h"

#include <catch2/catch.hpp>

#include <functional>

using namespace fusec;

namespace {

/// Changes a fused module before it is emitted (e.g. pins kernel configs).
using Adjust = std::function<void(mlir::ModuleOp)>;

/// `splitSlices`: the k-slices split-capable kernels run with (0: what the
/// runtime picks on an H200).
void checkAgainstReference(const char *ir, int batch, const Adjust &adjust = {}, int64_t splitSlices = 0) {
  auto context = createContext();
  auto module = test::parseAndFuse(*context, ir);
  if (adjust)
    adjust(*module);
  auto bytes = buildPlan(*module, PlanOptions());
  REQUIRE(mlir::succeeded(bytes));
  auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "test"));
  auto inputs = runtime::makeRandomInputs(*plan, batch, 7);
  runtime::Session session(plan, runtime::Device::Cpu);
  auto expected = session.run(batch, inputs);
  auto actual = test::emulate(*module, inputs, batch, splitSlices);
  for (const auto &[name, tensor] : expected) {
    std::string report;
    INFO("output " << name);
    if (!test::allClose(actual.at(name), tensor, 1e-4, 1e-5, report))
      FAIL_CHECK("emulated kernels vs the CPU backend: " << report);
  }
}

} // namespace

TEST_CASE("emul: softmax and layer norm with fused prologue and epilogue", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x3x40xf32> {fuse.name = "x"}, %s: tensor<40xf32> {fuse.name = "s"})
    -> (tensor<?x3x40xf32> {fuse.name = "soft"}, tensor<?x3x40xf32> {fuse.name = "norm"},
        tensor<?x3x40xf32> {fuse.name = "pre"}) {
  %p = fuse.mul %x, %x : (tensor<?x3x40xf32>, tensor<?x3x40xf32>) -> tensor<?x3x40xf32>
  %a = fuse.softmax %p {axis = 2} : (tensor<?x3x40xf32>) -> tensor<?x3x40xf32>
  %b = fuse.add %a, %p : (tensor<?x3x40xf32>, tensor<?x3x40xf32>) -> tensor<?x3x40xf32>
  %m = fuse.softmax %x {axis = 1} : (tensor<?x3x40xf32>) -> tensor<?x3x40xf32>
  %n = fuse.layer_norm %m, %s {axis = 1, epsilon = 1.0e-5 : f32} : (tensor<?x3x40xf32>, tensor<40xf32>) -> tensor<?x3x40xf32>
  %r = fuse.relu %n : (tensor<?x3x40xf32>) -> tensor<?x3x40xf32>
  return %b, %r, %p : tensor<?x3x40xf32>, tensor<?x3x40xf32>, tensor<?x3x40xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: reduce_mean and global average pool with materialized prologues", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x4x5x6xf32> {fuse.name = "x"})
    -> (tensor<?x5xf32> {fuse.name = "mean"}, tensor<?x4x5x6xf32> {fuse.name = "abs"},
        tensor<?x4x1x1xf32> {fuse.name = "gap"}) {
  %q = fuse.mul %x, %x : (tensor<?x4x5x6xf32>, tensor<?x4x5x6xf32>) -> tensor<?x4x5x6xf32>
  %s = fuse.sqrt %q : (tensor<?x4x5x6xf32>) -> tensor<?x4x5x6xf32>
  %m = fuse.reduce_mean %s {axes = array<i64: 1, 3>, keepdims = false} : (tensor<?x4x5x6xf32>) -> tensor<?x5xf32>
  %g = fuse.global_average_pool %x : (tensor<?x4x5x6xf32>) -> tensor<?x4x1x1xf32>
  %t = fuse.tanh %g : (tensor<?x4x1x1xf32>) -> tensor<?x4x1x1xf32>
  return %m, %s, %t : tensor<?x5xf32>, tensor<?x4x5x6xf32>, tensor<?x4x1x1xf32>
}
)mlir",
                        2);
}

TEST_CASE("emul: pooling variants", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x3x9x9xf32> {fuse.name = "x"})
    -> (tensor<?x3x5x5xf32> {fuse.name = "max"}, tensor<?x3x5x5xf32> {fuse.name = "avg"},
        tensor<?x3x5x5xf32> {fuse.name = "avg_pad"}) {
  %a = fuse.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x9x9xf32>) -> tensor<?x3x5x5xf32>
  %b = fuse.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<?x3x9x9xf32>) -> tensor<?x3x5x5xf32>
  %c = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, ceil_mode = true, count_include_pad = true} : (tensor<?x3x9x9xf32>) -> tensor<?x3x5x5xf32>
  %r = fuse.relu %a : (tensor<?x3x5x5xf32>) -> tensor<?x3x5x5xf32>
  return %r, %b, %c : tensor<?x3x5x5xf32>, tensor<?x3x5x5xf32>, tensor<?x3x5x5xf32>
}
)mlir",
                        2);
}

TEST_CASE("emul: data movement kernels", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x2x5x4xf32> {fuse.name = "x"})
    -> (tensor<?x2x9x6xf32> {fuse.name = "reflect"}, tensor<?x2x7x7xf32> {fuse.name = "edge"},
        tensor<?x2x6x5xf32> {fuse.name = "constant"}, tensor<?x4x2x5xf32> {fuse.name = "transpose"},
        tensor<?x4x5x4xf32> {fuse.name = "concat"}, tensor<?x40xf32> {fuse.name = "flat"}) {
  %a = fuse.pad %x {pads = array<i64: 0, 0, 2, 1, 0, 0, 2, 1>, mode = "reflect"} : (tensor<?x2x5x4xf32>) -> tensor<?x2x9x6xf32>
  %b = fuse.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>, mode = "edge"} : (tensor<?x2x5x4xf32>) -> tensor<?x2x7x7xf32>
  %c = fuse.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 1>, value = 0.5 : f32} : (tensor<?x2x5x4xf32>) -> tensor<?x2x6x5xf32>
  %d = fuse.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x2x5x4xf32>) -> tensor<?x4x2x5xf32>
  %e = fuse.concat %x, %x {axis = 1} : (tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>) -> tensor<?x4x5x4xf32>
  %f = fuse.flatten %x {axis = 1} : (tensor<?x2x5x4xf32>) -> tensor<?x40xf32>
  return %a, %b, %c, %d, %e, %f : tensor<?x2x9x6xf32>, tensor<?x2x7x7xf32>, tensor<?x2x6x5xf32>, tensor<?x4x2x5xf32>, tensor<?x4x5x4xf32>, tensor<?x40xf32>
}
)mlir",
                        2);
}

TEST_CASE("emul: grouped and strided convolutions with epilogues", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x4x7x7xf32> {fuse.name = "x"}, %w: tensor<4x1x3x3xf32> {fuse.name = "w"},
                %v: tensor<6x4x3x3xf32> {fuse.name = "v"}, %b: tensor<6xf32> {fuse.name = "b"})
    -> (tensor<?x4x7x7xf32> {fuse.name = "depthwise"}, tensor<?x6x2x3xf32> {fuse.name = "strided"}) {
  %d = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4} : (tensor<?x4x7x7xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x7x7xf32>
  %c = fuse.clip %d {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x4x7x7xf32>) -> tensor<?x4x7x7xf32>
  %s = fuse.conv %x, %v, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 2, 1>, group = 1} : (tensor<?x4x7x7xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x2x3xf32>
  %g = fuse.gelu %s : (tensor<?x6x2x3xf32>) -> tensor<?x6x2x3xf32>
  return %c, %g : tensor<?x4x7x7xf32>, tensor<?x6x2x3xf32>
}
)mlir",
                        2);
}

TEST_CASE("emul: transposed gemm and broadcast batched matmul", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%a: tensor<19x?xf32> {fuse.name = "a"}, %b: tensor<21x19xf32> {fuse.name = "b"},
                %c: tensor<21xf32> {fuse.name = "c"}, %x: tensor<?x3x5x7xf32> {fuse.name = "x"},
                %y: tensor<3x7x9xf32> {fuse.name = "y"})
    -> (tensor<?x21xf32> {fuse.name = "gemm"}, tensor<?x3x5x9xf32> {fuse.name = "matmul"}) {
  %g = fuse.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transA = true, transB = true} : (tensor<19x?xf32>, tensor<21x19xf32>, tensor<21xf32>) -> tensor<?x21xf32>
  %m = fuse.matmul %x, %y : (tensor<?x3x5x7xf32>, tensor<3x7x9xf32>) -> tensor<?x3x5x9xf32>
  %t = fuse.sigmoid %m : (tensor<?x3x5x9xf32>) -> tensor<?x3x5x9xf32>
  return %g, %t : tensor<?x21xf32>, tensor<?x3x5x9xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: elementwise chains, vectorized (float4) and scalar", "[codegen][emul]") {
  // [?, 8, 16]: 128 elements per batch, float4 loads for x and y, a
  // broadcast bias read per element, two materialized outputs.
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x8x16xf32> {fuse.name = "x"}, %y: tensor<?x8x16xf32> {fuse.name = "y"},
                %b: tensor<16xf32> {fuse.name = "b"}, %z: tensor<?x3x5xf32> {fuse.name = "z"})
    -> (tensor<?x8x16xf32> {fuse.name = "sum"}, tensor<?x8x16xf32> {fuse.name = "act"},
        tensor<?x3x5xf32> {fuse.name = "odd"}) {
  %s = fuse.add %x, %y : (tensor<?x8x16xf32>, tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  %t = fuse.mul %s, %b : (tensor<?x8x16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
  %a = fuse.tanh %t : (tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  %o = fuse.sigmoid %z : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %p = fuse.sqrt %o : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  return %s, %a, %p : tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x3x5xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: tensor-core gemm and folded batched matmul, ragged shapes", "[codegen][emul]") {
  // Gemm with transB, alpha, beta * C on the tensor-core template: K = 19
  // (4-byte copies, a ragged k-tile), N = 21 (a partial 32-wide tile). The
  // matmul's weight has no batch dimension, so the batch's 5-row matrices are
  // folded into one of 5 * batch rows (16-byte copies: K = 12, N = 20); its
  // epilogue adds a per-row residual, which needs the unfolded coordinates.
  checkAgainstReference(R"mlir(
func.func @main(%a: tensor<?x19xf32> {fuse.name = "a"}, %b: tensor<21x19xf32> {fuse.name = "b"},
                %c: tensor<21xf32> {fuse.name = "c"}, %x: tensor<?x5x12xf32> {fuse.name = "x"},
                %y: tensor<12x20xf32> {fuse.name = "y"}, %r: tensor<?x5x1xf32> {fuse.name = "r"})
    -> (tensor<?x21xf32> {fuse.name = "gemm"}, tensor<?x5x20xf32> {fuse.name = "matmul"}) {
  %g = fuse.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transA = false, transB = true} : (tensor<?x19xf32>, tensor<21x19xf32>, tensor<21xf32>) -> tensor<?x21xf32>
  %m = fuse.matmul %x, %y : (tensor<?x5x12xf32>, tensor<12x20xf32>) -> tensor<?x5x20xf32>
  %s = fuse.add %m, %r : (tensor<?x5x20xf32>, tensor<?x5x1xf32>) -> tensor<?x5x20xf32>
  %t = fuse.tanh %s : (tensor<?x5x20xf32>) -> tensor<?x5x20xf32>
  return %g, %t : tensor<?x21xf32>, tensor<?x5x20xf32>
}
)mlir",
                        13);
}

namespace {

/// A template and tile to pin on every conv (or every matrix product).
struct Variant {
  fuse::KernelTemplate kind;
  int64_t blockM, blockN, blockK, warpM, warpN, stages;
};

/// Pins `variant` on every superkernel whose config is of the same family
/// (conv or matrix product), keeping the vector widths the selector chose
/// for its shapes (SIMT templates copy single floats).
Adjust pin(const Variant &variant) {
  return [variant](mlir::ModuleOp module) {
    module.walk([&](fuse::SuperkernelOp kernel) {
      auto attr = kernel.getConfigAttr();
      if (!attr)
        return;
      fuse::KernelConfig config = fuse::KernelConfig::fromAttr(attr);
      auto isConv = [](fuse::KernelTemplate kind) {
        return kind == fuse::KernelTemplate::TensorCoreConv || kind == fuse::KernelTemplate::SimtConv ||
               kind == fuse::KernelTemplate::DirectConv;
      };
      if (isConv(config.kind) != isConv(variant.kind))
        return;
      config.kind = variant.kind;
      config.blockM = variant.blockM, config.blockN = variant.blockN, config.blockK = variant.blockK;
      config.warpM = variant.warpM, config.warpN = variant.warpN, config.stages = variant.stages;
      if (!config.usesTensorCores())
        config.aVector = config.bVector = config.passes = 1;
      kernel.setConfigAttr(config.toAttr(kernel.getContext()));
    });
  };
}

/// The tensor-core tiles every template family is run with, then `simt`
/// (SIMT tiles 16 and 8, and for convs the direct kernel), each pinned on
/// every kernel of `ir`'s family and checked against the CPU backend.
void checkEveryTile(const char *ir, int batch, fuse::KernelTemplate tensorCore, const std::vector<Variant> &simt) {
  std::vector<Variant> variants;
  for (Variant tile : {Variant{tensorCore, 64, 64, 16, 32, 32, 4}, Variant{tensorCore, 128, 128, 16, 64, 32, 3},
                       Variant{tensorCore, 128, 64, 16, 32, 32, 3}, Variant{tensorCore, 32, 64, 32, 16, 32, 2},
                       Variant{tensorCore, 64, 32, 16, 32, 16, 3}})
    variants.push_back(tile);
  variants.insert(variants.end(), simt.begin(), simt.end());
  for (const Variant &variant : variants) {
    INFO(fuse::templateName(variant.kind).str() << " " << variant.blockM << "x" << variant.blockN << "x"
                                                << variant.blockK << ", " << variant.stages << " stages");
    checkAgainstReference(ir, batch, pin(variant));
  }
}

} // namespace

TEST_CASE("emul: every conv template and tile a config can pin matches the CPU backend", "[codegen][emul]") {
  // A pointwise conv (16-byte pixel copies), a padded 3x3 with a residual
  // epilogue, a strided, dilated, asymmetrically padded conv over 3 channels
  // (K = 27: 4-byte weight copies, a ragged k-tile).
  const char *convs = R"mlir(
func.func @main(%x: tensor<?x8x6x6xf32> {fuse.name = "x"}, %p: tensor<12x8x1x1xf32> {fuse.name = "p"},
                %w: tensor<12x12x3x3xf32> {fuse.name = "w"}, %b: tensor<12xf32> {fuse.name = "b"},
                %y: tensor<?x3x9x9xf32> {fuse.name = "y"}, %v: tensor<20x3x3x3xf32> {fuse.name = "v"})
    -> (tensor<?x12x6x6xf32> {fuse.name = "block"}, tensor<?x20x3x4xf32> {fuse.name = "strided"}) {
  %a = fuse.conv %x, %p {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x8x6x6xf32>, tensor<12x8x1x1xf32>) -> tensor<?x12x6x6xf32>
  %r = fuse.relu %a : (tensor<?x12x6x6xf32>) -> tensor<?x12x6x6xf32>
  %c = fuse.conv %r, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x12x6x6xf32>, tensor<12x12x3x3xf32>, tensor<12xf32>) -> tensor<?x12x6x6xf32>
  %s = fuse.add %c, %r : (tensor<?x12x6x6xf32>, tensor<?x12x6x6xf32>) -> tensor<?x12x6x6xf32>
  %d = fuse.conv %y, %v {strides = array<i64: 2, 2>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 2, 1>, group = 1} : (tensor<?x3x9x9xf32>, tensor<20x3x3x3xf32>) -> tensor<?x20x3x4xf32>
  return %s, %d : tensor<?x12x6x6xf32>, tensor<?x20x3x4xf32>
}
)mlir";
  using fuse::KernelTemplate;
  checkEveryTile(convs, 3, KernelTemplate::TensorCoreConv,
                 {{KernelTemplate::SimtConv, 16, 16, 16, 1, 1, 1},
                  {KernelTemplate::SimtConv, 8, 8, 8, 1, 1, 1},
                  {KernelTemplate::DirectConv, 256, 1, 1, 1, 1, 1}});
}

TEST_CASE("emul: conv prologues (a pre-activation BatchNorm-ReLU) match the CPU backend on every conv template",
          "[codegen][emul]") {
  // BatchNorm -> ReLU before a padded 3x3 (padding stays 0, never the
  // prologue of 0), a per-channel scale and shift -> Clip before a
  // pointwise conv: each in its conv's kernel (conv-prologue).
  const char *convs = R"mlir(
func.func @main(%x: tensor<?x8x6x6xf32> {fuse.name = "x"}) -> (tensor<?x12x6x6xf32> {fuse.name = "padded"},
                                                             tensor<?x12x6x6xf32> {fuse.name = "pointwise"}) {
  %scale = fuse.constant dense<[1.5, 0.5, 2.0, 1.0, 0.75, 1.25, 0.5, 3.0]> : tensor<8xf32>
  %bias = fuse.constant dense<[0.5, -0.25, 0.125, 1.0, -1.0, 0.0, 0.25, -0.5]> : tensor<8xf32>
  %mean = fuse.constant dense<[0.1, -0.2, 0.3, 0.0, 0.2, -0.1, 0.05, 0.4]> : tensor<8xf32>
  %var = fuse.constant dense<[1.0, 2.0, 0.5, 1.5, 0.25, 1.0, 3.0, 0.75]> : tensor<8xf32>
  %w = fuse.constant dense<0.125> : tensor<12x8x3x3xf32>
  %p = fuse.constant dense<-0.25> : tensor<12x8x1x1xf32>
  %mul = fuse.constant dense<[[[2.0]], [[-1.0]], [[0.5]], [[1.0]], [[3.0]], [[-0.5]], [[1.5]], [[0.25]]]> : tensor<8x1x1xf32>
  %add = fuse.constant dense<[[[0.5]], [[0.25]], [[-0.5]], [[0.0]], [[1.0]], [[0.75]], [[-1.0]], [[0.125]]]> : tensor<8x1x1xf32>
  %n = fuse.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-5 : f32} : (tensor<?x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x6x6xf32>
  %r = fuse.relu %n : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %c = fuse.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x8x6x6xf32>, tensor<12x8x3x3xf32>) -> tensor<?x12x6x6xf32>
  %m = fuse.mul %x, %mul : (tensor<?x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<?x8x6x6xf32>
  %a = fuse.add %m, %add : (tensor<?x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<?x8x6x6xf32>
  %k = fuse.clip %a {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %d = fuse.conv %k, %p {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x8x6x6xf32>, tensor<12x8x1x1xf32>) -> tensor<?x12x6x6xf32>
  return %c, %d : tensor<?x12x6x6xf32>, tensor<?x12x6x6xf32>
}
)mlir";
  // Two kernels, each a conv with its prologue.
  auto twoKernels = [](mlir::ModuleOp module) {
    size_t kernels = 0;
    module.walk([&](fuse::SuperkernelOp kernel) {
      ++kernels;
      CHECK(kernel.getKind() == "conv");
    });
    CHECK(kernels == 2);
  };
  using fuse::KernelTemplate;
  for (const Variant &variant : {Variant{KernelTemplate::TensorCoreConv, 64, 64, 16, 32, 32, 4},
                                 Variant{KernelTemplate::TensorCoreConv, 32, 64, 32, 16, 32, 2},
                                 Variant{KernelTemplate::SimtConv, 16, 16, 16, 1, 1, 1},
                                 Variant{KernelTemplate::DirectConv, 256, 1, 1, 1, 1, 1}}) {
    INFO(fuse::templateName(variant.kind).str() << " " << variant.blockM << "x" << variant.blockN);
    checkAgainstReference(convs, 3, [&](mlir::ModuleOp module) {
      twoKernels(module);
      pin(variant)(module);
    });
  }
}

TEST_CASE("emul: every matrix-product template and tile a config can pin matches the CPU backend", "[codegen][emul]") {
  // Gemm with transB, alpha and beta * C (K = 19: 4-byte copies), and a
  // matmul whose batch folds into its rows, with a residual epilogue.
  const char *products = R"mlir(
func.func @main(%a: tensor<?x19xf32> {fuse.name = "a"}, %b: tensor<37x19xf32> {fuse.name = "b"},
                %c: tensor<37xf32> {fuse.name = "c"}, %x: tensor<?x5x12xf32> {fuse.name = "x"},
                %y: tensor<12x40xf32> {fuse.name = "y"}, %r: tensor<?x5x1xf32> {fuse.name = "r"})
    -> (tensor<?x37xf32> {fuse.name = "gemm"}, tensor<?x5x40xf32> {fuse.name = "matmul"}) {
  %g = fuse.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transA = false, transB = true} : (tensor<?x19xf32>, tensor<37x19xf32>, tensor<37xf32>) -> tensor<?x37xf32>
  %m = fuse.matmul %x, %y : (tensor<?x5x12xf32>, tensor<12x40xf32>) -> tensor<?x5x40xf32>
  %s = fuse.add %m, %r : (tensor<?x5x40xf32>, tensor<?x5x1xf32>) -> tensor<?x5x40xf32>
  return %g, %s : tensor<?x37xf32>, tensor<?x5x40xf32>
}
)mlir";
  using fuse::KernelTemplate;
  checkEveryTile(products, 13, KernelTemplate::TensorCoreGemm,
                 {{KernelTemplate::SimtGemm, 16, 16, 16, 1, 1, 1}, {KernelTemplate::SimtGemm, 8, 8, 8, 1, 1, 1}});
}

namespace {

/// Pins the few-row template (fusec_gemv.h) on every matrix product, with
/// `rows` rows of C per block, a warp per column where B is N x K (16-byte
/// loads where K allows) and a lane per column where B is K x N.
Adjust pinGemv(int64_t rows) {
  return [rows](mlir::ModuleOp module) {
    module.walk([&](fuse::SuperkernelOp kernel) {
      mlir::Operation *core = nullptr;
      for (mlir::Operation &op : kernel.getBody().front())
        if (llvm::isa<fuse::GemmOp, fuse::MatMulOp>(op))
          core = &op;
      if (!core)
        return;
      const fuse::MatrixProductShape shape = fuse::matrixProductShape(core);
      fuse::KernelConfig config;
      config.kind = fuse::KernelTemplate::SimtGemv;
      config.blockM = rows, config.blockN = shape.transB ? 8 : 32, config.blockK = 1;
      config.aVector = shape.transB && shape.k % 4 == 0 ? 4 : 1;
      kernel.setConfigAttr(config.toAttr(kernel.getContext()));
      kernel.removeVariantsAttr(); // they may list the pinned config
    });
  };
}

} // namespace

TEST_CASE("emul: the few-row gemv template on both B layouts, ragged rows and columns", "[codegen][emul]") {
  // Gemm with transB (a warp per column): K = 19 (single loads), and K = 64
  // (16-byte loads) with 37 columns (a partial block of 8); a matmul whose
  // batch folds into its rows (a lane per column, N = 40: a partial block of
  // 32; K = 12 split over the 8 warps, some slices empty) with a residual
  // epilogue; a batched matmul with a broadcast B (blockIdx.z per matrix).
  const char *products = R"mlir(
func.func @main(%a: tensor<?x19xf32> {fuse.name = "a"}, %b: tensor<37x19xf32> {fuse.name = "b"},
                %c: tensor<37xf32> {fuse.name = "c"}, %x: tensor<?x5x12xf32> {fuse.name = "x"},
                %y: tensor<12x40xf32> {fuse.name = "y"}, %r: tensor<?x5x1xf32> {fuse.name = "r"},
                %e: tensor<?x64xf32> {fuse.name = "e"}, %f: tensor<37x64xf32> {fuse.name = "f"},
                %p: tensor<?x2x3x8xf32> {fuse.name = "p"}, %q: tensor<2x8x6xf32> {fuse.name = "q"})
    -> (tensor<?x37xf32> {fuse.name = "gemm"}, tensor<?x5x40xf32> {fuse.name = "matmul"},
        tensor<?x37xf32> {fuse.name = "wide"}, tensor<?x2x3x6xf32> {fuse.name = "batched"}) {
  %g = fuse.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transA = false, transB = true} : (tensor<?x19xf32>, tensor<37x19xf32>, tensor<37xf32>) -> tensor<?x37xf32>
  %m = fuse.matmul %x, %y : (tensor<?x5x12xf32>, tensor<12x40xf32>) -> tensor<?x5x40xf32>
  %s = fuse.add %m, %r : (tensor<?x5x40xf32>, tensor<?x5x1xf32>) -> tensor<?x5x40xf32>
  %w = fuse.gemm %e, %f {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x64xf32>, tensor<37x64xf32>) -> tensor<?x37xf32>
  %v = fuse.relu %w : (tensor<?x37xf32>) -> tensor<?x37xf32>
  %t = fuse.matmul %p, %q : (tensor<?x2x3x8xf32>, tensor<2x8x6xf32>) -> tensor<?x2x3x6xf32>
  return %g, %s, %v, %t : tensor<?x37xf32>, tensor<?x5x40xf32>, tensor<?x37xf32>, tensor<?x2x3x6xf32>
}
)mlir";
  for (int64_t rows : {1, 2, 8})
    for (int batch : {1, 3, 13}) {
      INFO(rows << " rows per block, batch " << batch);
      checkAgainstReference(products, batch, pinGemv(rows));
    }
}

namespace {

/// Makes every tensor-core kernel split-capable, up to its k-tiles (at most
/// 16) slices, keeping the tile the selector chose.
Adjust pinSplitK() {
  return [](mlir::ModuleOp module) {
    module.walk([&](fuse::SuperkernelOp kernel) {
      auto attr = kernel.getConfigAttr();
      if (!attr)
        return;
      fuse::KernelConfig config = fuse::KernelConfig::fromAttr(attr);
      if (!config.usesTensorCores())
        return;
      for (mlir::Operation &op : kernel.getBody().front())
        if (llvm::isa<fuse::ConvOp, fuse::GemmOp, fuse::MatMulOp>(op))
          config.splitK = std::min(fuse::kMaxSplitK, fuse::kTileCount(&op, config));
      kernel.setConfigAttr(config.toAttr(kernel.getContext()));
      kernel.removeVariantsAttr();
    });
  };
}

} // namespace

TEST_CASE("emul: split-K convs and matrix products, even and uneven slices, several outputs", "[codegen][emul]") {
  // A padded 3x3 conv with bias whose output and ReLU are both kernel
  // outputs (K = 144: 9 k-tiles); Gemm with transB and alpha (K = 100: 7
  // k-tiles, 16-byte copies); a folded batched matmul with a sigmoid (K =
  // 70: 5 k-tiles, single copies). 2, 3 and 4 slices share the k-tiles
  // unevenly; 9 gives each slice of the conv one k-tile (and the products
  // their k-tile count); 1 runs the split-capable kernels unsplit. The
  // harness gives the partial sums NaN bytes and checks that every tile
  // counter is zero again after each launch.
  const char *ir = R"mlir(
func.func @main(%x: tensor<?x16x5x5xf32> {fuse.name = "x"}, %w: tensor<24x16x3x3xf32> {fuse.name = "w"},
                %b: tensor<24xf32> {fuse.name = "b"}, %a: tensor<?x100xf32> {fuse.name = "a"},
                %g: tensor<37x100xf32> {fuse.name = "g"}, %m: tensor<?x3x70xf32> {fuse.name = "m"},
                %n: tensor<70x20xf32> {fuse.name = "n"})
    -> (tensor<?x24x5x5xf32> {fuse.name = "conv"}, tensor<?x24x5x5xf32> {fuse.name = "conv_relu"},
        tensor<?x37xf32> {fuse.name = "gemm"}, tensor<?x3x20xf32> {fuse.name = "matmul"}) {
  %c = fuse.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x16x5x5xf32>, tensor<24x16x3x3xf32>, tensor<24xf32>) -> tensor<?x24x5x5xf32>
  %r = fuse.relu %c : (tensor<?x24x5x5xf32>) -> tensor<?x24x5x5xf32>
  %e = fuse.gemm %a, %g {alpha = 0.5 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x100xf32>, tensor<37x100xf32>) -> tensor<?x37xf32>
  %t = fuse.matmul %m, %n : (tensor<?x3x70xf32>, tensor<70x20xf32>) -> tensor<?x3x20xf32>
  %s = fuse.sigmoid %t : (tensor<?x3x20xf32>) -> tensor<?x3x20xf32>
  return %c, %r, %e, %s : tensor<?x24x5x5xf32>, tensor<?x24x5x5xf32>, tensor<?x37xf32>, tensor<?x3x20xf32>
}
)mlir";
  for (int64_t slices : {1, 2, 3, 4, 9})
    for (int batch : {1, 5}) {
      INFO(slices << " slices, batch " << batch);
      checkAgainstReference(ir, batch, pinSplitK(), slices);
    }
}

TEST_CASE("emul: split-capable kernels where the tiles at batch 1 leave SMs idle, with the runtime's slices",
          "[codegen][emul]") {
  // A 3x3 conv of 64 channels on 4x4 pixels is one 64 x 64 tile at batch 1
  // with 36 k-tiles (up to 9 slices of 4), a batch of 2 x 256 by 256 x 96
  // products two tiles with 16 k-tiles (up to 4 slices): the selector makes
  // both split-capable, and at the slices the runtime picks on an H200 the
  // result matches the CPU backend at batch 1 (9 and 4 slices) and 40 (the
  // conv's 40 tiles: 3 slices; the product's 80: unsplit).
  const char *ir = R"mlir(
func.func @main(%x: tensor<?x64x4x4xf32> {fuse.name = "x"}, %w: tensor<64x64x3x3xf32> {fuse.name = "w"},
                %a: tensor<?x2x256xf32> {fuse.name = "a"}, %b: tensor<256x96xf32> {fuse.name = "b"})
    -> (tensor<?x64x4x4xf32> {fuse.name = "conv"}, tensor<?x2x96xf32> {fuse.name = "matmul"}) {
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x64x4x4xf32>, tensor<64x64x3x3xf32>) -> tensor<?x64x4x4xf32>
  %r = fuse.relu %c : (tensor<?x64x4x4xf32>) -> tensor<?x64x4x4xf32>
  %m = fuse.matmul %a, %b : (tensor<?x2x256xf32>, tensor<256x96xf32>) -> tensor<?x2x96xf32>
  return %r, %m : tensor<?x64x4x4xf32>, tensor<?x2x96xf32>
}
)mlir";
  for (int batch : {1, 40}) {
    std::vector<int64_t> chosen;
    checkAgainstReference(ir, batch, [&](mlir::ModuleOp module) {
      module.walk([&](fuse::SuperkernelOp kernel) {
        if (auto attr = kernel.getConfigAttr())
          chosen.push_back(fuse::KernelConfig::fromAttr(attr).splitK);
      });
    });
    CHECK(chosen == std::vector<int64_t>{9, 4});
  }
}

TEST_CASE("emul: masks from integer ids and comparisons, applied with Where", "[codegen][emul]") {
  // A padding mask from token ids (i64), a comparison of floats, logic on
  // the two, and Where applying it to scores: one elementwise kernel with an
  // integer input and bool intermediates, against the CPU backend.
  checkAgainstReference(R"mlir(
func.func @main(%ids: tensor<?x1x24xi64> {fuse.name = "ids"}, %x: tensor<?x4x24xf32> {fuse.name = "x"})
    -> (tensor<?x4x24xf32> {fuse.name = "masked"}, tensor<?x4x24xi1> {fuse.name = "keep"}) {
  %pad = fuse.constant dense<0> : tensor<1xi64>
  %isPad = fuse.equal %ids, %pad : (tensor<?x1x24xi64>, tensor<1xi64>) -> tensor<?x1x24xi1>
  %zero = fuse.constant dense<0.0> : tensor<1xf32>
  %neg = fuse.less_or_equal %x, %zero : (tensor<?x4x24xf32>, tensor<1xf32>) -> tensor<?x4x24xi1>
  %notPad = fuse.not %isPad : (tensor<?x1x24xi1>) -> tensor<?x1x24xi1>
  %keep = fuse.and %notPad, %neg : (tensor<?x1x24xi1>, tensor<?x4x24xi1>) -> tensor<?x4x24xi1>
  %either = fuse.xor %keep, %isPad : (tensor<?x4x24xi1>, tensor<?x1x24xi1>) -> tensor<?x4x24xi1>
  %inf = fuse.constant dense<-1.0e4> : tensor<1xf32>
  %masked = fuse.where %either, %x, %inf : (tensor<?x4x24xi1>, tensor<?x4x24xf32>, tensor<1xf32>) -> tensor<?x4x24xf32>
  return %masked, %keep : tensor<?x4x24xf32>, tensor<?x4x24xi1>
}
)mlir",
                        3);
}

TEST_CASE("emul: the float elementwise ops of transformers and mobile CNNs", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x5x7xf32> {fuse.name = "x"}, %y: tensor<7xf32> {fuse.name = "y"})
    -> (tensor<?x5x7xf32> {fuse.name = "a"}, tensor<?x5x7xf32> {fuse.name = "b"}) {
  %one = fuse.constant dense<1.0> : tensor<1xf32>
  %0 = fuse.abs %x : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %1 = fuse.add %0, %one : (tensor<?x5x7xf32>, tensor<1xf32>) -> tensor<?x5x7xf32>
  %2 = fuse.log %1 : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %3 = fuse.reciprocal %1 : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %4 = fuse.neg %3 : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %5 = fuse.exp %4 : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %6 = fuse.min %2, %y : (tensor<?x5x7xf32>, tensor<7xf32>) -> tensor<?x5x7xf32>
  %7 = fuse.max %6, %5 : (tensor<?x5x7xf32>, tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %8 = fuse.mod %x, %1 {fmod = false} : (tensor<?x5x7xf32>, tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %9 = fuse.leaky_relu %x {alpha = 0.1 : f32} : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %10 = fuse.hard_sigmoid %9 {alpha = 0.166666672 : f32} : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %11 = fuse.hard_swish %x : (tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %12 = fuse.add %10, %11 : (tensor<?x5x7xf32>, tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %13 = fuse.add %12, %8 : (tensor<?x5x7xf32>, tensor<?x5x7xf32>) -> tensor<?x5x7xf32>
  %14 = fuse.prelu %13, %y : (tensor<?x5x7xf32>, tensor<7xf32>) -> tensor<?x5x7xf32>
  return %7, %14 : tensor<?x5x7xf32>, tensor<?x5x7xf32>
}
)mlir",
                        2);
}

TEST_CASE("emul: run-time slice, gather and expand on float, integer and bool tensors", "[codegen][emul]") {
  // An embedding lookup by int64 ids, x[:, -1], a strided backwards slice,
  // a padding mask expanded over rows, a slice of the ids themselves, and a
  // class token expanded to the batch and prepended (one chained kernel).
  checkAgainstReference(R"mlir(
func.func @main(%ids: tensor<?x5xi64> {fuse.name = "ids"}, %table: tensor<8x6xf32> {fuse.name = "table"},
                %x: tensor<?x4x12xf32> {fuse.name = "x"}, %mask: tensor<?x1x5xi1> {fuse.name = "mask"},
                %token: tensor<1x1x12xf32> {fuse.name = "token"})
    -> (tensor<?x5x6xf32> {fuse.name = "embedded"}, tensor<?x12xf32> {fuse.name = "last"},
        tensor<?x2x3xf32> {fuse.name = "strided"}, tensor<?x3x5xi1> {fuse.name = "rows"},
        tensor<?x4xi64> {fuse.name = "tail"}, tensor<?x5x12xf32> {fuse.name = "with_token"}) {
  %0 = fuse.gather %table, %ids {axis = 0 : i64} : (tensor<8x6xf32>, tensor<?x5xi64>) -> tensor<?x5x6xf32>
  %minusOne = fuse.constant dense<-1> : tensor<i64>
  %1 = fuse.gather %x, %minusOne {axis = 1 : i64} : (tensor<?x4x12xf32>, tensor<i64>) -> tensor<?x12xf32>
  %2 = fuse.slice %x {starts = array<i64: 0, 1, 10>, ends = array<i64: 9223372036854775807, 4, 2>, steps = array<i64: 1, 2, -3>} : (tensor<?x4x12xf32>) -> tensor<?x2x3xf32>
  %3 = fuse.expand %mask {shape = array<i64: 1, 3, 5>} : (tensor<?x1x5xi1>) -> tensor<?x3x5xi1>
  %4 = fuse.slice %ids {starts = array<i64: 0, 1>, ends = array<i64: 9223372036854775807, 5>, steps = array<i64: 1, 1>} : (tensor<?x5xi64>) -> tensor<?x4xi64>
  %tokens = fuse.expand %token {shape = array<i64: -1, 1, 12>} : (tensor<1x1x12xf32>) -> tensor<?x1x12xf32>
  %5 = fuse.concat %tokens, %x {axis = 1 : i64} : (tensor<?x1x12xf32>, tensor<?x4x12xf32>) -> tensor<?x5x12xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x5x6xf32>, tensor<?x12xf32>, tensor<?x2x3xf32>, tensor<?x3x5xi1>, tensor<?x4xi64>, tensor<?x5x12xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: GatherElements along the last axis, along the first with negative constant indices, and on bool "
          "tensors",
          "[codegen][emul]") {
  // Random indices are in [0, 8), inside the gathered axis of 9; the
  // indices are shorter than the input along the other axes.
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x3x9xf32> {fuse.name = "x"}, %idx: tensor<?x2x4xi64> {fuse.name = "idx"},
                %table: tensor<8x5xf32> {fuse.name = "table"}, %mask: tensor<?x3x9xi1> {fuse.name = "mask"},
                %idx32: tensor<?x3x2xi32> {fuse.name = "idx32"})
    -> (tensor<?x2x4xf32> {fuse.name = "along_last"}, tensor<2x3xf32> {fuse.name = "negative"},
        tensor<?x2x4xi1> {fuse.name = "bools"}, tensor<?x3x2xf32> {fuse.name = "i32_indices"}) {
  %0 = fuse.gather_elements %x, %idx {axis = 2 : i64} : (tensor<?x3x9xf32>, tensor<?x2x4xi64>) -> tensor<?x2x4xf32>
  %rows = fuse.constant dense<[[-1, 0, 3], [7, -8, 2]]> : tensor<2x3xi64>
  %1 = fuse.gather_elements %table, %rows {axis = 0 : i64} : (tensor<8x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  %2 = fuse.gather_elements %mask, %idx {axis = 2 : i64} : (tensor<?x3x9xi1>, tensor<?x2x4xi64>) -> tensor<?x2x4xi1>
  %3 = fuse.gather_elements %x, %idx32 {axis = 2 : i64} : (tensor<?x3x9xf32>, tensor<?x3x2xi32>) -> tensor<?x3x2xf32>
  return %0, %1, %2, %3 : tensor<?x2x4xf32>, tensor<2x3xf32>, tensor<?x2x4xi1>, tensor<?x3x2xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: ArgMax and ArgMin with ties, a fused prologue and a Cast epilogue", "[codegen][emul]") {
  // Relu makes ties at 0 (first or last index); an axis of 300 is longer
  // than the block, so threads combine strided shares of it.
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x37x5xf32> {fuse.name = "x"}, %long: tensor<?x300xf32> {fuse.name = "long"})
    -> (tensor<?x5xi64> {fuse.name = "max_rows"}, tensor<?x37x1xi64> {fuse.name = "min_last"},
        tensor<?x1xf32> {fuse.name = "max_long"}, tensor<?xi64> {fuse.name = "min_long"}) {
  %r = fuse.relu %x : (tensor<?x37x5xf32>) -> tensor<?x37x5xf32>
  %0 = fuse.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<?x37x5xf32>) -> tensor<?x5xi64>
  %1 = fuse.arg_min %r {axis = 2 : i64, keepdims = true, select_last_index = true} : (tensor<?x37x5xf32>) -> tensor<?x37x1xi64>
  %2 = fuse.arg_max %long {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<?x300xf32>) -> tensor<?x1xi64>
  %3 = fuse.cast %2 {to = "f32"} : (tensor<?x1xi64>) -> tensor<?x1xf32>
  %rl = fuse.relu %long : (tensor<?x300xf32>) -> tensor<?x300xf32>
  %4 = fuse.arg_min %rl {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<?x300xf32>) -> tensor<?xi64>
  return %0, %1, %3, %4 : tensor<?x5xi64>, tensor<?x37x1xi64>, tensor<?x1xf32>, tensor<?xi64>
}
)mlir",
                        3);
}

TEST_CASE("emul: Trilu upper and lower with diagonal offsets, fused into elementwise kernels, on floats and bools",
          "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x4x6xf32> {fuse.name = "x"}, %m: tensor<?x5x3xi1> {fuse.name = "m"})
    -> (tensor<?x4x6xf32> {fuse.name = "upper"}, tensor<?x4x6xf32> {fuse.name = "lower"},
        tensor<?x5x3xi1> {fuse.name = "bools"}) {
  %e = fuse.exp %x : (tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  %0 = fuse.trilu %e {upper = true, k = 1 : i64} : (tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  %1 = fuse.trilu %x {upper = false, k = -1 : i64} : (tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  %2 = fuse.neg %1 : (tensor<?x4x6xf32>) -> tensor<?x4x6xf32>
  %3 = fuse.trilu %m {upper = true, k = 0 : i64} : (tensor<?x5x3xi1>) -> tensor<?x5x3xi1>
  return %0, %2, %3 : tensor<?x4x6xf32>, tensor<?x4x6xf32>, tensor<?x5x3xi1>
}
)mlir",
                        3);
}

TEST_CASE("emul: rounding and trigonometric ops in one fused chain", "[codegen][emul]") {
  // Inputs in [-1, 1): scaled by 3.5 for the rounding ops (halves included
  // at 0.5 steps are unlikely but harmless: both sides round to even), kept
  // inside the domains of asin, acos and atanh, shifted past 1 for acosh.
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x6x5xf32> {fuse.name = "x"})
    -> (tensor<?x6x5xf32> {fuse.name = "rounded"}, tensor<?x6x5xf32> {fuse.name = "trig"},
        tensor<?x6x5xf32> {fuse.name = "inverse"}) {
  %scale = fuse.constant dense<3.5> : tensor<f32>
  %two = fuse.constant dense<2.0> : tensor<f32>
  %half = fuse.constant dense<0.5> : tensor<f32>
  %s = fuse.mul %x, %scale : (tensor<?x6x5xf32>, tensor<f32>) -> tensor<?x6x5xf32>
  %0 = fuse.floor %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %1 = fuse.ceil %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %2 = fuse.round %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %3 = fuse.sign %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %4 = fuse.add %0, %1 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %5 = fuse.mul %2, %3 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %r = fuse.add %4, %5 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %6 = fuse.sin %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %7 = fuse.cos %6 : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %8 = fuse.tan %x : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %9 = fuse.sinh %8 : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %10 = fuse.cosh %x : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %11 = fuse.add %7, %9 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %t = fuse.add %11, %10 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %h = fuse.mul %x, %half : (tensor<?x6x5xf32>, tensor<f32>) -> tensor<?x6x5xf32>
  %12 = fuse.asin %h : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %13 = fuse.acos %h : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %14 = fuse.atan %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %15 = fuse.asinh %s : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %16 = fuse.atanh %h : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %p = fuse.add %x, %two : (tensor<?x6x5xf32>, tensor<f32>) -> tensor<?x6x5xf32>
  %17 = fuse.acosh %p : (tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %18 = fuse.add %12, %13 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %19 = fuse.add %14, %15 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %20 = fuse.add %16, %17 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %21 = fuse.add %18, %19 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  %i = fuse.add %21, %20 : (tensor<?x6x5xf32>, tensor<?x6x5xf32>) -> tensor<?x6x5xf32>
  return %r, %t, %i : tensor<?x6x5xf32>, tensor<?x6x5xf32>, tensor<?x6x5xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: every Reduce op with a fused prologue and epilogue", "[codegen][emul]") {
  // Max and Min combine through fusec_block_reduce, the others through the
  // block sum; each has an elementwise prologue (the Abs or the Add) and the
  // ReduceMax an epilogue (the Mul).
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x6x70xf32> {fuse.name = "x"})
    -> (tensor<?x6xf32> {fuse.name = "sum"}, tensor<?x6x1xf32> {fuse.name = "max"}, tensor<?x70xf32> {fuse.name = "min"},
        tensor<?x6xf32> {fuse.name = "prod"}, tensor<?x6xf32> {fuse.name = "l2"}, tensor<?x6xf32> {fuse.name = "logsum"},
        tensor<?x6xf32> {fuse.name = "l1"}, tensor<?x6xf32> {fuse.name = "squares"}) {
  %one = fuse.constant dense<1.0> : tensor<1xf32>
  %half = fuse.constant dense<0.5> : tensor<1xf32>
  %a = fuse.abs %x : (tensor<?x6x70xf32>) -> tensor<?x6x70xf32>
  %s = fuse.reduce_sum %a {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  %m = fuse.reduce_max %x {axes = array<i64: 2>, keepdims = true} : (tensor<?x6x70xf32>) -> tensor<?x6x1xf32>
  %mh = fuse.mul %m, %half : (tensor<?x6x1xf32>, tensor<1xf32>) -> tensor<?x6x1xf32>
  %n = fuse.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x70xf32>
  %p1 = fuse.add %x, %one : (tensor<?x6x70xf32>, tensor<1xf32>) -> tensor<?x6x70xf32>
  %ps = fuse.mul %p1, %half : (tensor<?x6x70xf32>, tensor<1xf32>) -> tensor<?x6x70xf32>
  %p = fuse.reduce_prod %ps {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  %l2 = fuse.reduce_l2 %x {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  %ls = fuse.reduce_log_sum %a {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  %l1 = fuse.reduce_l1 %x {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  %sq = fuse.reduce_sum_square %x {axes = array<i64: 2>, keepdims = false} : (tensor<?x6x70xf32>) -> tensor<?x6xf32>
  return %s, %mh, %n, %p, %l2, %ls, %l1, %sq : tensor<?x6xf32>, tensor<?x6x1xf32>, tensor<?x70xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<?x6xf32>
}
)mlir",
                        3);
}

TEST_CASE("emul: Resize, nearest and linear in every coordinate mode, alone and after a transpose", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x3x5x7xf32> {fuse.name = "x"})
    -> (tensor<?x3x10x14xf32> {fuse.name = "up_nearest"}, tensor<?x3x10x14xf32> {fuse.name = "up_linear"},
        tensor<?x3x3x4xf32> {fuse.name = "down_corners"}, tensor<?x3x1x4xf32> {fuse.name = "pytorch"},
        tensor<?x3x15x7xf32> {fuse.name = "floor_rows"}, tensor<?x7x10x3xf32> {fuse.name = "after_transpose"}) {
  %0 = fuse.resize %x {sizes = array<i64: -1, 3, 10, 14>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x10x14xf32>
  %1 = fuse.resize %x {sizes = array<i64: -1, 3, 10, 14>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x10x14xf32>
  %2 = fuse.resize %x {sizes = array<i64: -1, 3, 3, 4>, scales = array<f32: 1.0, 1.0, 0.6, 0.571428597>, mode = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x3x4xf32>
  %3 = fuse.resize %x {sizes = array<i64: -1, 3, 1, 4>, scales = array<f32: 1.0, 1.0, 0.2, 0.571428597>, mode = "linear", coordinate_transformation_mode = "pytorch_half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x1x4xf32>
  %4 = fuse.resize %x {sizes = array<i64: -1, 3, 15, 7>, scales = array<f32: 1.0, 1.0, 3.0, 1.0>, mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x15x7xf32>
  %t = fuse.transpose %x {perm = array<i64: 0, 3, 2, 1>} : (tensor<?x3x5x7xf32>) -> tensor<?x7x5x3xf32>
  %5 = fuse.resize %t {sizes = array<i64: -1, 7, 10, 3>, scales = array<f32: 1.0, 1.0, 2.0, 1.0>, mode = "linear", coordinate_transformation_mode = "asymmetric", nearest_mode = "round_prefer_ceil"} : (tensor<?x7x5x3xf32>) -> tensor<?x7x10x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x3x10x14xf32>, tensor<?x3x10x14xf32>, tensor<?x3x3x4xf32>, tensor<?x3x1x4xf32>, tensor<?x3x15x7xf32>, tensor<?x7x10x3xf32>
}
)mlir",
                        2);
}

// Cubic: four taps per axis, Keys' kernel with the default and another
// coefficient, taps outside dropped and renormalized (exclude_outside), up
// and down, and integral source coordinates (asymmetric, scale 2) whose
// weights are (0, 0, 1, 0).
TEST_CASE("emul: Resize, cubic with every option, against the CPU backend", "[codegen][emul]") {
  checkAgainstReference(R"mlir(
func.func @main(%x: tensor<?x3x5x7xf32> {fuse.name = "x"})
    -> (tensor<?x3x10x14xf32> {fuse.name = "up"}, tensor<?x3x3x4xf32> {fuse.name = "down_excluded"},
        tensor<?x3x10x7xf32> {fuse.name = "asymmetric"}, tensor<?x3x8x9xf32> {fuse.name = "corners_a"}) {
  %0 = fuse.resize %x {sizes = array<i64: -1, 3, 10, 14>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "cubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x10x14xf32>
  %1 = fuse.resize %x {sizes = array<i64: -1, 3, 3, 4>, scales = array<f32: 1.0, 1.0, 0.6, 0.571428597>, mode = "cubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor", cubic_coeff_a = -0.5 : f32, exclude_outside = true} : (tensor<?x3x5x7xf32>) -> tensor<?x3x3x4xf32>
  %2 = fuse.resize %x {sizes = array<i64: -1, 3, 10, 7>, scales = array<f32: 1.0, 1.0, 2.0, 1.0>, mode = "cubic", coordinate_transformation_mode = "asymmetric", nearest_mode = "round_prefer_floor"} : (tensor<?x3x5x7xf32>) -> tensor<?x3x10x7xf32>
  %3 = fuse.resize %x {sizes = array<i64: -1, 3, 8, 9>, scales = array<f32: 1.0, 1.0, 1.6, 1.28571427>, mode = "cubic", coordinate_transformation_mode = "align_corners", nearest_mode = "round_prefer_floor", cubic_coeff_a = -0.5 : f32, exclude_outside = true} : (tensor<?x3x5x7xf32>) -> tensor<?x3x8x9xf32>
  return %0, %1, %2, %3 : tensor<?x3x10x14xf32>, tensor<?x3x3x4xf32>, tensor<?x3x10x7xf32>, tensor<?x3x8x9xf32>
}
)mlir",
                        2);
}

namespace {

struct ConvTransposeCase {
  int64_t group;
  std::vector<int64_t> strides, pads, outputPadding, dilations;
};

/// out[n, oc, oh, ow] = b[oc] + sum of x[n, ic, ih, iw] * w[ic, oc % (Cout/g), kh, kw] over the input channels ic
/// of oc's group and every oh = ih*sh + kh*dh - ph (ow likewise): the transposed convolution by its definition.
std::vector<float> convTransposeByDefinition(const runtime::Tensor &x, const std::vector<float> &w,
                                             const std::vector<float> &b, const runtime::Shape &wShape,
                                             const ConvTransposeCase &c, const runtime::Shape &outShape) {
  const int64_t n = x.shape()[0], cin = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const int64_t outPerGroup = wShape[1], inPerGroup = cin / c.group, kh = wShape[2], kw = wShape[3];
  const int64_t oh = outShape[2], ow = outShape[3], cout = outShape[1];
  std::vector<float> out(static_cast<size_t>(n * cout * oh * ow));
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < cout; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double sum = b[static_cast<size_t>(oc)];
          const int64_t g = oc / outPerGroup;
          for (int64_t ic = g * inPerGroup; ic < (g + 1) * inPerGroup; ++ic)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t sy = y + c.pads[0] - ky * c.dilations[0], sx = z + c.pads[1] - kx * c.dilations[1];
                if (sy < 0 || sx < 0 || sy % c.strides[0] || sx % c.strides[1])
                  continue;
                const int64_t iy = sy / c.strides[0], ix = sx / c.strides[1];
                if (iy >= h || ix >= wd)
                  continue;
                sum += static_cast<double>(x.values()[static_cast<size_t>(((in * cin + ic) * h + iy) * wd + ix)]) *
                       w[static_cast<size_t>(((ic * outPerGroup + oc % outPerGroup) * kh + ky) * kw + kx)];
              }
          out[static_cast<size_t>(((in * cout + oc) * oh + y) * ow + z)] = static_cast<float>(sum);
        }
  return out;
}

} // namespace

// ConvTranspose is lowered at import (zero insertion, a flipped and regrouped
// weight, a stride-1 Conv, a crop where the pads exceed the kernel's reach):
// its pads, reshapes, negative-step slice and conv run as generated kernels,
// against the CPU backend and against the definition.
TEST_CASE("emul: ConvTranspose lowered to a convolution matches its definition", "[codegen][emul]") {
  const ConvTransposeCase cases[] = {
      {1, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1}},
      {2, {2, 1}, {1, 0, 0, 1}, {1, 0}, {1, 2}},
      {2, {3, 2}, {3, 2, 2, 3}, {0, 1}, {1, 1}}, // pads beyond (k - 1) * d: a crop
  };
  for (const ConvTransposeCase &c : cases) {
    INFO("group " << c.group << ", strides " << c.strides[0] << "x" << c.strides[1] << ", pads " << c.pads[0] << ","
                  << c.pads[1] << "," << c.pads[2] << "," << c.pads[3]);
    const runtime::Shape wShape = {4, 3, 3, 3}; // [Cin, Cout/group, kh, kw]
    std::vector<float> w, b;
    for (int64_t i = 0; i < 4 * 3 * 3 * 3; ++i)
      w.push_back(static_cast<float>((i * 37) % 23) / 23.0f - 0.45f);
    const int64_t cout = 3 * c.group;
    for (int64_t i = 0; i < cout; ++i)
      b.push_back(0.1f * static_cast<float>(i) - 0.2f);
    nlohmann::json graph = {{"format", "fusec-graph"},
                            {"version", 1},
                            {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", 4, 5, 6}}}}},
                            {"outputs", {"y"}},
                            {"constants",
                             {{"w", {{"dtype", "f32"}, {"shape", wShape}, {"data", w}}},
                              {"b", {{"dtype", "f32"}, {"shape", {cout}}, {"data", b}}}}},
                            {"nodes",
                             {{{"name", "up"},
                               {"op", "ConvTranspose"},
                               {"inputs", {"x", "w", "b"}},
                               {"outputs", {"t"}},
                               {"attrs",
                                {{"group", c.group},
                                 {"strides", c.strides},
                                 {"pads", c.pads},
                                 {"output_padding", c.outputPadding},
                                 {"dilations", c.dilations}}}},
                              {{"name", "act"}, {"op", "Relu"}, {"inputs", {"t"}}, {"outputs", {"y"}}}}}};
    auto context = createContext();
    auto module = test::importJsonAndFuse(*context, graph.dump(), "conv_transpose.json");
    auto bytes = buildPlan(*module, PlanOptions());
    REQUIRE(mlir::succeeded(bytes));
    auto plan = std::make_shared<const runtime::Plan>(runtime::Plan::fromBytes(*bytes, "conv_transpose"));
    const int batch = 2;
    auto inputs = runtime::makeRandomInputs(*plan, batch, 11);
    runtime::Session session(plan, runtime::Device::Cpu);
    const runtime::Tensor expected = session.run(batch, inputs).at("y");
    std::vector<float> definition = convTransposeByDefinition(inputs.at("x"), w, b, wShape, c, expected.shape());
    for (float &value : definition)
      value = std::max(value, 0.0f);
    std::string report;
    if (!test::allClose(expected, runtime::Tensor(expected.shape(), definition), 1e-5, 1e-5, report))
      FAIL_CHECK("the CPU backend vs the definition: " << report);
    const runtime::Tensor emulated = test::emulate(*module, inputs, batch).at("y");
    if (!test::allClose(emulated, expected, 1e-4, 1e-5, report))
      FAIL_CHECK("emulated kernels vs the CPU backend: " << report);
  }
}

TEST_CASE("emul: QuantizeLinear rounds ties to even, saturates and maps NaN to the zero point, as the CPU backend",
          "[codegen][emul][quantized]") {
  // fusec_quantize and fusec_dequantize (fusec_cuda_prelude.h) against the
  // CPU reference, exactly (integer results). Every u8 input value (the
  // random inputs span 0..255) dequantized by 0.5 is an integer or a half:
  // quantized again by 1 it lands on a tie half the time (ties to even),
  // by 0.25 past i8's range (saturation). Per-axis parameters along the
  // last axis; 0 / 0 makes a NaN.
  checkAgainstReference(R"mlir(
func.func @main(%q: tensor<?x4x64xui8> {fuse.name = "q"}, %x: tensor<?x4x64xf32> {fuse.name = "x"})
    -> (tensor<?x4x64xi8> {fuse.name = "ties"}, tensor<?x4x64xi8> {fuse.name = "saturated"},
        tensor<?x4x64xui8> {fuse.name = "per_axis"}, tensor<?x4x64xi8> {fuse.name = "nan"}) {
  %half = fuse.constant dense<0.5> : tensor<f32>
  %three = fuse.constant dense<3> : tensor<ui8>
  %d = fuse.dequantize_linear %q, %half, %three : (tensor<?x4x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4x64xf32>
  %one = fuse.constant dense<1.0> : tensor<f32>
  %minusTwo = fuse.constant dense<-2> : tensor<i8>
  %ties = fuse.quantize_linear %d, %one, %minusTwo : (tensor<?x4x64xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4x64xi8>
  %quarter = fuse.constant dense<0.25> : tensor<f32>
  %zero8 = fuse.constant dense<0> : tensor<i8>
  %saturated = fuse.quantize_linear %d, %quarter, %zero8 : (tensor<?x4x64xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4x64xi8>
  %scales = fuse.constant dense<[[0.0078125], [0.015625], [0.03125], [0.0625]]> : tensor<4x1xf32>
  %zeros = fuse.constant dense<[[0], [128], [200], [255]]> : tensor<4x1xui8>
  %perAxis = fuse.quantize_linear %x, %scales, %zeros : (tensor<?x4x64xf32>, tensor<4x1xf32>, tensor<4x1xui8>) -> tensor<?x4x64xui8>
  %zeroF = fuse.constant dense<0.0> : tensor<f32>
  %z = fuse.mul %x, %zeroF : (tensor<?x4x64xf32>, tensor<f32>) -> tensor<?x4x64xf32>
  %nanValue = fuse.div %z, %z : (tensor<?x4x64xf32>, tensor<?x4x64xf32>) -> tensor<?x4x64xf32>
  %five = fuse.constant dense<5> : tensor<i8>
  %nan = fuse.quantize_linear %nanValue, %one, %five : (tensor<?x4x64xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4x64xi8>
  return %ties, %saturated, %perAxis, %nan : tensor<?x4x64xi8>, tensor<?x4x64xi8>, tensor<?x4x64xui8>, tensor<?x4x64xi8>
}
)mlir",
                        2);
}
