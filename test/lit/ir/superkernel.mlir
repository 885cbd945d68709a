// fuse.superkernel and fuse.yield: a fused group with one block argument per
// input and one yielded value per result.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @superkernel
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[K:.*]]:2 = fuse.superkernel "conv_relu_0" kind "conv"(%[[X]], %[[W]], %[[B]]) attributes {cost = {fused_us = 1.250000e+00 : f64, unfused_kernels = 2 : i64}} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x3x8x8xf32>, %[[A1:.*]]: tensor<4x3x3x3xf32>, %[[A2:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[C:.*]] = fuse.conv %[[A0]], %[[A1]], %[[A2]] {{.*}} -> tensor<?x4x6x6xf32>
// CHECK-NEXT: %[[R:.*]] = fuse.relu %[[C]] : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
// CHECK-NEXT: fuse.yield %[[R]], %[[C]] : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
// CHECK-NEXT: }
// CHECK: %[[E:.*]] = fuse.superkernel "add_1" kind "elementwise"(%[[K]]#0, %[[K]]#1) : (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> {
// CHECK: fuse.add
// CHECK: fuse.yield %{{.*}} : tensor<?x4x6x6xf32>
// CHECK: return %[[E]] : tensor<?x4x6x6xf32>
func.func @superkernel(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<?x4x6x6xf32> {
  %k:2 = fuse.superkernel "conv_relu_0" kind "conv" (%x, %w, %b) attributes {cost = {fused_us = 1.25 : f64, unfused_kernels = 2 : i64}} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) {
  ^bb0(%a0: tensor<?x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<4xf32>):
    %c = fuse.conv %a0, %a1, %a2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32>
    %r = fuse.relu %c : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
    fuse.yield %r, %c : tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>
  }
  %e = fuse.superkernel "add_1" kind "elementwise" (%k#0, %k#1) : (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32> {
  ^bb0(%p: tensor<?x4x6x6xf32>, %q: tensor<?x4x6x6xf32>):
    %s = fuse.add %p, %q : (tensor<?x4x6x6xf32>, tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
    fuse.yield %s : tensor<?x4x6x6xf32>
  }
  return %e : tensor<?x4x6x6xf32>
}

// -----

// Constants live inside the body (the region is isolated from above).
// CHECK-LABEL: func.func @superkernel_with_constant
// CHECK: fuse.superkernel "scale" kind "elementwise"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK: fuse.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK: fuse.mul
func.func @superkernel_with_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fuse.superkernel "scale" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %c = fuse.constant dense<2.0> : tensor<3xf32>
    %m = fuse.mul %a, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    fuse.yield %m : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors
//===----------------------------------------------------------------------===//

func.func @too_few_block_arguments(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op body has 1 arguments but the superkernel has 2 inputs}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    fuse.yield %a : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @too_many_block_arguments(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op body has 2 arguments but the superkernel has 1 inputs}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
    fuse.yield %a : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @block_argument_type(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op body argument 0 has type 'tensor<1x3xf32>' but input 0 has type 'tensor<?x3xf32>'}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<?x3xf32>) -> tensor<?x3xf32> {
  ^bb0(%a: tensor<1x3xf32>):
    %r = fuse.relu %a : (tensor<1x3xf32>) -> tensor<1x3xf32>
    fuse.yield %r : tensor<1x3xf32>
  }
  return %0 : tensor<?x3xf32>
}

// -----

func.func @yield_count(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op fuse.yield returns 2 values whose types do not match the 1 superkernel results}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    fuse.yield %a, %a : tensor<2x3xf32>, tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @yield_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op fuse.yield returns 1 values whose types do not match the 1 superkernel results}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %t = fuse.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    fuse.yield %t : tensor<3x2xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

// Without a fuse.yield the body gets an empty implicit one.
func.func @missing_yield(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op fuse.yield returns 0 values whose types do not match the 1 superkernel results}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %r = fuse.relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @empty_name(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op needs a non-empty kernel name}}
  %0 = fuse.superkernel "" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    fuse.yield %a : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @not_isolated(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %s = fuse.add %a, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    fuse.yield %s : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @bad_cost(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.superkernel' op attribute 'cost' failed to satisfy constraint: dictionary of named attribute values}}
  %0 = fuse.superkernel "k" kind "elementwise" (%x) attributes {cost = 3.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    fuse.yield %a : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// -----

func.func @yield_outside_superkernel(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fuse.yield' op expects parent op 'fuse.superkernel'}}
  fuse.yield %x : tensor<2x3xf32>
}
