// fuse-select-kernel-configs over a range (fusec --dim seq=MIN:OPT:MAX): the
// module's fuse.ranges gives each named dimension's [min, opt, max]. Tiles
// are chosen for the rows at opt (batch * seq folded into one matrix), index
// bounds checked at max; the Hopper GEMM is not chosen, since a tensor map
// counts the rows of one size.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{target=sm_90a batch=1}))' | FileCheck %s

// opt 8: 8 rows at batch 1, small tiles, K split to fill the SMs.
// CHECK-LABEL: func.func @proj
// CHECK: config = #fuse.config<"tensor_core_gemm", block = [64, 64, 32], {{.*}} split_k = 2
module attributes {fuse.ranges = {seq = array<i64: 1, 8, 16>}} {
func.func @proj(%x: tensor<?x?x256xf16, ["batch", "seq"]>, %w: tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]> {
  %k = fuse.superkernel "matmul" kind "gemm" (%x, %w) : (tensor<?x?x256xf16, ["batch", "seq"]>, tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]> {
  ^bb0(%a0: tensor<?x?x256xf16, ["batch", "seq"]>, %a1: tensor<256x1024xf16>):
    %m = fuse.matmul %a0, %a1 : (tensor<?x?x256xf16, ["batch", "seq"]>, tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]>
    fuse.yield %m : tensor<?x?x1024xf16, ["batch", "seq"]>
  }
  return %k : tensor<?x?x1024xf16, ["batch", "seq"]>
}
}

// -----

// opt 4096: the widest tiles, no split.
// CHECK-LABEL: func.func @proj_long
// CHECK: config = #fuse.config<"tensor_core_gemm", block = [128, 128, 32], {{.*}} split_k = 1
module attributes {fuse.ranges = {seq = array<i64: 1, 4096, 8192>}} {
func.func @proj_long(%x: tensor<?x?x256xf16, ["batch", "seq"]>, %w: tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]> {
  %k = fuse.superkernel "matmul" kind "gemm" (%x, %w) : (tensor<?x?x256xf16, ["batch", "seq"]>, tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]> {
  ^bb0(%a0: tensor<?x?x256xf16, ["batch", "seq"]>, %a1: tensor<256x1024xf16>):
    %m = fuse.matmul %a0, %a1 : (tensor<?x?x256xf16, ["batch", "seq"]>, tensor<256x1024xf16>) -> tensor<?x?x1024xf16, ["batch", "seq"]>
    fuse.yield %m : tensor<?x?x1024xf16, ["batch", "seq"]>
  }
  return %k : tensor<?x?x1024xf16, ["batch", "seq"]>
}
}
