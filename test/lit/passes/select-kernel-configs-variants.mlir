// fuse-select-kernel-configs{variants=N}: beside its config, each
// tensor-core kernel lists up to N - 1 other configs that can compute it,
// which the plan carries compiled for the runtime to time (fuserun --tune).
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{variants=3}))' | FileCheck %s
// Round trip: the list prints and parses.
// RUN: fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{variants=3}))' \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// The default lists none.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs))' \
// RUN:   | FileCheck %s --check-prefix=NONE
// NONE-LABEL: func.func @classifier
// NONE-NOT: variants
// NONE-LABEL: func.func @narrow_conv

// A batch-sized product at batch 1 (a classifier): 64x64 is chosen; the
// few-row template comes first among the variants (1 row at batch 1; B is
// K x N: a lane per column, 32 columns per block), then the nearest smaller
// tile, since 4 blocks leave most SMs idle. Both tensor-core configs are
// split-capable (16 k-tiles: up to 4 slices).
// CHECK-LABEL: func.func @classifier
// CHECK: config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 4, vector = [4, 4]>,
// CHECK-SAME: variants = [#fuse.config<"simt_gemv", block = [1, 32, 1], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>, #fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 4, vector = [4, 4]>]
func.func @classifier(%a: tensor<?x256xf32>, %b: tensor<256x256xf32>) -> tensor<?x256xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) : (tensor<?x256xf32>, tensor<256x256xf32>) -> tensor<?x256xf32> {
  ^bb0(%a0: tensor<?x256xf32>, %a1: tensor<256x256xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x256xf32>, tensor<256x256xf32>) -> tensor<?x256xf32>
    fuse.yield %r : tensor<?x256xf32>
  }
  return %g : tensor<?x256xf32>
}

// -----

// A torch Linear at batch 1 (B is N x K): the few-row template with a warp
// per column (8 per block) and 16-byte loads (K = 512).
// CHECK-LABEL: func.func @linear
// CHECK: variants = [#fuse.config<"simt_gemv", block = [1, 8, 1], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [4, 1]>
func.func @linear(%a: tensor<?x512xf32>, %b: tensor<1000x512xf32>) -> tensor<?x1000xf32> {
  %g = fuse.superkernel "fc" kind "gemm" (%a, %b) : (tensor<?x512xf32>, tensor<1000x512xf32>) -> tensor<?x1000xf32> {
  ^bb0(%a0: tensor<?x512xf32>, %a1: tensor<1000x512xf32>):
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x512xf32>, tensor<1000x512xf32>) -> tensor<?x1000xf32>
    fuse.yield %r : tensor<?x1000xf32>
  }
  return %g : tensor<?x1000xf32>
}

// -----

// A conv with 16 output channels: tiles of 64 rows or more would compute
// mostly padding at every batch, so only 32-row tiles remain (the chosen
// one) and no variant is listed.
// CHECK-LABEL: func.func @narrow_conv
// CHECK: config = #fuse.config<"tensor_core_conv", block = [32, 64, 16]
// CHECK-NOT: variants
func.func @narrow_conv(%x: tensor<?x8x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<?x16x8x8xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x8x8xf32> {
  ^bb0(%a0: tensor<?x8x8x8xf32>, %a1: tensor<16x8x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x8x8xf32>
    fuse.yield %c : tensor<?x16x8x8xf32>
  }
  return %k : tensor<?x16x8x8xf32>
}

// -----

// A 3x3 conv with 128 channels over 8x8 pixels: 64x64 chosen at batch 1
// (2 x 1 blocks); the variants are the smaller tiles, which give more
// blocks to more SMs.
// CHECK-LABEL: func.func @conv
// CHECK: config = #fuse.config<"tensor_core_conv", block = [64, 64, 16]
// CHECK-SAME: variants = [#fuse.config<"tensor_core_conv", block = [64, 32, 16], warp = [32, 16], stages = 4{{.*}}>, #fuse.config<"tensor_core_conv", block = [32, 64, 16], warp = [16, 32], stages = 4{{.*}}>]
func.func @conv(%x: tensor<?x64x8x8xf32>, %w: tensor<128x64x3x3xf32>) -> tensor<?x128x8x8xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x64x8x8xf32>, tensor<128x64x3x3xf32>) -> tensor<?x128x8x8xf32> {
  ^bb0(%a0: tensor<?x64x8x8xf32>, %a1: tensor<128x64x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x64x8x8xf32>, tensor<128x64x3x3xf32>) -> tensor<?x128x8x8xf32>
    fuse.yield %c : tensor<?x128x8x8xf32>
  }
  return %k : tensor<?x128x8x8xf32>
}

