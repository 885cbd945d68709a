// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-data-movement-chains))' | FileCheck %s
// RUN: fusec-opt %s -split-input-file -fuse-fusion-pipeline | FileCheck %s --check-prefix=KERNELS

// A fused QKV projection split into heads: each Slice -> Reshape ->
// Transpose is one group; the GEMM output with three users starts none.
// CHECK-LABEL: func.func @qkv_heads
// CHECK: fuse.slice {{.*}} {ends = array<i64: 9223372036854775807, 5, 8>, fuse.fused_by = "data-movement-chain", fuse.group = [[Q:[0-9]+]] : i64
// CHECK: fuse.slice {{.*}} fuse.group = [[K:[0-9]+]] : i64
// CHECK: fuse.reshape {{.*}} fuse.group = [[Q]] : i64
// CHECK: fuse.reshape {{.*}} fuse.group = [[K]] : i64
// CHECK: fuse.transpose {{.*}} fuse.group = [[Q]] : i64
// CHECK: fuse.transpose {{.*}} fuse.group = [[K]] : i64
// KERNELS-LABEL: func.func @qkv_heads
// KERNELS-COUNT-2: fuse.superkernel "{{.*}}" kind "data_movement"
// KERNELS-NOT: fuse.superkernel
func.func @qkv_heads(%qkv: tensor<?x5x16xf32>) -> (tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>) {
  %q = fuse.slice %qkv {starts = array<i64: 0, 0, 0>, ends = array<i64: 9223372036854775807, 5, 8>, steps = array<i64: 1, 1, 1>} : (tensor<?x5x16xf32>) -> tensor<?x5x8xf32>
  %k = fuse.slice %qkv {starts = array<i64: 0, 0, 8>, ends = array<i64: 9223372036854775807, 5, 16>, steps = array<i64: 1, 1, 1>} : (tensor<?x5x16xf32>) -> tensor<?x5x8xf32>
  %qs = fuse.reshape %q {shape = array<i64: 0, 0, 2, 4>} : (tensor<?x5x8xf32>) -> tensor<?x5x2x4xf32>
  %ks = fuse.reshape %k {shape = array<i64: 0, 0, 2, 4>} : (tensor<?x5x8xf32>) -> tensor<?x5x2x4xf32>
  %qh = fuse.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x5x2x4xf32>) -> tensor<?x2x5x4xf32>
  %kh = fuse.transpose %ks {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x5x2x4xf32>) -> tensor<?x2x5x4xf32>
  return %qh, %kh : tensor<?x2x5x4xf32>, tensor<?x2x5x4xf32>
}

// -----

// Two chains that meet at a Concat are one kernel; a value with two users
// (here the transpose, read by the concat and returned) ends its chain.
// CHECK-LABEL: func.func @concat_of_chains
// CHECK: fuse.reshape {{.*}} fuse.group = [[G:[0-9]+]] : i64
// CHECK-NEXT: fuse.transpose %arg1 {perm = array<i64: 0, 2, 1>} :
// CHECK-NEXT: fuse.transpose {{.*}} fuse.group = [[G]] : i64
// CHECK-NEXT: fuse.slice {{.*}} fuse.group = [[G]] : i64
// CHECK-NEXT: fuse.concat {{.*}} fuse.group = [[G]] : i64
// KERNELS-LABEL: func.func @concat_of_chains
// KERNELS-COUNT-2: fuse.superkernel "{{.*}}" kind "data_movement"
// KERNELS-NOT: fuse.superkernel
func.func @concat_of_chains(%x: tensor<?x8xf32>, %y: tensor<?x2x4xf32>) -> (tensor<?x4x4xf32>, tensor<?x4x2xf32>) {
  %r = fuse.reshape %x {shape = array<i64: 0, 2, 4>} : (tensor<?x8xf32>) -> tensor<?x2x4xf32>
  %t = fuse.transpose %y {perm = array<i64: 0, 2, 1>} : (tensor<?x2x4xf32>) -> tensor<?x4x2xf32>
  %rt = fuse.transpose %r {perm = array<i64: 0, 2, 1>} : (tensor<?x2x4xf32>) -> tensor<?x4x2xf32>
  %s = fuse.slice %t {starts = array<i64: 0, 0, 1>, ends = array<i64: 9223372036854775807, 4, -1>, steps = array<i64: 1, 1, -1>} : (tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
  %c = fuse.concat %rt, %s {axis = 2 : i64} : (tensor<?x4x2xf32>, tensor<?x4x2xf32>) -> tensor<?x4x4xf32>
  return %c, %t : tensor<?x4x4xf32>, tensor<?x4x2xf32>
}
