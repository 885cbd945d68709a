// Matrix products: fuse.matmul (numpy matmul) and fuse.gemm.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<?x3x4xf32>, %[[B:.*]]: tensor<4x5xf32>, %[[C:.*]]: tensor<2x1x3x4xf32>, %[[D:.*]]: tensor<7x4x6xf32>)
// CHECK: fuse.matmul %[[A]], %[[B]] : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
// CHECK: fuse.matmul %[[C]], %[[D]] : (tensor<2x1x3x4xf32>, tensor<7x4x6xf32>) -> tensor<2x7x3x6xf32>
func.func @matmul(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x1x3x4xf32>, %d: tensor<7x4x6xf32>) -> (tensor<?x3x5xf32>, tensor<2x7x3x6xf32>) {
  // Batch dims broadcast; a rank-2 operand is a single matrix.
  %0 = fuse.matmul %a, %b : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  %1 = fuse.matmul %c, %d : (tensor<2x1x3x4xf32>, tensor<7x4x6xf32>) -> tensor<2x7x3x6xf32>
  return %0, %1 : tensor<?x3x5xf32>, tensor<2x7x3x6xf32>
}

// -----

// 1-D operands: a vector on the left gains (and loses) a leading 1, on the
// right a trailing 1.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
// CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK: fuse.matmul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
func.func @matmul_vectors(%m: tensor<?x4xf32>, %v: tensor<4xf32>, %n: tensor<4x5xf32>, %t: tensor<2x4x5xf32>) -> (tensor<?xf32>, tensor<5xf32>, tensor<f32>, tensor<2x5xf32>) {
  %0 = fuse.matmul %m, %v : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %1 = fuse.matmul %v, %n : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  %2 = fuse.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %3 = fuse.matmul %v, %t : (tensor<4xf32>, tensor<2x4x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<5xf32>, tensor<f32>, tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[C:.*]]: tensor<5xf32>, %[[BT:.*]]: tensor<5x3xf32>, %[[AT:.*]]: tensor<3x2xf32>, %[[C2:.*]]: tensor<2x5xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: fuse.gemm %[[A]], %[[B]], %[[C]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = false, transB = false} : (tensor<?x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<?x5xf32>
// CHECK: fuse.gemm %[[A]], %[[BT]] {alpha = 5.000000e-01 : f32, beta = 0.000000e+00 : f32, transA = false, transB = true} : (tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x5xf32>
// CHECK: fuse.gemm %[[AT]], %[[BT]], %[[C2]] {alpha = 1.000000e+00 : f32, beta = 2.000000e+00 : f32, transA = true, transB = true} : (tensor<3x2xf32>, tensor<5x3xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: fuse.gemm %[[AT]], %[[B]], %[[S]] {{.*}} : (tensor<3x2xf32>, tensor<3x5xf32>, tensor<f32>) -> tensor<2x5xf32>
func.func @gemm(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>, %c: tensor<5xf32>, %bt: tensor<5x3xf32>,
                %at: tensor<3x2xf32>, %c2: tensor<2x5xf32>, %s: tensor<f32>) -> (tensor<?x5xf32>, tensor<?x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fuse.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<?x5xf32>
  %1 = fuse.gemm %a, %bt {alpha = 0.5 : f32, beta = 0.0 : f32, transA = false, transB = true} : (tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x5xf32>
  %2 = fuse.gemm %at, %bt, %c2 {alpha = 1.0 : f32, beta = 2.0 : f32, transA = true, transB = true} : (tensor<3x2xf32>, tensor<5x3xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = fuse.gemm %at, %b, %s {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = false} : (tensor<3x2xf32>, tensor<3x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3 : tensor<?x5xf32>, tensor<?x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: matmul
//===----------------------------------------------------------------------===//

func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'fuse.matmul' op operands must have rank >= 1}}
  %0 = fuse.matmul %a, %b : (tensor<f32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<?x3x4xf32>, %b: tensor<5x6xf32>) -> tensor<?x3x6xf32> {
  // expected-error @+1 {{'fuse.matmul' op contraction dimensions differ: [?, 3, 4] x [5, 6]}}
  %0 = fuse.matmul %a, %b : (tensor<?x3x4xf32>, tensor<5x6xf32>) -> tensor<?x3x6xf32>
  return %0 : tensor<?x3x6xf32>
}

// -----

func.func @matmul_vector_contraction(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fuse.matmul' op contraction dimensions differ: [3] x [4]}}
  %0 = fuse.matmul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Contracting over the batch dimension is not allowed, even against itself.
func.func @matmul_contract_batch(%a: tensor<3x?xf32>, %b: tensor<?x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'fuse.matmul' op contraction dimensions differ: [3, ?] x [?, 5]}}
  %0 = fuse.matmul %a, %b : (tensor<3x?xf32>, tensor<?x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @matmul_batch_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x3x6xf32> {
  // expected-error @+1 {{'fuse.matmul' op batch dimensions do not broadcast: [2, 3, 4] x [5, 4, 6]}}
  %0 = fuse.matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

func.func @matmul_batch_vs_fixed(%a: tensor<?x3x4xf32>, %b: tensor<2x4x6xf32>) -> tensor<?x3x6xf32> {
  // expected-error @+1 {{'fuse.matmul' op batch dimensions do not broadcast: [?, 3, 4] x [2, 4, 6]}}
  %0 = fuse.matmul %a, %b : (tensor<?x3x4xf32>, tensor<2x4x6xf32>) -> tensor<?x3x6xf32>
  return %0 : tensor<?x3x6xf32>
}

// -----

func.func @matmul_result(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5x3xf32> {
  // expected-error @+1 {{'fuse.matmul' op result type 'tensor<?x5x3xf32>' does not match the inferred type 'tensor<?x3x5xf32>'}}
  %0 = fuse.matmul %a, %b : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x5x3xf32>
  return %0 : tensor<?x5x3xf32>
}

// -----

// A vector operand's added dimension is removed again from the result.
func.func @matmul_vector_result(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'fuse.matmul' op result type 'tensor<?x1xf32>' does not match the inferred type 'tensor<?xf32>'}}
  %0 = fuse.matmul %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: gemm
//===----------------------------------------------------------------------===//

func.func @gemm_a_rank(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op A must have rank 2, got [?, 3, 4]}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func @gemm_b_rank(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'fuse.gemm' op B must have rank 2, got [4]}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

func.func @gemm_contraction(%a: tensor<?x3xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op contraction dimensions differ: A [?, 3], B [4, 5]}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x3xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// transB = true contracts over B's second dimension (5 here, not 3).
func.func @gemm_contraction_trans_b(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.gemm' op contraction dimensions differ: A [?, 3], B [3, 5] (transposed)}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true} : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// transA = true would contract over the batch dimension.
func.func @gemm_contraction_trans_a(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op contraction dimensions differ: A [?, 3] (transposed), B [3, 5]}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = false} : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @gemm_c_shape(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<3xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op C [3] does not broadcast to [2, 5]}}
  %0 = fuse.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<1x2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op C [1, 2, 5] does not broadcast to [2, 5]}}
  %0 = fuse.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<1x2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// C may not widen the result: a 4x5 bias does not broadcast to 1x5.
func.func @gemm_c_larger(%a: tensor<1x3xf32>, %b: tensor<3x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op C [4, 5] does not broadcast to [1, 5]}}
  %0 = fuse.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<1x3xf32>, tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @gemm_result(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op result type 'tensor<4x5xf32>' does not match the inferred type 'tensor<?x5xf32>'}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = false} : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @gemm_missing_trans(%a: tensor<?x3xf32>, %b: tensor<3x5xf32>) -> tensor<?x5xf32> {
  // expected-error @+1 {{'fuse.gemm' op requires attribute 'transB'}}
  %0 = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false} : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}
