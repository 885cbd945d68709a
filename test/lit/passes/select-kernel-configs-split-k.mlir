// Split-K: a conv or GEMM whose output tiles at batch 1 give fewer than
// half the SMs a block, with a long enough K, is compiled split-capable:
// split_k is the most k-slices (at most 16, each at least 4 k-tiles) the
// runtime may split each output tile into; the runtime picks the slices per
// launch (support/SplitK.h), so the same kernel runs unsplit at a
// batch whose tiles fill the GPU. Errors: select-kernel-configs-errors.mlir.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{variants=2}))' | FileCheck %s
// Round trip.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{variants=2}))' \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// On a GPU of 12 SMs, 8 tiles already give more than half of them a block: no split.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{sm-count=12}))' \
// RUN:   | FileCheck %s --check-prefix=SMALL

// A batch-1 3x3 conv of 512 channels on a 7x7 map (ResNet-50's last
// stage): 8 tiles of 64 x 64 for 132 SMs; K = 4608 is 288 k-tiles: up to 16
// slices (the runtime runs 16 of 18 k-tiles each: 128 blocks). Its variant,
// the 64 x 32 tile (the smaller of the nearest, as SMs are idle), is
// split-capable too.
// CHECK-LABEL: func.func @static_conv
// CHECK: config = #fuse.config<"tensor_core_conv", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 16, vector = [4, 1]>
// CHECK-SAME: variants = [#fuse.config<"tensor_core_conv", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 16, vector = [4, 1]>]
// SMALL-LABEL: func.func @static_conv
// SMALL: split_k = 1,
func.func @static_conv(%x: tensor<1x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32> {
  ^bb0(%a0: tensor<1x512x7x7xf32>, %a1: tensor<512x512x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
    fuse.yield %c : tensor<1x512x7x7xf32>
  }
  return %k : tensor<1x512x7x7xf32>
}

// -----

// A static classifier, 2 x 256 by 256 x 96: 2 tiles; 16 k-tiles allow up
// to 4 slices of 4.
// CHECK-LABEL: func.func @static_gemm
// CHECK: config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 4, vector = [4, 4]>
func.func @static_gemm(%a: tensor<2x256xf32>, %b: tensor<256x96xf32>) -> tensor<2x96xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<2x256xf32>, tensor<256x96xf32>) -> tensor<2x96xf32> {
  ^bb0(%a0: tensor<2x256xf32>, %a1: tensor<256x96xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<2x256xf32>, tensor<256x96xf32>) -> tensor<2x96xf32>
    fuse.yield %r : tensor<2x96xf32>
  }
  return %g : tensor<2x96xf32>
}

// -----

// The same conv with a dynamic batch is split-capable as well: at batch 32
// its 200 tiles fill the GPU and the runtime launches it unsplit.
// CHECK-LABEL: func.func @dynamic_conv
// CHECK: config = #fuse.config<"tensor_core_conv", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 16, vector = [4, 1]>
func.func @dynamic_conv(%x: tensor<?x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<?x512x7x7xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<?x512x7x7xf32> {
  ^bb0(%a0: tensor<?x512x7x7xf32>, %a1: tensor<512x512x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<?x512x7x7xf32>
    fuse.yield %c : tensor<?x512x7x7xf32>
  }
  return %k : tensor<?x512x7x7xf32>
}

// -----

// A short K (64: 4 k-tiles) cannot give two slices 4 k-tiles each: no
// split, in the config or its variant.
// CHECK-LABEL: func.func @short_k
// CHECK: split_k = 1,
// CHECK-NOT: split_k = 2
func.func @short_k(%a: tensor<4x64xf32>, %b: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%a0: tensor<4x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    fuse.yield %r : tensor<4x64xf32>
  }
  return %g : tensor<4x64xf32>
}
