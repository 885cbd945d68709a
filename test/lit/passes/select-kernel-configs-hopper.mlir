// fuse-select-kernel-configs{target=sm_90a}: f16/bf16 products (and pointwise
// channels-last convs) the Hopper GEMM can compute take wgmma_gemm
// (docs/hopper.md), with the sm_80
// template's choice first among their variants; the others, and every
// product of an sm_90 plan, keep the sm_80 templates.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{target=sm_90a variants=3}))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{target=sm_90}))' \
// RUN:   | FileCheck %s --check-prefix=SM90
// Round trip: the attribute prints and parses.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{target=sm_90a}))' \
// RUN:   | fusec-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// A MatMul with B stored K x N (read N-major): 128 x 128 tiles, 4 stages.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: config = #fuse.config<"wgmma_gemm", block = [128, 128, 64], warp = [64, 128], stages = 4, mma = "m64nNk16", precision = "f16", split_k = 1, vector = [8, 8]>
// CHECK-SAME: variants = [#fuse.config<"tensor_core_gemm"
// SM90-LABEL: func.func @matmul_f16
// SM90: #fuse.config<"tensor_core_gemm"
// ROUNDTRIP: #fuse.config<"wgmma_gemm", block = [128, 128, 64]
func.func @matmul_f16(%a: tensor<?x256xf16>, %b: tensor<256x512xf16>) -> tensor<?x512xf16> {
  %k = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<?x256xf16>, tensor<256x512xf16>) -> tensor<?x512xf16> {
  ^bb0(%a0: tensor<?x256xf16>, %a1: tensor<256x512xf16>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x256xf16>, tensor<256x512xf16>) -> tensor<?x512xf16>
    fuse.yield %r : tensor<?x512xf16>
  }
  return %k : tensor<?x512xf16>
}

// -----

// A Gemm with B stored N x K and N <= 64: 128 x 64 tiles.
// CHECK-LABEL: func.func @gemm_bf16_narrow
// CHECK: #fuse.config<"wgmma_gemm", block = [128, 64, 64], warp = [64, 64], stages = 4, mma = "m64nNk16", precision = "bf16"
func.func @gemm_bf16_narrow(%a: tensor<?x128xbf16>, %b: tensor<48x128xbf16>) -> tensor<?x48xbf16> {
  %k = fuse.superkernel "gemm" kind "gemm" (%a, %b) : (tensor<?x128xbf16>, tensor<48x128xbf16>) -> tensor<?x48xbf16> {
  ^bb0(%a0: tensor<?x128xbf16>, %a1: tensor<48x128xbf16>):
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x128xbf16>, tensor<48x128xbf16>) -> tensor<?x48xbf16>
    fuse.yield %r : tensor<?x48xbf16>
  }
  return %k : tensor<?x48xbf16>
}

// -----

// What TMA cannot read keeps the sm_80 template: rows of K = 100 halves
// (200 bytes, not a multiple of 16), and f32 operands.
// CHECK-LABEL: func.func @unaligned_rows
// CHECK-NOT: wgmma_gemm
// CHECK: #fuse.config<"tensor_core_gemm"
func.func @unaligned_rows(%a: tensor<?x100xf16>, %b: tensor<100x64xf16>) -> tensor<?x64xf16> {
  %k = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<?x100xf16>, tensor<100x64xf16>) -> tensor<?x64xf16> {
  ^bb0(%a0: tensor<?x100xf16>, %a1: tensor<100x64xf16>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x100xf16>, tensor<100x64xf16>) -> tensor<?x64xf16>
    fuse.yield %r : tensor<?x64xf16>
  }
  return %k : tensor<?x64xf16>
}

// -----

