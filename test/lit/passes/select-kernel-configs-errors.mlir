// #fuse.config that describes no template, and configs pinned on ops their
// template cannot compute: each an error naming the reason.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs))'
// RUN: not fusec-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(func.func(fuse-select-kernel-configs{precision=fp16}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRECISION
// PRECISION: error: unknown precision 'fp16' (expected fp32 or tf32)

func.func @split_k(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #fuse.config: split_k is 1 (no split) to 16 k-slices}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 17, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @warp_tiles(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #fuse.config: the block tile must be made of whole warp tiles}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [48, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @unknown_template(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{unknown template 'mfma_gemm'}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"mfma_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @transposed_a(%t: tensor<64x?xf32>, %b: tensor<10x64xf32>) -> tensor<?x10xf32> {
  %h = fuse.superkernel "gemm_t" kind "gemm" (%t, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<64x?xf32>, tensor<10x64xf32>) -> tensor<?x10xf32> {
  ^bb0(%a0: tensor<64x?xf32>, %a1: tensor<10x64xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: it takes A untransposed only}}
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = true} : (tensor<64x?xf32>, tensor<10x64xf32>) -> tensor<?x10xf32>
    fuse.yield %r : tensor<?x10xf32>
  }
  return %h : tensor<?x10xf32>
}

// -----

func.func @conv_template_on_gemm(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"simt_conv", block = [16, 16, 16], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    // expected-error @+1 {{template simt_conv computes convolutions, not matrix products}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @padded_vectors(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<?x8x8x8xf32> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) attributes {config = #fuse.config<"tensor_core_conv", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x8x8xf32> {
  ^bb0(%a0: tensor<?x4x8x8xf32>, %a1: tensor<8x4x3x3xf32>):
    // expected-error @+1 {{vector copies of the input need a 1x1, stride-1, unpadded convolution}}
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x8x8xf32>
    fuse.yield %c : tensor<?x8x8x8xf32>
  }
  return %k : tensor<?x8x8x8xf32>
}

// -----

func.func @half_mma_with_tf32(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #fuse.config: precision "3xtf32" uses mma "m16n8k8"}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @half_bk(%a: tensor<?x64xf16>, %b: tensor<64x64xf16>) -> tensor<?x64xf16> {
  // expected-error @+1 {{invalid #fuse.config: BK is made of k16 steps (a multiple of 16)}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 24], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x64xf16>, tensor<64x64xf16>) -> tensor<?x64xf16> {
  ^bb0(%a0: tensor<?x64xf16>, %a1: tensor<64x64xf16>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf16>, tensor<64x64xf16>) -> tensor<?x64xf16>
    fuse.yield %r : tensor<?x64xf16>
  }
  return %g : tensor<?x64xf16>
}

// -----

func.func @eight_floats(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #fuse.config: copies move 1, 2 or 4 floats}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [8, 8]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @f16_on_f32(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 32], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: precision "f16" does not multiply f32 operands ("3xtf32" or "tf32" does)}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @tf32_on_f16(%x: tensor<?x16x6x6xf16>, %w: tensor<32x16x1x1xf16>) -> tensor<?x32x6x6xf16> {
  %k = fuse.superkernel "conv" kind "conv" (%x, %w) attributes {config = #fuse.config<"tensor_core_conv", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "tf32", split_k = 1, vector = [4, 4]>} : (tensor<?x16x6x6xf16>, tensor<32x16x1x1xf16>) -> tensor<?x32x6x6xf16> {
  ^bb0(%a0: tensor<?x16x6x6xf16>, %a1: tensor<32x16x1x1xf16>):
    // expected-error @+1 {{template tensor_core_conv cannot compute this op: precision "tf32" does not multiply f16 operands ("f16" does)}}
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x16x6x6xf16>, tensor<32x16x1x1xf16>) -> tensor<?x32x6x6xf16>
    fuse.yield %c : tensor<?x32x6x6xf16>
  }
  return %k : tensor<?x32x6x6xf16>
}

// -----

func.func @f16_on_bf16(%a: tensor<?x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<?x64xbf16> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 32], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x64xbf16>, tensor<64x64xbf16>) -> tensor<?x64xbf16> {
  ^bb0(%a0: tensor<?x64xbf16>, %a1: tensor<64x64xbf16>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: precision "f16" does not multiply bf16 operands ("bf16" does)}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xbf16>, tensor<64x64xbf16>) -> tensor<?x64xbf16>
    fuse.yield %r : tensor<?x64xbf16>
  }
  return %g : tensor<?x64xbf16>
}

// -----

