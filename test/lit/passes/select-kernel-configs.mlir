// fuse-select-kernel-configs: every conv and gemm superkernel gets the
// #fuse.config codegen instantiates; a config already there is kept when its
// template can compute the op. Errors: select-kernel-configs-errors.mlir.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{precision=tf32}))' \
// RUN:   | FileCheck %s --check-prefix=TF32
// Round trip: the attribute prints and parses.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs))' \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// A 3x3 conv with 4 output channels: the tensor-core implicit GEMM, 32-row
// tiles (few channels), 4-byte copies of both operands (K = 27, a padded
// window). The elementwise kernel gets no config.
// CHECK-LABEL: func.func @conv
// CHECK: fuse.superkernel "conv_relu" kind "conv"{{.*}} attributes {config = #fuse.config<"tensor_core_conv", block = [32, 64, 16], warp = [16, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [1, 1]>}
// CHECK: fuse.superkernel "add" kind "elementwise"
// CHECK-NOT: config
// TF32-LABEL: func.func @conv
// TF32: precision = "tf32"
func.func @conv(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %k = fuse.superkernel "conv_relu" kind "conv" (%x, %w) : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  ^bb0(%a0: tensor<?x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
    %r = fuse.relu %c : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
    fuse.yield %r : tensor<?x4x8x8xf32>
  }
  %e = fuse.superkernel "add" kind "elementwise" (%k, %k) : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  ^bb0(%p: tensor<?x4x8x8xf32>, %q: tensor<?x4x8x8xf32>):
    %s = fuse.add %p, %q : (tensor<?x4x8x8xf32>, tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
    fuse.yield %s : tensor<?x4x8x8xf32>
  }
  return %e : tensor<?x4x8x8xf32>
}

// -----

// A pointwise conv over 6x6 pixels (36, a multiple of 4): 16-byte copies of
// the input's pixels; 64 output channels: 64-row tiles.
// CHECK-LABEL: func.func @pointwise
// CHECK: #fuse.config<"tensor_core_conv", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>
func.func @pointwise(%x: tensor<?x32x6x6xf32>, %w: tensor<64x32x1x1xf32>) -> tensor<?x64x6x6xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x32x6x6xf32>, tensor<64x32x1x1xf32>) -> tensor<?x64x6x6xf32> {
  ^bb0(%a0: tensor<?x32x6x6xf32>, %a1: tensor<64x32x1x1xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x32x6x6xf32>, tensor<64x32x1x1xf32>) -> tensor<?x64x6x6xf32>
    fuse.yield %c : tensor<?x64x6x6xf32>
  }
  return %k : tensor<?x64x6x6xf32>
}

// -----

// Depthwise: the direct kernel, 256 threads.
// CHECK-LABEL: func.func @depthwise
// CHECK: #fuse.config<"direct_conv", block = [256, 1, 1], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>
func.func @depthwise(%x: tensor<?x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32> {
  ^bb0(%a0: tensor<?x4x8x8xf32>, %a1: tensor<4x1x3x3xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<?x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x8x8xf32>
    fuse.yield %c : tensor<?x4x8x8xf32>
  }
  return %k : tensor<?x4x8x8xf32>
}

// -----

// Gemm with transB and N = 10: the tensor-core GEMM with 32-column tiles.
// transA: the SIMT tiles (16 x 16), which read A transposed.
// CHECK-LABEL: func.func @gemms
// CHECK: #fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>
// CHECK: #fuse.config<"simt_gemm", block = [16, 16, 16], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>
func.func @gemms(%a: tensor<?x64xf32>, %b: tensor<10x64xf32>, %t: tensor<64x?xf32>) -> (tensor<?x10xf32>, tensor<?x10xf32>) {
  %g = fuse.superkernel "gemm" kind "gemm" (%a, %b) : (tensor<?x64xf32>, tensor<10x64xf32>) -> tensor<?x10xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<10x64xf32>):
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x64xf32>, tensor<10x64xf32>) -> tensor<?x10xf32>
    fuse.yield %r : tensor<?x10xf32>
  }
  %h = fuse.superkernel "gemm_t" kind "gemm" (%t, %b) : (tensor<64x?xf32>, tensor<10x64xf32>) -> tensor<?x10xf32> {
  ^bb0(%a0: tensor<64x?xf32>, %a1: tensor<10x64xf32>):
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = true} : (tensor<64x?xf32>, tensor<10x64xf32>) -> tensor<?x10xf32>
    fuse.yield %r : tensor<?x10xf32>
  }
  return %g, %h : tensor<?x10xf32>, tensor<?x10xf32>
}

