// fuse.reshape on static shapes (the batch dimension: reshape-batch*.mlir).
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[Y:.*]]: tensor<2x3x4xf32>)
// CHECK: fuse.reshape %[[Y]] {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: fuse.reshape %[[Y]] {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK: fuse.reshape %[[Y]] {shape = array<i64: 0, 1, 12, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x12x1xf32>
// CHECK: fuse.reshape %[[Y]] {shape = array<i64: 0, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
func.func @reshape(%y: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<24xf32>, tensor<2x1x12x1xf32>, tensor<2x3x4xf32>) {
  %0 = fuse.reshape %y {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %1 = fuse.reshape %y {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  // 0 copies the input dimension at the same index.
  %2 = fuse.reshape %y {shape = array<i64: 0, 1, 12, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x12x1xf32>
  %3 = fuse.reshape %y {shape = array<i64: 0, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<4x6xf32>, tensor<24xf32>, tensor<2x1x12x1xf32>, tensor<2x3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors
//===----------------------------------------------------------------------===//

func.func @reshape_two_inferred(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // expected-error @+1 {{'fuse.reshape' op 'shape' may hold one -1, or one per run-time dimension it moves (0 here) with every static size given}}
  %0 = fuse.reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

func.func @reshape_invalid_entry(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // expected-error @+1 {{'fuse.reshape' op 'shape' entry -2 is invalid}}
  %0 = fuse.reshape %x {shape = array<i64: 2, -2>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

func.func @reshape_copy_missing_dim(%x: tensor<2x12xf32>) -> tensor<2x12x1xf32> {
  // expected-error @+1 {{'fuse.reshape' op 'shape' entry 2 copies a dimension the input lacks}}
  %0 = fuse.reshape %x {shape = array<i64: 2, 12, 0>} : (tensor<2x12xf32>) -> tensor<2x12x1xf32>
  return %0 : tensor<2x12x1xf32>
}

// -----

func.func @reshape_element_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [2, 3, 4] (24 elements per batch) to [5, 5]}}
  %0 = fuse.reshape %x {shape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_cannot_infer(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot infer the -1 entry reshaping [2, 3, 4] to [5, -1]}}
  %0 = fuse.reshape %x {shape = array<i64: 5, -1>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_result(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'fuse.reshape' op result type 'tensor<2x3x4xf32>' does not match the inferred type 'tensor<2x12xf32>'}}
  %0 = fuse.reshape %x {shape = array<i64: 0, 12>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
