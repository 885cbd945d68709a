// fuse.reshape of tensors with the batch dimension `?`: it may be copied
// (0) or land, alone, on the -1 entry; it may never merge with or split into
// other dimensions.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4xf32>, %[[Z:.*]]: tensor<?x12xf32>)
// CHECK: fuse.reshape %[[X]] {shape = array<i64: 0, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK: fuse.reshape %[[X]] {shape = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK: fuse.reshape %[[X]] {shape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK: fuse.reshape %[[X]] {shape = array<i64: 0, 0, 2, -1>} : (tensor<?x3x4xf32>) -> tensor<?x3x2x2xf32>
// CHECK: fuse.reshape %[[Z]] {shape = array<i64: -1, 3, 4>} : (tensor<?x12xf32>) -> tensor<?x3x4xf32>
// CHECK: fuse.reshape %[[Z]] {shape = array<i64: 0, 2, 1, 6>} : (tensor<?x12xf32>) -> tensor<?x2x1x6xf32>
func.func @reshape_batch(%x: tensor<?x3x4xf32>, %z: tensor<?x12xf32>)
    -> (tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x3x2x2xf32>, tensor<?x3x4xf32>, tensor<?x2x1x6xf32>) {
  %0 = fuse.reshape %x {shape = array<i64: 0, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %1 = fuse.reshape %x {shape = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %2 = fuse.reshape %x {shape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %3 = fuse.reshape %x {shape = array<i64: 0, 0, 2, -1>} : (tensor<?x3x4xf32>) -> tensor<?x3x2x2xf32>
  %4 = fuse.reshape %z {shape = array<i64: -1, 3, 4>} : (tensor<?x12xf32>) -> tensor<?x3x4xf32>
  %5 = fuse.reshape %z {shape = array<i64: 0, 2, 1, 6>} : (tensor<?x12xf32>) -> tensor<?x2x1x6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x12xf32>, tensor<?x3x2x2xf32>, tensor<?x3x4xf32>, tensor<?x2x1x6xf32>
}

// -----

// Merging the batch with other dimensions ([?, 3, 4] -> [? * 12]).
func.func @reshape_merges_batch(%x: tensor<?x3x4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 3, 4] to [-1]: the batch dimension must map to exactly one output dimension}}
  %0 = fuse.reshape %x {shape = array<i64: -1>} : (tensor<?x3x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Merging part of the sample into the batch ([?, 12] -> [? * 2, 6]).
func.func @reshape_grows_batch(%x: tensor<?x12xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 12] to [-1, 6]: the batch dimension must map to exactly one output dimension}}
  %0 = fuse.reshape %x {shape = array<i64: -1, 6>} : (tensor<?x12xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// Splitting the batch ([?, 12] -> [? / 2, 24]).
func.func @reshape_splits_batch(%x: tensor<?x12xf32>) -> tensor<?x24xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 12] to [-1, 24]: the batch dimension must map to exactly one output dimension}}
  %0 = fuse.reshape %x {shape = array<i64: -1, 24>} : (tensor<?x12xf32>) -> tensor<?x24xf32>
  return %0 : tensor<?x24xf32>
}

// -----

// Without a 0 or -1 entry, nothing can hold the batch dimension.
func.func @reshape_static_target_of_batch(%x: tensor<?x12xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'fuse.reshape' op cannot reshape [?, 12] to [3, 4]: the batch dimension must map to exactly one output dimension}}
  %0 = fuse.reshape %x {shape = array<i64: 3, 4>} : (tensor<?x12xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @reshape_batch_result(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.reshape' op result type 'tensor<?x3x4xf32>' does not match the inferred type 'tensor<?x12xf32>'}}
  %0 = fuse.reshape %x {shape = array<i64: 0, 12>} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}
