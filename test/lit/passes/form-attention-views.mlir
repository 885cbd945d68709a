// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-attention-views))' | FileCheck %s

// A fused QKV projection split into heads (Slice -> Reshape -> Transpose per
// operand) and the heads merged back (Transpose -> Reshape): every view
// joins the attention op's group, so one kernel reads the projection's
// output in place and writes the merged tensor.
// CHECK-LABEL: func.func @qkv_split
// CHECK-COUNT-3: fuse.slice %arg0 {{{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-COUNT-3: fuse.reshape {{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-COUNT-3: fuse.transpose {{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK: fuse.attention {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: fuse.transpose {{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-NEXT: fuse.reshape {{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
func.func @qkv_split(%qkv: tensor<?x7x24xf32>) -> tensor<?x7x8xf32> {
  %q = fuse.slice %qkv {starts = array<i64: 0, 0, 0>, ends = array<i64: 9223372036854775807, 7, 8>, steps = array<i64: 1, 1, 1>} : (tensor<?x7x24xf32>) -> tensor<?x7x8xf32>
  %k = fuse.slice %qkv {starts = array<i64: 0, 0, 8>, ends = array<i64: 9223372036854775807, 7, 16>, steps = array<i64: 1, 1, 1>} : (tensor<?x7x24xf32>) -> tensor<?x7x8xf32>
  %v = fuse.slice %qkv {starts = array<i64: 0, 0, 16>, ends = array<i64: 9223372036854775807, 7, 24>, steps = array<i64: 1, 1, 1>} : (tensor<?x7x24xf32>) -> tensor<?x7x8xf32>
  %q4 = fuse.reshape %q {shape = array<i64: 0, 7, 2, 4>} : (tensor<?x7x8xf32>) -> tensor<?x7x2x4xf32>
  %k4 = fuse.reshape %k {shape = array<i64: 0, 7, 2, 4>} : (tensor<?x7x8xf32>) -> tensor<?x7x2x4xf32>
  %v4 = fuse.reshape %v {shape = array<i64: 0, 7, 2, 4>} : (tensor<?x7x8xf32>) -> tensor<?x7x2x4xf32>
  %qh = fuse.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x7x2x4xf32>) -> tensor<?x2x7x4xf32>
  %kh = fuse.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x7x2x4xf32>) -> tensor<?x2x7x4xf32>
  %vh = fuse.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x7x2x4xf32>) -> tensor<?x2x7x4xf32>
  %a = fuse.attention %qh, %kh, %vh {causal = true, scale = 0.5 : f32} : (tensor<?x2x7x4xf32>, tensor<?x2x7x4xf32>, tensor<?x2x7x4xf32>) -> tensor<?x2x7x4xf32>
  %t = fuse.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x2x7x4xf32>) -> tensor<?x7x2x4xf32>
  %m = fuse.reshape %t {shape = array<i64: 0, 7, 8>} : (tensor<?x7x2x4xf32>) -> tensor<?x7x8xf32>
  return %m : tensor<?x7x8xf32>
}

// -----

// Views that are not taken: V's transpose leaves its rows strided (each row
// of D would be D loads 7 elements apart), K's reshape has a second user,
// and a Slice never stores a result. Q is a plain input. Nothing is grouped.
// CHECK-LABEL: func.func @not_views
// CHECK-NOT: fuse.group
func.func @not_views(%q: tensor<2x2x7x4xf32>, %k: tensor<2x56xf32>, %v: tensor<2x2x4x7xf32>) -> (tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>) {
  %kh = fuse.reshape %k {shape = array<i64: 2, 2, 7, 4>} : (tensor<2x56xf32>) -> tensor<2x2x7x4xf32>
  %vh = fuse.transpose %v {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x2x4x7xf32>) -> tensor<2x2x7x4xf32>
  %a = fuse.attention %q, %kh, %vh {causal = false, scale = 0.5 : f32} : (tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>) -> tensor<2x2x7x4xf32>
  %s = fuse.slice %a {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 2, 2, 7, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<2x2x7x4xf32>) -> tensor<2x2x7x4xf32>
  return %s, %kh : tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32>
}

// -----

// The longest chain that is still a view with contiguous rows: Q's Slice is
// taken but not the Transpose before it (after which rows are strided); the
// output's Reshape is taken but not the Transpose after it (the merged
// tensor's rows would be strided in the attention's order).
// CHECK-LABEL: func.func @partial_chains
// CHECK: %[[T:.*]] = fuse.transpose %arg0 {perm
// CHECK-NEXT: fuse.slice %[[T]] {{{.*}}fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-NEXT: %[[A:.*]] = fuse.attention {{.*}}fuse.group = 0 : i64
// CHECK-NEXT: %[[R:.*]] = fuse.reshape %[[A]] {fuse.fused_by = "attention-views", fuse.group = 0 : i64
// CHECK-NEXT: fuse.transpose %[[R]] {perm
func.func @partial_chains(%x: tensor<2x4x2xf32>, %k: tensor<2x2x4xf32>, %v: tensor<2x2x4xf32>) -> tensor<4x4xf32> {
  %t = fuse.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<2x4x2xf32>) -> tensor<2x2x4xf32>
  %q = fuse.slice %t {starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 2, 4>, steps = array<i64: 1, 1, 1>} : (tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %a = fuse.attention %q, %k, %v {causal = false, scale = 0.5 : f32} : (tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %r = fuse.reshape %a {shape = array<i64: 4, 4>} : (tensor<2x2x4xf32>) -> tensor<4x4xf32>
  %o = fuse.transpose %r {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}