// -----

// A config pinned by hand is kept: 128 x 64 tiles, 3 stages, plain TF32.
// CHECK-LABEL: func.func @pinned
// CHECK: #fuse.config<"tensor_core_gemm", block = [128, 64, 16], warp = [32, 32], stages = 3, mma = "m16n8k8", precision = "tf32", split_k = 1, vector = [4, 4]>
func.func @pinned(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [128, 64, 16], warp = [32, 32], stages = 3, mma = "m16n8k8", precision = "tf32", split_k = 1, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

// f16 operands (fusec --precision=fp16): the half template, mma m16n8k16,
// precision "f16" whatever the pass's precision option, BK = 32. K = 27 is
// odd: single-element copies of the weights; a padded 3x3 window: single
// gathered elements of the input.
// CHECK-LABEL: func.func @conv_f16
// CHECK: #fuse.config<"tensor_core_conv", block = [32, 64, 32], warp = [16, 32], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [1, 1]>
// TF32-LABEL: func.func @conv_f16
// TF32: mma = "m16n8k16", precision = "f16"
func.func @conv_f16(%x: tensor<?x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<?x4x8x8xf16> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<?x4x8x8xf16> {
  ^bb0(%a0: tensor<?x3x8x8xf16>, %a1: tensor<4x3x3x3xf16>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<?x4x8x8xf16>
    fuse.yield %c : tensor<?x4x8x8xf16>
  }
  return %k : tensor<?x4x8x8xf16>
}

// -----

// A pointwise bf16 conv over 14x14 pixels (196: a multiple of 4, not of 8):
// 8-element (16-byte) weight copies, 4-element (8-byte) pixel copies.
// CHECK-LABEL: func.func @pointwise_bf16
// CHECK: #fuse.config<"tensor_core_conv", block = [64, 64, 32], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "bf16", split_k = 1, vector = [8, 4]>
func.func @pointwise_bf16(%x: tensor<?x32x14x14xbf16>, %w: tensor<64x32x1x1xbf16>) -> tensor<?x64x14x14xbf16> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) : (tensor<?x32x14x14xbf16>, tensor<64x32x1x1xbf16>) -> tensor<?x64x14x14xbf16> {
  ^bb0(%a0: tensor<?x32x14x14xbf16>, %a1: tensor<64x32x1x1xbf16>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x32x14x14xbf16>, tensor<64x32x1x1xbf16>) -> tensor<?x64x14x14xbf16>
    fuse.yield %c : tensor<?x64x14x14xbf16>
  }
  return %k : tensor<?x64x14x14xbf16>
}

// -----

// An f16 Gemm with transB and N = 10: 32-column tiles, 16-byte copies of
// both operands (K = 64).
// CHECK-LABEL: func.func @gemm_f16
// CHECK: #fuse.config<"tensor_core_gemm", block = [64, 32, 32], warp = [32, 16], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>
func.func @gemm_f16(%a: tensor<?x64xf16>, %b: tensor<10x64xf16>) -> tensor<?x10xf16> {
  %g = fuse.superkernel "gemm" kind "gemm" (%a, %b) : (tensor<?x64xf16>, tensor<10x64xf16>) -> tensor<?x10xf16> {
  ^bb0(%a0: tensor<?x64xf16>, %a1: tensor<10x64xf16>):
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x64xf16>, tensor<10x64xf16>) -> tensor<?x10xf16>
    fuse.yield %r : tensor<?x10xf16>
  }
  return %g : tensor<?x10xf16>
}

