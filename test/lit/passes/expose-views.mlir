// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-expose-views,fuse-form-attention-views))' | FileCheck %s

// nn.MultiheadAttention computes sequence first: a batch-first layer
// transposes its input to [seq, batch, embed] before the QKV projection and
// back after the output projection. The input transpose sinks below the
// projection and its bias (which now read and write batch-first rows), the
// output transpose rises above the output projection, and both join the
// attention's views: Q, K and V are read from the [batch, seq, 3 * embed]
// projection and the result is stored [batch, seq, embed], with no copy.
// CHECK-LABEL: func.func @sequence_first
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x4x8xf32>, %[[W:[^:]*]]: tensor<8x24xf32>, %[[BIAS:[^:]*]]: tensor<24xf32>, %[[WO:[^:]*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[M:.*]] = fuse.matmul %[[X]], %[[W]] : (tensor<?x4x8xf32>, tensor<8x24xf32>) -> tensor<?x4x24xf32>
// CHECK-NEXT: %[[B:.*]] = fuse.add %[[M]], %[[BIAS]] : (tensor<?x4x24xf32>, tensor<24xf32>) -> tensor<?x4x24xf32>
// CHECK-NEXT: fuse.transpose %[[B]] {fuse.fused_by = "attention-views", fuse.group = 0 : i64, perm = array<i64: 1, 0, 2>} : (tensor<?x4x24xf32>) -> tensor<4x?x24xf32>
// CHECK-COUNT-3: fuse.slice {{.*}}fuse.group = 0
// CHECK: fuse.attention {{.*}}fuse.group = 0
// CHECK-NEXT: fuse.transpose {{.*}}fuse.group = 0 : i64, perm = array<i64: 2, 0, 1, 3>}
// CHECK-NEXT: fuse.reshape {{.*}}fuse.group = 0
// CHECK-NEXT: %[[MERGED:.*]] = fuse.transpose {{.*}}fuse.group = 0 : i64, perm = array<i64: 1, 0, 2>} : (tensor<4x?x8xf32>) -> tensor<?x4x8xf32>
// CHECK-NEXT: %[[O:.*]] = fuse.matmul %[[MERGED]], %[[WO]] : (tensor<?x4x8xf32>, tensor<8x8xf32>) -> tensor<?x4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @sequence_first(%x: tensor<?x4x8xf32>, %w: tensor<8x24xf32>, %bias: tensor<24xf32>, %wo: tensor<8x8xf32>) -> tensor<?x4x8xf32> {
  %t = fuse.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x4x8xf32>) -> tensor<4x?x8xf32>
  %m = fuse.matmul %t, %w : (tensor<4x?x8xf32>, tensor<8x24xf32>) -> tensor<4x?x24xf32>
  %b = fuse.add %m, %bias : (tensor<4x?x24xf32>, tensor<24xf32>) -> tensor<4x?x24xf32>
  %q = fuse.slice %b {starts = array<i64: 0, 0, 0>, ends = array<i64: 4, 9223372036854775807, 8>, steps = array<i64: 1, 1, 1>} : (tensor<4x?x24xf32>) -> tensor<4x?x8xf32>
  %k = fuse.slice %b {starts = array<i64: 0, 0, 8>, ends = array<i64: 4, 9223372036854775807, 16>, steps = array<i64: 1, 1, 1>} : (tensor<4x?x24xf32>) -> tensor<4x?x8xf32>
  %v = fuse.slice %b {starts = array<i64: 0, 0, 16>, ends = array<i64: 4, 9223372036854775807, 24>, steps = array<i64: 1, 1, 1>} : (tensor<4x?x24xf32>) -> tensor<4x?x8xf32>
  %q4 = fuse.reshape %q {shape = array<i64: 4, 0, 2, 4>} : (tensor<4x?x8xf32>) -> tensor<4x?x2x4xf32>
  %k4 = fuse.reshape %k {shape = array<i64: 4, 0, 2, 4>} : (tensor<4x?x8xf32>) -> tensor<4x?x2x4xf32>
  %v4 = fuse.reshape %v {shape = array<i64: 4, 0, 2, 4>} : (tensor<4x?x8xf32>) -> tensor<4x?x2x4xf32>
  %qh = fuse.transpose %q4 {perm = array<i64: 1, 2, 0, 3>} : (tensor<4x?x2x4xf32>) -> tensor<?x2x4x4xf32>
  %kh = fuse.transpose %k4 {perm = array<i64: 1, 2, 0, 3>} : (tensor<4x?x2x4xf32>) -> tensor<?x2x4x4xf32>
  %vh = fuse.transpose %v4 {perm = array<i64: 1, 2, 0, 3>} : (tensor<4x?x2x4xf32>) -> tensor<?x2x4x4xf32>
  %a = fuse.attention %qh, %kh, %vh {causal = false, scale = 0.5 : f32} : (tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>, tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32>
  %at = fuse.transpose %a {perm = array<i64: 2, 0, 1, 3>} : (tensor<?x2x4x4xf32>) -> tensor<4x?x2x4xf32>
  %am = fuse.reshape %at {shape = array<i64: 4, 0, 8>} : (tensor<4x?x2x4xf32>) -> tensor<4x?x8xf32>
  %o = fuse.matmul %am, %wo : (tensor<4x?x8xf32>, tensor<8x8xf32>) -> tensor<4x?x8xf32>
  %ot = fuse.transpose %o {perm = array<i64: 1, 0, 2>} : (tensor<4x?x8xf32>) -> tensor<?x4x8xf32>
  return %ot : tensor<?x4x8xf32>
}

// -----