// A pinned variant is checked like a pinned config.
func.func @variant_transposed_a(%a: tensor<64x?xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "gemm" kind "gemm" (%a, %b) attributes {config = #fuse.config<"simt_gemm", block = [16, 16, 16], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>, variants = [#fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]} : (tensor<64x?xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<64x?xf32>, %a1: tensor<64x64xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op}}
    %r = fuse.gemm %a0, %a1 {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = false} : (tensor<64x?xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @variants_without_config(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{has variants but no config: the first config is the kernel's own}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {variants = [#fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @repeated_variant(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{lists the config #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]> twice among its config and variants}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>, variants = [#fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>]} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

// Tuning may not trade accuracy for speed: an fp32-accurate kernel takes no
// plain-TF32 variant.
func.func @less_accurate_variant(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{variant #fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "tf32", split_k = 1, vector = [4, 4]> computes in plain TF32, less accurately than the kernel's config (3xtf32): variants may not change a kernel's accuracy}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>, variants = [#fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "tf32", split_k = 1, vector = [4, 4]>]} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

func.func @split_simt(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #fuse.config: split_k = 2: only the tensor-core templates split the reduction}}
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"simt_gemm", block = [16, 16, 16], warp = [1, 1], stages = 1, mma = "none", precision = "f32", split_k = 2, vector = [1, 1]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

// K = 64 is 4 k-tiles of 16: at most 4 slices.
func.func @split_beyond_k(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 5, vector = [4, 4]>} : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a0: tensor<?x64xf32>, %a1: tensor<64x64xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: split_k = 5 needs at least as many k-tiles of 16 (K has 4)}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

// Batch matrices on grid.z (B has its own per matrix): no room for slices.
func.func @split_batched(%a: tensor<?x2x8x64xf32>, %b: tensor<2x64x32xf32>) -> tensor<?x2x8x32xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 32, 16], warp = [32, 16], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 2, vector = [4, 4]>} : (tensor<?x2x8x64xf32>, tensor<2x64x32xf32>) -> tensor<?x2x8x32xf32> {
  ^bb0(%a0: tensor<?x2x8x64xf32>, %a1: tensor<2x64x32xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: split_k needs one matrix, or batch matrices that fold into the rows (grid.z holds the slices)}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x2x8x64xf32>, tensor<2x64x32xf32>) -> tensor<?x2x8x32xf32>
    fuse.yield %r : tensor<?x2x8x32xf32>
  }
  return %g : tensor<?x2x8x32xf32>
}

// -----

func.func @attention_shape(%a: tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  // expected-error @+1 {{invalid #fuse.config: tensor_core_attention is block [64, 32 or 64, 16], warp [16, block N], 2 stages, mma "m16n8k16", precision "f16" or "bf16", vector [8, 8]}}
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [128, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  ^bb0(%x: tensor<?x2x9x64xf16>):
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16>
    fuse.yield %o : tensor<?x2x9x64xf16>
  }
  return %0 : tensor<?x2x9x64xf16>
}

// -----

// The f16 loop on f32 heads: the f32 heads take the tf32 loop's config.
func.func @attention_f32(%a: tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32> {
  ^bb0(%x: tensor<?x2x9x64xf32>):
    // expected-error @+1 {{template tensor_core_attention cannot compute this op: precision "f16" is not the operands' type}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>, tensor<?x2x9x64xf32>) -> tensor<?x2x9x64xf32>
    fuse.yield %o : tensor<?x2x9x64xf32>
  }
  return %0 : tensor<?x2x9x64xf32>
}

// -----

// A tensor-core loop needs whole k steps: f32 heads of 12 are not.
func.func @attention_f32_odd(%a: tensor<?x2x9x12xf32>) -> tensor<?x2x9x12xf32> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 32, 8], warp = [16, 32], stages = 2, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x2x9x12xf32>) -> tensor<?x2x9x12xf32> {
  ^bb0(%x: tensor<?x2x9x12xf32>):
    // expected-error @+1 {{template tensor_core_attention cannot compute this op: it takes f16 or bf16 Q, K and V of one type with head dimensions that are multiples of 16, or f32 ones with head dimensions that are multiples of 8}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x12xf32>, tensor<?x2x9x12xf32>, tensor<?x2x9x12xf32>) -> tensor<?x2x9x12xf32>
    fuse.yield %o : tensor<?x2x9x12xf32>
  }
  return %0 : tensor<?x2x9x12xf32>
}

// -----

