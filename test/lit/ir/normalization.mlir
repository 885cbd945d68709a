// Normalisation: fuse.batch_norm, fuse.layer_norm, fuse.softmax.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>, %[[S:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2x4xf32>)
// CHECK: fuse.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 9.99999974E-6 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
// CHECK: fuse.batch_norm %[[Y]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 0.000000e+00 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
func.func @batch_norm(%x: tensor<?x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %y: tensor<2x4xf32>) -> (tensor<?x4x8x8xf32>, tensor<2x4xf32>) {
  %0 = fuse.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  // Rank 2 (N, C) is the smallest input; epsilon 0 is allowed.
  %1 = fuse.batch_norm %y, %s, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<?x4x8x8xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x16x32xf32>, %[[S:.*]]: tensor<32xf32>, %[[B:.*]]: tensor<32xf32>, %[[S2:.*]]: tensor<16x32xf32>, %[[S3:.*]]: tensor<1x32xf32>)
// CHECK: fuse.layer_norm %[[X]], %[[S]], %[[B]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
// CHECK: fuse.layer_norm %[[X]], %[[S]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
// CHECK: fuse.layer_norm %[[X]], %[[S2]], %[[S3]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<?x16x32xf32>, tensor<16x32xf32>, tensor<1x32xf32>) -> tensor<?x16x32xf32>
func.func @layer_norm(%x: tensor<?x16x32xf32>, %s: tensor<32xf32>, %b: tensor<32xf32>, %s2: tensor<16x32xf32>, %s3: tensor<1x32xf32>) -> (tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<?x16x32xf32>) {
  %0 = fuse.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  // Without bias.
  %1 = fuse.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  // Normalising over [16, 32]; scale and bias broadcast to it.
  %2 = fuse.layer_norm %x, %s2, %s3 {axis = 1 : i64, epsilon = 1.0e-3 : f32} : (tensor<?x16x32xf32>, tensor<16x32xf32>, tensor<1x32xf32>) -> tensor<?x16x32xf32>
  return %0, %1, %2 : tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<?x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: fuse.softmax %{{.*}} {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
// CHECK: fuse.softmax %{{.*}} {axis = 0 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
// CHECK: fuse.softmax %{{.*}} {axis = 2 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
func.func @softmax(%x: tensor<?x10xf32>, %y: tensor<3x4x5xf32>) -> (tensor<?x10xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %0 = fuse.softmax %x {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %1 = fuse.softmax %y {axis = 0 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %2 = fuse.softmax %y {axis = 2 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %0, %1, %2 : tensor<?x10xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: batch_norm
//===----------------------------------------------------------------------===//

func.func @batch_norm_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op input must have rank >= 2, got [4]}}
  %0 = fuse.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @batch_norm_dynamic_channels(%x: tensor<2x?x8xf32>, %p: tensor<4xf32>) -> tensor<2x?x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op channel dimension must be static, not the batch dimension}}
  %0 = fuse.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<2x?x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x?x8xf32>
  return %0 : tensor<2x?x8xf32>
}

// -----

func.func @batch_norm_negative_epsilon(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op 'epsilon' must be finite and >= 0, got -1e-05}}
  %0 = fuse.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @batch_norm_scale_shape(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>, %q: tensor<3xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op scale must have shape [4], got [3]}}
  %0 = fuse.batch_norm %x, %q, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @batch_norm_bias_shape(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>, %q: tensor<1x4xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op bias must have shape [4], got [1, 4]}}
  %0 = fuse.batch_norm %x, %p, %q, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @batch_norm_mean_shape(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>, %q: tensor<8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op mean must have shape [4], got [8]}}
  %0 = fuse.batch_norm %x, %p, %p, %q, %p {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @batch_norm_variance_shape(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>, %q: tensor<f32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op variance must have shape [4], got []}}
  %0 = fuse.batch_norm %x, %p, %p, %p, %q {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

func.func @batch_norm_result(%x: tensor<?x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'fuse.batch_norm' op result type 'tensor<1x4x8x8xf32>' does not match the inferred type 'tensor<?x4x8x8xf32>'}}
  %0 = fuse.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: layer_norm
//===----------------------------------------------------------------------===//

func.func @layer_norm_axis_too_large(%x: tensor<?x16x32xf32>, %s: tensor<32xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op 'axis' 3 is out of range for rank 3}}
  %0 = fuse.layer_norm %x, %s {axis = 3 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

func.func @layer_norm_axis_negative(%x: tensor<?x16x32xf32>, %s: tensor<32xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op 'axis' -1 is out of range for rank 3}}
  %0 = fuse.layer_norm %x, %s {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

func.func @layer_norm_negative_epsilon(%x: tensor<?x16x32xf32>, %s: tensor<32xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op 'epsilon' must be finite and >= 0, got -1}}
  %0 = fuse.layer_norm %x, %s {axis = 2 : i64, epsilon = -1.0 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<?x16x32xf32>, %s: tensor<16xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op scale and bias must broadcast to the normalised shape [32], got [16]}}
  %0 = fuse.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<16xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

// The parameters may not have a higher rank than the normalised shape.
func.func @layer_norm_scale_rank(%x: tensor<?x16x32xf32>, %s: tensor<1x32xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op scale and bias must broadcast to the normalised shape [32], got [1, 32]}}
  %0 = fuse.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<1x32xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<?x16x32xf32>, %s: tensor<16x32xf32>, %b: tensor<16x1x32xf32>) -> tensor<?x16x32xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op scale and bias must broadcast to the normalised shape [16, 32], got [16, 1, 32]}}
  %0 = fuse.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<16x32xf32>, tensor<16x1x32xf32>) -> tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}

// -----

func.func @layer_norm_result(%x: tensor<?x16x32xf32>, %s: tensor<32xf32>) -> tensor<?x16x1xf32> {
  // expected-error @+1 {{'fuse.layer_norm' op result type 'tensor<?x16x1xf32>' does not match the inferred type 'tensor<?x16x32xf32>'}}
  %0 = fuse.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x1xf32>
  return %0 : tensor<?x16x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: softmax
//===----------------------------------------------------------------------===//

func.func @softmax_axis_too_large(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error @+1 {{'fuse.softmax' op 'axis' 2 is out of range for rank 2}}
  %0 = fuse.softmax %x {axis = 2 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Importers map ONNX's negative axes to non-negative ones.
func.func @softmax_axis_negative(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  // expected-error @+1 {{'fuse.softmax' op 'axis' -1 is out of range for rank 2}}
  %0 = fuse.softmax %x {axis = -1 : i64} : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

func.func @softmax_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'fuse.softmax' op 'axis' 0 is out of range for rank 0}}
  %0 = fuse.softmax %x {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_result(%x: tensor<?x10xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'fuse.softmax' op result type 'tensor<?x1xf32>' does not match the inferred type 'tensor<?x10xf32>'}}
  %0 = fuse.softmax %x {axis = 1 : i64} : (tensor<?x10xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}