// CHECK-LABEL: func.func @f32_operands
// CHECK-NOT: wgmma_gemm
// CHECK: #fuse.config<"tensor_core_gemm"
func.func @f32_operands(%a: tensor<?x128xf32>, %b: tensor<128x64xf32>) -> tensor<?x64xf32> {
  %k = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<?x128xf32>, tensor<128x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x128xf32>, %a1: tensor<128x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x128xf32>, tensor<128x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %k : tensor<?x64xf32>
}

// -----

// A pointwise channels-last conv is a product of the batch's pixels by the
// weights: wgmma_gemm (Co <= 64: 128 x 64 tiles), the sm_80 conv template's
// choice first among its variants. A 3x3 window runs the implicit GEMM
// over spatial tiles: its 8 x 8 output is one tile of 64 rows (128 would
// leave half of them idle). Three input channels are not a 16-byte TMA
// row: that conv stays on the sm_80 template.
// CHECK-LABEL: func.func @pointwise_conv_f16
// CHECK: fuse.superkernel "pointwise" kind "conv"{{.*}}config = #fuse.config<"wgmma_gemm", block = [128, 64, 64], warp = [64, 64], stages = 4, mma = "m64nNk16", precision = "f16"
// CHECK-SAME: variants = [#fuse.config<"tensor_core_conv"
// CHECK: fuse.superkernel "window" kind "conv"{{.*}}config = #fuse.config<"wgmma_gemm", block = [64, 64, 64], warp = [64, 64], stages = 4
// CHECK-SAME: variants = [#fuse.config<"tensor_core_conv"
// CHECK: fuse.superkernel "rgb" kind "conv"{{.*}}config = #fuse.config<"tensor_core_conv"
// SM90-LABEL: func.func @pointwise_conv_f16
// SM90: #fuse.config<"tensor_core_conv"
// SM90-NOT: wgmma_gemm
func.func @pointwise_conv_f16(%x: tensor<?x8x8x32xf16>, %w: tensor<48x1x1x32xf16>, %v: tensor<48x3x3x32xf16>, %rgb: tensor<?x16x16x3xf16>, %u: tensor<48x3x3x3xf16>) -> (tensor<?x8x8x48xf16>, tensor<?x8x8x48xf16>, tensor<?x8x8x48xf16>) {
  %k = fuse.superkernel "pointwise" kind "conv" (%x, %w) : (tensor<?x8x8x32xf16>, tensor<48x1x1x32xf16>) -> tensor<?x8x8x48xf16> {
  ^bb0(%a0: tensor<?x8x8x32xf16>, %a1: tensor<48x1x1x32xf16>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x8x8x32xf16>, tensor<48x1x1x32xf16>) -> tensor<?x8x8x48xf16>
    fuse.yield %c : tensor<?x8x8x48xf16>
  }
  %l = fuse.superkernel "window" kind "conv" (%x, %v) : (tensor<?x8x8x32xf16>, tensor<48x3x3x32xf16>) -> tensor<?x8x8x48xf16> {
  ^bb0(%b0: tensor<?x8x8x32xf16>, %b1: tensor<48x3x3x32xf16>):
    %c = fuse.conv %b0, %b1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x8x8x32xf16>, tensor<48x3x3x32xf16>) -> tensor<?x8x8x48xf16>
    fuse.yield %c : tensor<?x8x8x48xf16>
  }
  %m = fuse.superkernel "rgb" kind "conv" (%rgb, %u) : (tensor<?x16x16x3xf16>, tensor<48x3x3x3xf16>) -> tensor<?x8x8x48xf16> {
  ^bb0(%c0: tensor<?x16x16x3xf16>, %c1: tensor<48x3x3x3xf16>):
    %c = fuse.conv %c0, %c1 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x16x16x3xf16>, tensor<48x3x3x3xf16>) -> tensor<?x8x8x48xf16>
    fuse.yield %c : tensor<?x8x8x48xf16>
  }
  return %k, %l, %m : tensor<?x8x8x48xf16>, tensor<?x8x8x48xf16>, tensor<?x8x8x48xf16>
}