// f32 heads of 128 take 16-key tiles: 32 of them need 100 KiB of shared
// memory.
func.func @attention_f32_wide(%a: tensor<?x2x9x128xf32>) -> tensor<?x2x9x128xf32> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 32, 8], warp = [16, 32], stages = 2, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x2x9x128xf32>) -> tensor<?x2x9x128xf32> {
  ^bb0(%x: tensor<?x2x9x128xf32>):
    // expected-error @+1 {{the config needs 102400 bytes of shared memory, above the 101376 every sm_80+ GPU grants one block}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x128xf32>, tensor<?x2x9x128xf32>, tensor<?x2x9x128xf32>) -> tensor<?x2x9x128xf32>
    fuse.yield %o : tensor<?x2x9x128xf32>
  }
  return %0 : tensor<?x2x9x128xf32>
}

// -----

// 64-key tiles hold heads up to 64; heads of 128 take 32 keys per tile.
func.func @attention_wide_tile(%a: tensor<?x2x9x128xf16>) -> tensor<?x2x9x128xf16> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x2x9x128xf16>) -> tensor<?x2x9x128xf16> {
  ^bb0(%x: tensor<?x2x9x128xf16>):
    // expected-error @+1 {{template tensor_core_attention cannot compute this op: 64-key tiles take heads up to 64 (D = 128, Dv = 128): use 32}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x128xf16>, tensor<?x2x9x128xf16>, tensor<?x2x9x128xf16>) -> tensor<?x2x9x128xf16>
    fuse.yield %o : tensor<?x2x9x128xf16>
  }
  return %0 : tensor<?x2x9x128xf16>
}

// -----

// The precision is the heads' type.
func.func @attention_precision(%a: tensor<?x2x9x64xbf16>) -> tensor<?x2x9x64xbf16> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x2x9x64xbf16>) -> tensor<?x2x9x64xbf16> {
  ^bb0(%x: tensor<?x2x9x64xbf16>):
    // expected-error @+1 {{template tensor_core_attention cannot compute this op: precision "f16" is not the operands' type}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xbf16>, tensor<?x2x9x64xbf16>, tensor<?x2x9x64xbf16>) -> tensor<?x2x9x64xbf16>
    fuse.yield %o : tensor<?x2x9x64xbf16>
  }
  return %0 : tensor<?x2x9x64xbf16>
}

// -----

// Channels-last convs: each thread copies one k column of whole pixel rows
// (FusecIm2colNhwcB keeps state per row), so BK / vector must divide the
// threads (32 here, 64 columns).
func.func @conv_nhwc_columns(%x: tensor<?x8x8x16xf32>, %w: tensor<16x3x3x16xf32>) -> tensor<?x8x8x16xf32> {
  %0 = fuse.superkernel "conv" kind "conv" (%x, %w) attributes {config = #fuse.config<"tensor_core_conv", block = [16, 8, 64], warp = [16, 8], stages = 2, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [1, 1]>} : (tensor<?x8x8x16xf32>, tensor<16x3x3x16xf32>) -> tensor<?x8x8x16xf32> {
  ^bb0(%a: tensor<?x8x8x16xf32>, %b: tensor<16x3x3x16xf32>):
    // expected-error @+1 {{template tensor_core_conv cannot compute this op: each thread must copy one k column of the NHWC input (block K / vector must divide the threads)}}
    %c = fuse.conv %a, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x8x8x16xf32>, tensor<16x3x3x16xf32>) -> tensor<?x8x8x16xf32>
    fuse.yield %c : tensor<?x8x8x16xf32>
  }
  return %0 : tensor<?x8x8x16xf32>
}

// -----

// A vector of an NHWC input is adjacent channels of one tap: 6 channels are
// not whole 4-float vectors.
func.func @conv_nhwc_vector(%x: tensor<?x8x8x6xf32>, %w: tensor<16x3x3x6xf32>) -> tensor<?x8x8x16xf32> {
  %0 = fuse.superkernel "conv" kind "conv" (%x, %w) attributes {config = #fuse.config<"tensor_core_conv", block = [32, 64, 16], warp = [16, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [1, 4]>} : (tensor<?x8x8x6xf32>, tensor<16x3x3x6xf32>) -> tensor<?x8x8x16xf32> {
  ^bb0(%a: tensor<?x8x8x6xf32>, %b: tensor<16x3x3x6xf32>):
    // expected-error @+1 {{template tensor_core_conv cannot compute this op: vector copies of an NHWC input need the channels (6) to be a multiple of the vector}}
    %c = fuse.conv %a, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x8x8x6xf32>, tensor<16x3x3x6xf32>) -> tensor<?x8x8x16xf32>
    fuse.yield %c : tensor<?x8x8x16xf32>
  }
  return %0 : tensor<?x8x8x16xf32>
}

