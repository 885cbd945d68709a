// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Ops compute in f16 and bf16 as in f32; results have their operands' type.
// CHECK-LABEL: func.func @half_ops
// CHECK: fuse.conv {{.*}} -> tensor<?x2x4x4xf16>
// CHECK: fuse.relu {{.*}} -> tensor<?x2x4x4xf16>
// CHECK: fuse.add {{.*}} -> tensor<?x8xbf16>
func.func @half_ops(%x: tensor<?x1x4x4xf16>, %w: tensor<2x1x1x1xf16>, %a: tensor<?x8xbf16>) -> (tensor<?x2x4x4xf16>, tensor<?x8xbf16>) {
  %c = fuse.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x1x4x4xf16>, tensor<2x1x1x1xf16>) -> tensor<?x2x4x4xf16>
  %r = fuse.relu %c : (tensor<?x2x4x4xf16>) -> tensor<?x2x4x4xf16>
  %s = fuse.add %a, %a : (tensor<?x8xbf16>, tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return %r, %s : tensor<?x2x4x4xf16>, tensor<?x8xbf16>
}

// -----

// Casts convert between any two element types; integer and bool tensors
// exist as constants, casts and function arguments.
// CHECK-LABEL: func.func @casts
// CHECK: fuse.cast %{{.*}} {to = "f32"} : (tensor<?x8xi64>) -> tensor<?x8xf32>
// CHECK: fuse.cast %{{.*}} {to = "i1"} : (tensor<?x8xf32>) -> tensor<?x8xi1>
// CHECK: fuse.constant dense<[1, 2]> : tensor<2xi32>
func.func @casts(%ids: tensor<?x8xi64>) -> (tensor<?x8xi1>, tensor<2xi32>) {
  %f = fuse.cast %ids {to = "f32"} : (tensor<?x8xi64>) -> tensor<?x8xf32>
  %m = fuse.cast %f {to = "i1"} : (tensor<?x8xf32>) -> tensor<?x8xi1>
  %c = fuse.constant dense<[1, 2]> : tensor<2xi32>
  return %m, %c : tensor<?x8xi1>, tensor<2xi32>
}

// -----

func.func @mixed_operands(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.add' op operands must share one element type: operand 0 is 'f32', operand 1 is 'f16'}}
  %0 = fuse.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @result_type_differs(%a: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.relu' op result type 'tensor<4xf32>' does not match the inferred type 'tensor<4xf16>'}}
  %0 = fuse.relu %a : (tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_to_unknown(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fuse.cast' op 'to' must be one of f32, f16, bf16, i64, i32, i1, got "f64"}}
  %0 = fuse.cast %a {to = "f64"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_result_mismatch(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fuse.cast' op result type 'tensor<4xi32>' does not match the inferred type 'tensor<4xi64>'}}
  %0 = fuse.cast %a {to = "i64"} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