// -----

// Depthwise convs and other SIMT-only kernels get no variants.
// CHECK-LABEL: func.func @depthwise
// CHECK: "direct_conv"
// CHECK-NOT: variants
func.func @depthwise(%x: tensor<?x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32> {
  ^bb0(%a0: tensor<?x4x8x8xf32>, %a1: tensor<4x1x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<?x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32>
    fuse.yield %c : tensor<?x4x8x8xf32>
  }
  return %k : tensor<?x4x8x8xf32>
}

// -----

// Variants written by hand are kept when their templates can compute the op.
// CHECK-LABEL: func.func @pinned
// CHECK: variants = [#fuse.config<"tensor_core_gemm", block = [128, 64, 16], warp = [32, 32], stages = 3, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]
func.func @pinned(%a: tensor<?x256xf32>, %b: tensor<256x256xf32>) -> tensor<?x256xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>, variants = [#fuse.config<"tensor_core_gemm", block = [128, 64, 16], warp = [32, 32], stages = 3, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]} : (tensor<?x256xf32>, tensor<256x256xf32>) -> tensor<?x256xf32> {
  ^bb0(%a0: tensor<?x256xf32>, %a1: tensor<256x256xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x256xf32>, tensor<256x256xf32>) -> tensor<?x256xf32>
    fuse.yield %r : tensor<?x256xf32>
  }
  return %g : tensor<?x256xf32>
}

// -----

// The tensor-core attention loops list their other key tile where the
// heads allow it: 32 keys beside 64 on f16 heads of 64; none beside 32 on
// heads of 128 (64-key tiles hold heads up to 64); 16 beside 32 on f32
// heads of 64; none for the SIMT loop (f32 heads of 12).
// CHECK-LABEL: func.func @attention
// CHECK: fuse.superkernel "narrow"{{.*}}config = #fuse.config<"tensor_core_attention", block = [64, 64, 16]{{.*}}variants = [#fuse.config<"tensor_core_attention", block = [64, 32, 16], warp = [16, 32], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>]
// CHECK: fuse.superkernel "wide"{{.*}}block = [64, 32, 16]
// CHECK-NOT: variants
// CHECK: fuse.superkernel "f32"{{.*}}config = #fuse.config<"tensor_core_attention", block = [64, 32, 8]{{.*}}variants = [#fuse.config<"tensor_core_attention", block = [64, 16, 8], warp = [16, 16], stages = 2, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]
// CHECK: fuse.superkernel "simt"{{.*}}simt_attention
// CHECK-NOT: variants
// CHECK: return
func.func @attention(%a: tensor<?x2x9x64xf16>, %b: tensor<?x2x9x128xf16>, %c: tensor<?x2x9x64xf32>, %d: tensor<?x2x9x12xf32>)
    -> (tensor<?x2x9x64xf16>, tensor<?x2x9x128xf16>, tensor<?x2x9x64xf32>, tensor<?x2x9x12xf32>) {
  %0 = fuse.superkernel "narrow" kind "attention" (%a) : (tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  ^bb0(%x: tensor<?x2x9x64xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16>
    fuse.yield %o : tensor<?x2x9x64xf16>
  }
  %1 = fuse.superkernel "wide" kind "attention" (%b) : (tensor<?x2x9x128xf16>) -> tensor<?x2x9x128xf16> {
  ^bb0(%x: tensor<?x2x9x128xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = true} : (tensor<?x2x9x128xf16>, tensor<?x2x9x128xf16>, tensor<?x2x9x128xf16>) -> tensor<?x2x9x128xf16>
    fuse.yield %o : tensor<?x2x9x128xf16>
  }
  %2 = fuse.superkernel "f32" kind "attention" (%c) : (tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32> {
  ^bb0(%x: tensor<?x2x9x64xf32>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32>
    fuse.yield %o : tensor<?x2x9x64xf32>
  }
  %3 = fuse.superkernel "simt" kind "attention" (%d) : (tensor<?x2x9x12xf32>) -> tensor<?x2x9x12xf32> {
  ^bb0(%x: tensor<?x2x9x12xf32>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x12xf32>, tensor<?x2x9x12xf32>, tensor<?x2x9x12xf32>) -> tensor<?x2x9x12xf32>
    fuse.yield %o : tensor<?x2x9x12xf32>
  }
  return %0, %1, %2, %3 : tensor<?x2x9x64xf16>, tensor<?x2x9x128xf16>, tensor<?x2x9x64xf32>, tensor<?x2x9x12xf32>
}
