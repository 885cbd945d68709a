// Registers fusec into this program's own MLIR pass manager, next to an
// upstream MLIR pass, and fuses a small module.
#include <fusec/fusec.h>

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdio>

static const char *kModule = R"mlir(
func.func @main(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = fuse.constant dense<0.5> : tensor<4x4x3x3xf32>
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1} : (tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x8x8xf32>
  %r = fuse.relu %c : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %a = fuse.add %r, %x : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %a : tensor<?x4x8x8xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  fusec::registerDialects(registry);
  fusec::registerPasses();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass()); // an upstream pass of the host compiler
  fusec::buildFusionPipeline(pm, fusec::FusionOptions());
  if (mlir::failed(pm.run(*module)))
    return 1;
  int kernels = 0;
  module->walk([&](fusec::fuse::SuperkernelOp) { ++kernels; });
  std::printf("consumer: fused into %d kernel(s)\n", kernels);
  return kernels == 1 ? 0 : 1;
}
