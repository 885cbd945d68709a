// fuse.constant: dense, splat and dense_resource values; the result type is
// the value's type.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constants
// CHECK: %[[A:.*]] = fuse.constant dense<[1.000000e+00, -2.500000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK: %[[B:.*]] = fuse.constant dense<5.000000e-01> : tensor<2x3xf32>
// CHECK: %[[C:.*]] = fuse.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[D:.*]] = fuse.constant dense<4.200000e+01> : tensor<f32>
// CHECK: %[[E:.*]] = fuse.constant dense_resource<weights> : tensor<2x2xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] : tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<f32>, tensor<2x2xf32>
// The blob survives the round trip.
// CHECK: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-NEXT: weights: "0x040000000000803F000000400000404000008040"
func.func @constants() -> (tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<f32>, tensor<2x2xf32>) {
  %0 = fuse.constant dense<[1.0, -2.5, 0.0]> : tensor<3xf32>
  %1 = fuse.constant dense<0.5> : tensor<2x3xf32>
  %2 = fuse.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %3 = fuse.constant dense<42.0> : tensor<f32>
  %4 = fuse.constant dense_resource<weights> : tensor<2x2xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<f32>, tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// The generic form with a matching result type is accepted too.
// CHECK-LABEL: func.func @generic_form
// CHECK: fuse.constant dense<1.000000e+00> : tensor<4xf32>
func.func @generic_form() -> tensor<4xf32> {
  %0 = "fuse.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors
//===----------------------------------------------------------------------===//

func.func @value_result_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'fuse.constant' op value type 'tensor<4xf32>' does not match the result type 'tensor<3xf32>'}}
  %0 = "fuse.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @value_result_rank_mismatch() -> tensor<1x4xf32> {
  // expected-error @+1 {{'fuse.constant' op value type 'tensor<4xf32>' does not match the result type 'tensor<1x4xf32>'}}
  %0 = "fuse.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @unsigned() -> tensor<4xui16> {
  // expected-error @+1 {{'fuse.constant' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 1-bit signless integer or 8-bit signless integer or 8-bit unsigned integer values, but got 'tensor<4xui16>'}}
  %0 = fuse.constant dense<1> : tensor<4xui16>
  return %0 : tensor<4xui16>
}

// -----

func.func @f64() -> tensor<4xf64> {
  // expected-error @+1 {{'fuse.constant' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 1-bit signless integer or 8-bit signless integer or 8-bit unsigned integer values, but got 'tensor<4xf64>'}}
  %0 = fuse.constant dense<1.0> : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @not_a_tensor() -> vector<4xf32> {
  // expected-error @+1 {{'fuse.constant' op result #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 1-bit signless integer or 8-bit signless integer or 8-bit unsigned integer values, but got 'vector<4xf32>'}}
  %0 = fuse.constant dense<1.0> : vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

func.func @missing_value() -> tensor<3xf32> {
  // expected-error @+1 {{'fuse.constant' op requires attribute 'value'}}
  %0 = "fuse.constant"() : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @not_elements() -> tensor<3xf32> {
  // expected-error @+1 {{'fuse.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "fuse.constant"() {value = 1.0 : f32} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