// -----

// A slice of a concatenation's channels starting 2 channels in (the relu
// kernel stores into channels 2..10 of 12, fuse-place-concats): 4-float
// copies of its pixels would be misaligned.
func.func @conv_nhwc_slice(%x: tensor<?x4x4x8xf32>, %w: tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32> {
  %v = fuse.superkernel "relu" kind "elementwise" (%x) attributes {fuse.slice_views = [array<i64: 3, 2, 12>]} : (tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32> {
  ^bb0(%a: tensor<?x4x4x8xf32>):
    %r = fuse.relu %a : (tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
    fuse.yield %r : tensor<?x4x4x8xf32>
  }
  %k = fuse.superkernel "conv" kind "conv" (%v, %w) attributes {config = #fuse.config<"tensor_core_conv", block = [32, 64, 16], warp = [16, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x4x4x8xf32>, tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32> {
  ^bb0(%a0: tensor<?x4x4x8xf32>, %a1: tensor<16x1x1x8xf32>):
    // expected-error @+1 {{template tensor_core_conv cannot compute this op: vector copies of a slice of a concatenation's channels need its offset (2) and the concatenation's channels (12) to be multiples of the vector}}
    %c = fuse.conv %a0, %a1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, channels_last = true} : (tensor<?x4x4x8xf32>, tensor<16x1x1x8xf32>) -> tensor<?x4x4x16xf32>
    fuse.yield %c : tensor<?x4x4x16xf32>
  }
  return %k : tensor<?x4x4x16xf32>
}

// -----

// A split over the keys needs a key tile per slice: 9 keys are one tile.
func.func @attention_split_too_far(%a: tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  %0 = fuse.superkernel "attention" kind "attention" (%a) attributes {config = #fuse.config<"tensor_core_attention", block = [64, 64, 16], warp = [16, 64], stages = 2, mma = "m16n8k16", precision = "f16", split_k = 4, vector = [8, 8]>} : (tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16> {
  ^bb0(%x: tensor<?x2x9x64xf16>):
    // expected-error @+1 {{template tensor_core_attention cannot split this op: split_k = 4 needs at least as many key tiles of 64 (the keys make 1)}}
    %o = fuse.attention %x, %x, %x {scale = 0.125 : f32, causal = false} : (tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>, tensor<?x2x9x64xf16>) -> tensor<?x2x9x64xf16>
    fuse.yield %o : tensor<?x2x9x64xf16>
  }
  return %0 : tensor<?x2x9x64xf16>
}

// -----

// An attention loop cannot compute a matrix product.
func.func @attention_on_gemm(%a: tensor<?x64xf16>, %b: tensor<64x64xf16>) -> tensor<?x64xf16> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"simt_attention", block = [16, 32, 1], warp = [4, 32], stages = 1, mma = "none", precision = "f32", split_k = 1, vector = [1, 1]>} : (tensor<?x64xf16>, tensor<64x64xf16>) -> tensor<?x64xf16> {
  ^bb0(%a0: tensor<?x64xf16>, %a1: tensor<64x64xf16>):
    // expected-error @+1 {{template simt_attention computes attention, not matrix products}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x64xf16>, tensor<64x64xf16>) -> tensor<?x64xf16>
    fuse.yield %r : tensor<?x64xf16>
  }
  return %g : tensor<?x64xf16>
}

// -----

// What the GEMM's 32-bit index math still refuses: 32768 rows per sample
// make 2^31 rows at the largest batch the templates index (2^16).
func.func @rows_past_the_row_index(%a: tensor<?x32768x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x32768x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x32768x64xf32>, tensor<64x64xf32>) -> tensor<?x32768x64xf32> {
  ^bb0(%a0: tensor<?x32768x64xf32>, %a1: tensor<64x64xf32>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: its 32-bit row index cannot count 2147483648 rows (at batch 65536)}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x32768x64xf32>, tensor<64x64xf32>) -> tensor<?x32768x64xf32>
    fuse.yield %r : tensor<?x32768x64xf32>
  }
  return %g : tensor<?x32768x64xf32>
}

// -----

