// fuse-form-epilogues' operand-views rule: the Slice, Reshape and Flatten
// ops computing a matrix product's A as rows of another tensor join the
// product's group; its template reads A's rows where they lie
// (ir/StridedView.h, matrixRowsOf).
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-epilogues))' \
// RUN:   | FileCheck %s
// RUN: fusec-opt %s -split-input-file '--fuse-form-epilogues=disabled-rules=operand-views' \
// RUN:   | FileCheck %s --check-prefix=OFF

// A classifier on the first token of each sequence (BERT, ViT): x[:, 0]
// is rows 7 * 32 elements apart.
// CHECK-LABEL: func.func @first_token
// CHECK: fuse.slice {{.*}}fuse.fused_by = "operand-views", fuse.group = [[G:[0-9]+]] : i64
// CHECK-NEXT: fuse.reshape {{.*}}fuse.fused_by = "operand-views", fuse.group = [[G]] : i64
// CHECK: fuse.gemm {{.*}}fuse.group = [[G]] : i64
// OFF-LABEL: func.func @first_token
// OFF-NOT: operand-views
// OFF: return
func.func @first_token(%x: tensor<?x7x32xf32>) -> tensor<?x10xf32> {
  %s = fuse.slice %x {starts = array<i64: 0, 0, 0>, ends = array<i64: 9223372036854775807, 1, 32>, steps = array<i64: 1, 1, 1>} : (tensor<?x7x32xf32>) -> tensor<?x1x32xf32>
  %r = fuse.reshape %s {shape = array<i64: -1, 32>} : (tensor<?x1x32xf32>) -> tensor<?x32xf32>
  %w = fuse.constant dense<0.5> : tensor<10x32xf32>
  %y = fuse.gemm %r, %w {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x32xf32>, tensor<10x32xf32>) -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}

// -----

// Not taken: a flatten alone (A's own dense layout: reshape-in-place makes
// it an alias), a slice whose columns are strided, and a slice read twice.
// CHECK-LABEL: func.func @not_taken
// CHECK-NOT: operand-views
// CHECK: return
func.func @not_taken(%x: tensor<?x4x1x1xf32>, %y: tensor<?x8xf32>, %z: tensor<?x3x8xf32>) -> (tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x8xf32>) {
  %w4 = fuse.constant dense<0.5> : tensor<4x10xf32>
  %f = fuse.flatten %x {axis = 1 : i64} : (tensor<?x4x1x1xf32>) -> tensor<?x4xf32>
  %a = fuse.matmul %f, %w4 : (tensor<?x4xf32>, tensor<4x10xf32>) -> tensor<?x10xf32>
  %even = fuse.slice %y {starts = array<i64: 0, 0>, ends = array<i64: 9223372036854775807, 8>, steps = array<i64: 1, 2>} : (tensor<?x8xf32>) -> tensor<?x4xf32>
  %b = fuse.matmul %even, %w4 : (tensor<?x4xf32>, tensor<4x10xf32>) -> tensor<?x10xf32>
  %w8 = fuse.constant dense<0.5> : tensor<8x10xf32>
  %first = fuse.slice %z {starts = array<i64: 0, 0, 0>, ends = array<i64: 9223372036854775807, 1, 8>, steps = array<i64: 1, 1, 1>} : (tensor<?x3x8xf32>) -> tensor<?x1x8xf32>
  %row = fuse.reshape %first {shape = array<i64: -1, 8>} : (tensor<?x1x8xf32>) -> tensor<?x8xf32>
  %c = fuse.matmul %row, %w8 : (tensor<?x8xf32>, tensor<8x10xf32>) -> tensor<?x10xf32>
  return %a, %b, %c, %row : tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x8xf32>
}