// torch's `select` (qkv[1]) is a Gather of one constant index: a Slice and a
// Reshape, so the head split is a chain of views.
// CHECK-LABEL: func.func @select
// CHECK-NOT: fuse.gather
// CHECK: %[[S:.*]] = fuse.slice %arg0 {ends = array<i64: 2, 3, 9223372036854775807, 8>, starts = array<i64: 1, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : (tensor<3x3x?x8xf32>) -> tensor<1x3x?x8xf32>
// CHECK-NEXT: fuse.reshape %[[S]] {shape = array<i64: 3, -1, 8>} : (tensor<1x3x?x8xf32>) -> tensor<3x?x8xf32>
func.func @select(%qkv: tensor<3x3x?x8xf32>) -> tensor<3x?x8xf32> {
  %index = fuse.constant dense<-2> : tensor<i64>
  %k = fuse.gather %qkv, %index {axis = 0 : i64} : (tensor<3x3x?x8xf32>, tensor<i64>) -> tensor<3x?x8xf32>
  return %k : tensor<3x?x8xf32>
}

// -----

// Transposes that stay: one whose path ends in a Relu (moving it below the
// projection would copy 24 floats a row instead of 8), one before a batched
// MatMul (whose other operand is a stack of matrices, not one), and one
// that moves the last axis.
// CHECK-LABEL: func.func @stays
// CHECK-NEXT: fuse.transpose %arg0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.relu
// CHECK-NEXT: fuse.transpose %arg0
// CHECK-NEXT: fuse.matmul
// CHECK-NEXT: fuse.transpose %arg0 {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT: fuse.matmul
func.func @stays(%x: tensor<?x4x8xf32>, %w: tensor<8x24xf32>, %batched: tensor<1x8x24xf32>, %w4: tensor<4x24xf32>) -> (tensor<4x?x24xf32>, tensor<4x?x24xf32>, tensor<?x8x24xf32>) {
  %t = fuse.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x4x8xf32>) -> tensor<4x?x8xf32>
  %m = fuse.matmul %t, %w : (tensor<4x?x8xf32>, tensor<8x24xf32>) -> tensor<4x?x24xf32>
  %r = fuse.relu %m : (tensor<4x?x24xf32>) -> tensor<4x?x24xf32>
  %t2 = fuse.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<?x4x8xf32>) -> tensor<4x?x8xf32>
  %b = fuse.matmul %t2, %batched : (tensor<4x?x8xf32>, tensor<1x8x24xf32>) -> tensor<4x?x24xf32>
  %t3 = fuse.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<?x4x8xf32>) -> tensor<?x8x4xf32>
  %c = fuse.matmul %t3, %w4 : (tensor<?x8x4xf32>, tensor<4x24xf32>) -> tensor<?x8x24xf32>
  return %r, %b, %c : tensor<4x?x24xf32>, tensor<4x?x24xf32>, tensor<?x8x24xf32>
}

// -----

// A padding mask as BERT-style exports build it: zeros_like expanded to the
// batch, filled with -inf where padded. The Where broadcasts its operands to
// [batch, 5] anyway, so the Expand goes. The mask, reshaped and expanded over
// the heads, is read by two layers' attention: each gets its own views,
// which join its group.
// CHECK-LABEL: func.func @padding_mask
// CHECK-NOT: fuse.expand %{{.*}} {shape = array<i64: -1, 5>}
// CHECK: %[[MASK:.*]] = fuse.where %arg0, %{{.*}}, %{{.*}} : (tensor<?x5xi1>, tensor<f32>, tensor<f32>) -> tensor<?x5xf32>
// CHECK-DAG: %[[R0:.*]] = fuse.reshape %[[MASK]] {{{.*}}fuse.group = 0
// CHECK-DAG: %[[R1:.*]] = fuse.reshape %[[MASK]] {{{.*}}fuse.group = 1
// CHECK-DAG: %[[E0:.*]] = fuse.expand %[[R0]] {{{.*}}fuse.group = 0
// CHECK-DAG: %[[E1:.*]] = fuse.expand %[[R1]] {{{.*}}fuse.group = 1
// CHECK: fuse.attention %arg1, %arg2, %arg3, %[[E0]] {{{.*}}fuse.group = 0
// CHECK-NEXT: fuse.attention %{{.*}}, %arg2, %arg3, %[[E1]] {{{.*}}fuse.group = 1
func.func @padding_mask(%padded: tensor<?x5xi1>, %q: tensor<?x2x5x4xf32>, %k: tensor<?x2x5x4xf32>, %v: tensor<?x2x5x4xf32>) -> (tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>) {
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %inf = fuse.constant dense<0xFF800000> : tensor<f32>
  %zeros = fuse.expand %zero {shape = array<i64: -1, 5>} : (tensor<f32>) -> tensor<?x5xf32>
  %mask = fuse.where %padded, %inf, %zeros : (tensor<?x5xi1>, tensor<f32>, tensor<?x5xf32>) -> tensor<?x5xf32>
  %m4 = fuse.reshape %mask {shape = array<i64: 0, 1, 1, 5>} : (tensor<?x5xf32>) -> tensor<?x1x1x5xf32>
  %heads = fuse.expand %m4 {shape = array<i64: 1, 2, 1, 1>} : (tensor<?x1x1x5xf32>) -> tensor<?x2x1x5xf32>
  %a = fuse.attention %q, %k, %v, %heads {causal = false, scale = 0.5 : f32} : (tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>, tensor<?x2x1x5xf32>) -> tensor<?x2x5x4xf32>
  %b = fuse.attention %a, %k, %v, %heads {causal = false, scale = 0.5 : f32} : (tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>, tensor<?x2x1x5xf32>) -> tensor<?x2x5x4xf32>
  return %a, %b : tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>
}