// B past 2^31 elements (a 65536 x 32768 weight).
func.func @b_past_32_bit_offsets(%a: tensor<?x65536xf16>, %b: tensor<65536x32768xf16>) -> tensor<?x32768xf16> {
  %g = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 32], warp = [32, 32], stages = 4, mma = "m16n8k16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x65536xf16>, tensor<65536x32768xf16>) -> tensor<?x32768xf16> {
  ^bb0(%a0: tensor<?x65536xf16>, %a1: tensor<65536x32768xf16>):
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: its 32-bit offsets cannot address B (65536 x 32768) or a block's rows of A}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x65536xf16>, tensor<65536x32768xf16>) -> tensor<?x32768xf16>
    fuse.yield %r : tensor<?x32768xf16>
  }
  return %g : tensor<?x32768xf16>
}

// -----

// A wgmma_gemm config pinned where TMA cannot read the rows (K = 100 halves).
func.func @wgmma_unaligned(%a: tensor<?x100xf16>, %b: tensor<100x64xf16>) -> tensor<?x64xf16> {
  %k = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"wgmma_gemm", block = [128, 64, 64], warp = [64, 64], stages = 4, mma = "m64nNk16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x100xf16>, tensor<100x64xf16>) -> tensor<?x64xf16> {
  ^bb0(%a0: tensor<?x100xf16>, %a1: tensor<100x64xf16>):
    // expected-error @+1 {{template wgmma_gemm cannot compute this op: TMA needs rows of 16-byte multiples: K = 100, N = 64 must be multiples of 8}}
    %r = fuse.matmul %a0, %a1 : (tensor<?x100xf16>, tensor<100x64xf16>) -> tensor<?x64xf16>
    fuse.yield %r : tensor<?x64xf16>
  }
  return %k : tensor<?x64xf16>
}

// -----

func.func @wgmma_bad_block(%a: tensor<?x128xf16>, %b: tensor<128x64xf16>) -> tensor<?x64xf16> {
  // expected-error @+1 {{wgmma_gemm's warp tile is a consumer warpgroup's: [64, BN]}}
  %k = fuse.superkernel "matmul" kind "gemm" (%a, %b) attributes {config = #fuse.config<"wgmma_gemm", block = [128, 64, 64], warp = [32, 64], stages = 4, mma = "m64nNk16", precision = "f16", split_k = 1, vector = [8, 8]>} : (tensor<?x128xf16>, tensor<128x64xf16>) -> tensor<?x64xf16> {
  ^bb0(%a0: tensor<?x128xf16>, %a1: tensor<128x64xf16>):
    %r = fuse.matmul %a0, %a1 : (tensor<?x128xf16>, tensor<128x64xf16>) -> tensor<?x64xf16>
    fuse.yield %r : tensor<?x64xf16>
  }
  return %k : tensor<?x64xf16>
}

// -----

// A read as rows of another tensor (rule operand-views): its rows start at
// element 1 and every 7 after it, not whole 4-float copies.
func.func @row_view_unaligned(%x: tensor<?x7xf32>, %b: tensor<4x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%x, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x7xf32>, tensor<4x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%x0: tensor<?x7xf32>, %b0: tensor<4x64xf32>):
    %a = fuse.slice %x0 {starts = array<i64: 0, 1>, ends = array<i64: 9223372036854775807, 5>, steps = array<i64: 1, 1>} : (tensor<?x7xf32>) -> tensor<?x4xf32>
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: A's rows start at element 1 of their tensor and every 7 after it: not whole 4-element vectors}}
    %r = fuse.matmul %a, %b0 : (tensor<?x4xf32>, tensor<4x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}

// -----

// A's rows 2^26 elements apart: a 64-row block spans more than a 32-bit
// offset reaches.
func.func @row_view_far_apart(%x: tensor<?x1048576x64xf32>, %b: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %g = fuse.superkernel "matmul" kind "gemm" (%x, %b) attributes {config = #fuse.config<"tensor_core_gemm", block = [64, 64, 16], warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32", split_k = 1, vector = [4, 4]>} : (tensor<?x1048576x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%x0: tensor<?x1048576x64xf32>, %b0: tensor<64x64xf32>):
    %s = fuse.slice %x0 {starts = array<i64: 0, 0, 0>, ends = array<i64: 9223372036854775807, 1, 64>, steps = array<i64: 1, 1, 1>} : (tensor<?x1048576x64xf32>) -> tensor<?x1x64xf32>
    %a = fuse.reshape %s {shape = array<i64: -1, 64>} : (tensor<?x1x64xf32>) -> tensor<?x64xf32>
    // expected-error @+1 {{template tensor_core_gemm cannot compute this op: its 32-bit offsets cannot address a block's rows of A, 67108864 elements apart}}
    %r = fuse.matmul %a, %b0 : (tensor<?x64xf32>, tensor<64x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  return %g : tensor<?x64xf32>
}