// -----

// A half config pinned by hand is kept: bf16, 128 x 64 tiles, BK = 64.
// CHECK-LABEL: func.func @pinned_bf16
// CHECK: #fuse.config<"tensor_core_gemm", block = [128, 64, 64], warp = [32, 32], stages = 3, mma = "m16n8k16", precision = "bf16", split_k = 1, vector = [8, 8]>
func.func @pinned_bf16(%a: tensor<?x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<?x64xbf16> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [128, 64, 64], warp = [32, 32], stages = 3, mma = "m16n8k16", precision = "bf16", split_k = 1, vector = [8, 8]>} : (tensor<?x64xbf16>, tensor<64x64xbf16>) -> tensor<?x64xbf16> {
  ^bb0(%a0: tensor<?x64xbf16>, %a1: tensor<64x64xbf16>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xbf16>, tensor<64x64xbf16>) -> tensor<?x64xbf16>
    fuse.yield %r : tensor<?x64xbf16>
  }
  return %g : tensor<?x64xbf16>
}

// -----

// Attention kernels name their main loop: f16 heads of 64, the tensor-core
// loop with 64-key tiles; bf16 heads of 128, 32-key tiles; f32 heads of 64,
// the tf32 loop in 3xTF32 with 32-key tiles; f16 heads of 24 (not whole k16
// steps), the SIMT loop.
// CHECK-LABEL: func.func @attention
// CHECK: fuse.superkernel "narrow"{{.*}}#fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>
// CHECK: fuse.superkernel "wide"{{.*}}#fuse.config<"tensor_core_attention", block = [64, 32, 16], warp = [16, 32], stages = 2, mma = "m16n8k16", precision = "bf16", split_k = 1, vector = [8, 8]>
// CHECK: fuse.superkernel "f32"{{.*}}#fuse.config<"tensor_core_attention", block = [64, 32, 8], warp = [16, 32], stages = 2, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>
// With precision=tf32 the f32 heads take one TF32 product per mma.
// TF32-LABEL: func.func @attention
// TF32: fuse.superkernel "f32"{{.*}}mma = "m16n8k8", precision = "tf32"
// CHECK: fuse.superkernel "odd"{{.*}}#fuse.config<"simt_attention"
func.func @attention(%a: tensor<?x2x9x64xf16>, %b: tensor<?x2x9x128xbf16>, %c: tensor<?x2x9x64xf32>, %d: tensor<?x2x9x24xf16>)
    -> (tensor<?x2x9x64xf16>, tensor<?x2x9x128xbf16>, tensor<?x2x9x64xf32>, tensor<?x2x9x24xf16>) {
  %0 = fuse.superkernel "narrow" kind "attention" (%a) : (tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  ^bb0(%x: tensor<?x2x9x64xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16>
    fuse.yield %o : tensor<?x2x9x64xf16>
  }
  %1 = fuse.superkernel "wide" kind "attention" (%b) : (tensor<?x2x9x128xbf16>) -> tensor<?x2x9x128xbf16> {
  ^bb0(%x: tensor<?x2x9x128xbf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = true} : (tensor<?x2x9x128xbf16>, tensor<?x2x9x128xbf16>, tensor<?x2x9x128xbf16>) -> tensor<?x2x9x128xbf16>
    fuse.yield %o : tensor<?x2x9x128xbf16>
  }
  %2 = fuse.superkernel "f32" kind "attention" (%c) : (tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32> {
  ^bb0(%x: tensor<?x2x9x64xf32>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32>
    fuse.yield %o : tensor<?x2x9x64xf32>
  }
  %3 = fuse.superkernel "odd" kind "attention" (%d) : (tensor<?x2x9x24xf16>) -> tensor<?x2x9x24xf16> {
  ^bb0(%x: tensor<?x2x9x24xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.2 : f32, causal = false} : (tensor<?x2x9x24xf16>, tensor<?x2x9x24xf16>, tensor<?x2x9x24xf16>) -> tensor<?x2x9x24xf16>
    fuse.yield %o : tensor<?x2x9x24xf16>
  }
  return %0, %1, %2, %3 : tensor<?x2x9x64xf16>, tensor<?x2x9x128xbf16>, tensor<?x2x9x64xf32>, tensor<?x2x9x24xf16>
}

// -----

// Few blocks for a long key sequence: 2 heads of 1024 queries at batch 1
// are 32 query tiles (64 rows) for 132 SMs, so the key sequence is split
// (flash-decoding): 16 key tiles of 64, at most 4 slices of 4 tiles; the
// SIMT loop (f32 heads of 12; 16 rows per block: 128 blocks) fills the GPU
// unsplit, and 320 keys (5 tiles) are too few to split.
// CHECK-LABEL: func.func @attention_split
// CHECK: fuse.superkernel "long"{{.*}}#fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 4, vector = [8, 8]>
// CHECK: fuse.superkernel "simt"{{.*}}#fuse.config<"simt_attention", {{.*}}split_k = 1,
// CHECK: fuse.superkernel "short"{{.*}}#fuse.config<"tensor_core_attention", {{.*}}split_k = 1,
func.func @attention_split(%a: tensor<?x2x1024x64xf16>, %b: tensor<?x2x1024x12xf32>, %c: tensor<?x2x320x64xf16>)
    -> (tensor<?x2x1024x64xf16>, tensor<?x2x1024x12xf32>, tensor<?x2x320x64xf16>) {
  %0 = fuse.superkernel "long" kind "attention" (%a) : (tensor<?x2x1024x64xf16>) -> tensor<?x2x1024x64xf16> {
  ^bb0(%x: tensor<?x2x1024x64xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x1024x64xf16>, tensor<?x2x1024x64xf16>, tensor<?x2x1024x64xf16>) -> tensor<?x2x1024x64xf16>
    fuse.yield %o : tensor<?x2x1024x64xf16>
  }
  %1 = fuse.superkernel "simt" kind "attention" (%b) : (tensor<?x2x1024x12xf32>) -> tensor<?x2x1024x12xf32> {
  ^bb0(%x: tensor<?x2x1024x12xf32>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x1024x12xf32>, tensor<?x2x1024x12xf32>, tensor<?x2x1024x12xf32>) -> tensor<?x2x1024x12xf32>
    fuse.yield %o : tensor<?x2x1024x12xf32>
  }
  %2 = fuse.superkernel "short" kind "attention" (%c) : (tensor<?x2x320x64xf16>) -> tensor<?x2x320x64xf16> {
  ^bb0(%x: tensor<?x2x320x64xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x320x64xf16>, tensor<?x2x320x64xf16>, tensor<?x2x320x64xf16>) -> tensor<?x2x320x64xf16>
    fuse.yield %o : tensor<?x2x320x64xf16>
  }
  return %0, %1, %2 : tensor<?x2x1024x64xf16>, tensor<?x2x1024x12xf32>, tensor<?x2x320x64xf16>
}

// -----

// Heads read through a slice that starts 4 elements into rows of 20: the
// rows are not 16-byte aligned, so f16 heads of 16 take the SIMT loop.
// CHECK-LABEL: func.func @unaligned_heads
// CHECK: #fuse.config<"simt_attention"
func.func @unaligned_heads(%a: tensor<?x2x9x20xf16>) -> tensor<?x2x9x16xf16> {
  %0 = fuse.superkernel "sliced" kind "attention" (%a) : (tensor<?x2x9x20xf16>) -> tensor<?x2x9x16xf16> {
  ^bb0(%x: tensor<?x2x9x20xf16>):
    %h = fuse.slice %x {starts = array<i64: 0, 0, 0, 4>, ends = array<i64: 9223372036854775807, 2, 9, 20>, steps = array<i64: 1, 1, 1, 1>} : (tensor<?x2x9x20xf16>) -> tensor<?x2x9x16xf16>
    %o = fuse.attention %h, %h, %h {scale = 0.25 : f32, causal = false} : (tensor<?x2x9x16xf16>, tensor<?x2x9x16xf16>, tensor<?x2x9x16xf16>) -> tensor<?x2x9x16xf16>
    fuse.yield %o : tensor<?x2x9x16xf16>
  }
  return %0 : tensor<?x2x9x16xf16>
}

// -----

// A BERT-base layer's FFN input projection, [batch, 128, 768] x [768, 3072]:
// its rows grow with the batch past 2^31 / K, which the tensor-core GEMM
// addresses with a 64-bit base per block, so it takes the tensor cores in
// every precision (the batch matrices fold into the rows).
// CHECK-LABEL: func.func @bert_ffn
// CHECK: #fuse.config<"tensor_core_gemm", block = [64, 64, 16]{{.*}}precision = "3xtf32"
// CHECK: #fuse.config<"tensor_core_gemm", block = [64, 64, 32]{{.*}}precision = "f16"
// TF32-LABEL: func.func @bert_ffn
// TF32: #fuse.config<"tensor_core_gemm"{{.*}}precision = "tf32"
func.func @bert_ffn(%x: tensor<?x128x768xf32>, %w: tensor<768x3072xf32>, %h: tensor<?x128x768xf16>, %wh: tensor<768x3072xf16>) -> (tensor<?x128x3072xf32>, tensor<?x128x3072xf16>) {
  %0 = fuse.superkernel "ffn1" kind "gemm" (%x, %w) : (tensor<?x128x768xf32>, tensor<768x3072xf32>) -> tensor<?x128x3072xf32> {
  ^bb0(%a: tensor<?x128x768xf32>, %b: tensor<768x3072xf32>):
    %r = fuse.matmul %a, %b : (tensor<?x128x768xf32>, tensor<768x3072xf32>) -> tensor<?x128x3072xf32>
    fuse.yield %r : tensor<?x128x3072xf32>
  }
  %1 = fuse.superkernel "ffn1_f16" kind "gemm" (%h, %wh) : (tensor<?x128x768xf16>, tensor<768x3072xf16>) -> tensor<?x128x3072xf16> {
  ^bb0(%a: tensor<?x128x768xf16>, %b: tensor<768x3072xf16>):
    %r = fuse.matmul %a, %b : (tensor<?x128x768xf16>, tensor<768x3072xf16>) -> tensor<?x128x3072xf16>
    fuse.yield %r : tensor<?x128x3072xf16>
  }
  return %0, %1 : tensor<?x128x3072xf32>, tensor<?x128x3072xf16>
}

// -----

// An NHWC conv reading a slice of a concatenation's channels that starts 2
// channels in: its pixel copies narrow to 2 floats, aligned there (8
// channels alone would take 4).
// CHECK-LABEL: func.func @slice_input
// CHECK: fuse.superkernel "conv" kind "conv"{{.*}}vector = [4, 2]>
func.func @slice_input(%x: tensor<?x4x4x8xf32>, %w: tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32> {
  %v = fuse.superkernel "relu" kind "elementwise" (%x) attributes {fuse.slice_views = [array<i64: 3, 2, 12>]} : (tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32> {
  ^bb0(%a: tensor<?x4x4x8xf32>):
    %r = fuse.relu %a : (tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
    fuse.yield %r : tensor<?x4x4x8xf32>
  }
  %k = fuse.superkernel "conv" kind "conv" (%v, %w) : (tensor<?x4x4x8xf32>, tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32> {
  ^bb0(%a0: tensor<?x4x4x8xf32>, %a1: tensor<16x1x1x8xf32>):
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x4x4x8xf32>, tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32>
    fuse.yield %c : tensor<?x4x4x16xf32>
  }
  return %k : tensor<?x4x4x16xf32>
}

