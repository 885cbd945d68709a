// Unary and binary elementwise ops: relu, sigmoid, tanh, erf, sqrt, gelu,
// clip, add, sub, mul, div, pow.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf32>)
// CHECK: %[[R:.*]] = fuse.relu %[[X]] : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: %[[S:.*]] = fuse.sigmoid %[[R]] : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: %[[T:.*]] = fuse.tanh %[[S]] : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: %[[E:.*]] = fuse.erf %[[T]] : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: %[[Q:.*]] = fuse.sqrt %[[E]] : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: return %[[Q]] : tensor<?x4x8xf32>
func.func @unary(%x: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %0 = fuse.relu %x : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %1 = fuse.sigmoid %0 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %2 = fuse.tanh %1 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %3 = fuse.erf %2 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %4 = fuse.sqrt %3 : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %4 : tensor<?x4x8xf32>
}

// -----

// The default approximate = "none" is not printed; "tanh" is.
// CHECK-LABEL: func.func @gelu
// CHECK: fuse.gelu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: fuse.gelu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: fuse.gelu %{{.*}} {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fuse.gelu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = fuse.gelu %0 {approximate = "none"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = fuse.gelu %1 {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @clip
// CHECK: fuse.clip %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: fuse.clip %{{.*}} {min = -1.000000e+00 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: fuse.clip %{{.*}} {max = 1.000000e+00 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: fuse.clip %{{.*}} : (tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: fuse.clip %{{.*}} {max = 2.000000e+00 : f32, min = 2.000000e+00 : f32}
func.func @clip(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = fuse.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %1 = fuse.clip %0 {min = -1.0 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %2 = fuse.clip %1 {max = 1.0 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %3 = fuse.clip %2 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  // min == max is allowed.
  %4 = fuse.clip %3 {min = 2.0 : f32, max = 2.0 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %4 : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @binary_same_shape
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x4xf32>)
// CHECK: %[[ADD:.*]] = fuse.add %[[A]], %[[B]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[SUB:.*]] = fuse.sub %[[ADD]], %[[B]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[MUL:.*]] = fuse.mul %[[SUB]], %[[A]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[DIV:.*]] = fuse.div %[[MUL]], %[[B]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[POW:.*]] = fuse.pow %[[DIV]], %[[A]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: return %[[POW]]
func.func @binary_same_shape(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = fuse.add %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = fuse.sub %0, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = fuse.mul %1, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = fuse.div %2, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %4 = fuse.pow %3, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %4 : tensor<?x4xf32>
}

// -----

// Numpy broadcasting: lower-rank operands align to the right, size-1
// dimensions stretch, and the batch dimension broadcasts against 1.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK: fuse.add %{{.*}}, %{{.*}} : (tensor<?x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<?x3x8x8xf32>
// CHECK: fuse.mul %{{.*}}, %{{.*}} : (tensor<1xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
// CHECK: fuse.sub %{{.*}}, %{{.*}} : (tensor<1x3x1x8xf32>, tensor<?x1x8x1xf32>) -> tensor<?x3x8x8xf32>
// CHECK: fuse.div %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: fuse.pow %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
func.func @binary_broadcast(%x: tensor<?x3x8x8xf32>, %c: tensor<3x1x1xf32>, %s: tensor<1xf32>,
                            %p: tensor<1x3x1x8xf32>, %q: tensor<?x1x8x1xf32>, %z: tensor<f32>,
                            %m: tensor<2x5xf32>, %u: tensor<4x1xf32>, %v: tensor<1x5xf32>)
    -> (tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>, tensor<2x5xf32>, tensor<4x5xf32>) {
  %0 = fuse.add %x, %c : (tensor<?x3x8x8xf32>, tensor<3x1x1xf32>) -> tensor<?x3x8x8xf32>
  %1 = fuse.mul %s, %0 : (tensor<1xf32>, tensor<?x3x8x8xf32>) -> tensor<?x3x8x8xf32>
  %2 = fuse.sub %p, %q : (tensor<1x3x1x8xf32>, tensor<?x1x8x1xf32>) -> tensor<?x3x8x8xf32>
  %3 = fuse.div %z, %m : (tensor<f32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = fuse.pow %u, %v : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
  return %0, %1, %2, %3, %4 : tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>, tensor<?x3x8x8xf32>, tensor<2x5xf32>, tensor<4x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors
//===----------------------------------------------------------------------===//

func.func @gelu_bad_approximate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.gelu' op 'approximate' must be "none" or "tanh", got "fast"}}
  %0 = fuse.gelu %x {approximate = "fast"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gelu_approximate_is_case_sensitive(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'approximate' must be "none" or "tanh", got "TANH"}}
  %0 = fuse.gelu %x {approximate = "TANH"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @clip_min_greater_than_max(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.clip' op 'min' 6.000000e+00 is greater than 'max' 0.000000e+00}}
  %0 = fuse.clip %x {min = 6.0 : f32, max = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @clip_bound_must_be_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.clip' op attribute 'min' failed to satisfy constraint: 32-bit float attribute}}
  %0 = fuse.clip %x {min = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unary_result_shape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'fuse.relu' op result type 'tensor<3x2xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = fuse.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @unary_result_static_batch(%x: tensor<?x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{'fuse.sigmoid' op result type 'tensor<1x3xf32>' does not match the inferred type 'tensor<?x3xf32>'}}
  %0 = fuse.sigmoid %x : (tensor<?x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @unary_result_dynamic_batch(%x: tensor<2x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.tanh' op result type 'tensor<?x3xf32>' does not match the inferred type 'tensor<2x3xf32>'}}
  %0 = fuse.tanh %x : (tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @unary_not_float(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'fuse.erf' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3xi32>'}}
  %0 = fuse.erf %x : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @unary_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'fuse.sqrt' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<*xf32>'}}
  %0 = fuse.sqrt %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @binary_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.add' op operands do not broadcast: [2, 3] and [4]}}
  %0 = fuse.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The batch dimension only broadcasts against 1, never against a fixed size.
func.func @binary_batch_vs_fixed(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.sub' op operands do not broadcast: [?, 3] and [4, 3]}}
  %0 = fuse.sub %a, %b : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @binary_inner_mismatch(%a: tensor<?x3x8x8xf32>, %b: tensor<4x1x1xf32>) -> tensor<?x3x8x8xf32> {
  // expected-error @+1 {{'fuse.mul' op operands do not broadcast: [?, 3, 8, 8] and [4, 1, 1]}}
  %0 = fuse.mul %a, %b : (tensor<?x3x8x8xf32>, tensor<4x1x1xf32>) -> tensor<?x3x8x8xf32>
  return %0 : tensor<?x3x8x8xf32>
}

// -----

func.func @binary_result_not_broadcast(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'fuse.div' op result type 'tensor<4x1xf32>' does not match the inferred type 'tensor<4x5xf32>'}}
  %0 = fuse.div %a, %b : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @binary_result_rank(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{'fuse.pow' op result type 'tensor<1x3xf32>' does not match the inferred type 'tensor<3xf32>'}}
  %0 = fuse.pow %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
